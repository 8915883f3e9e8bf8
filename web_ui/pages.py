"""The pages people open: live game, setup, history and replay, leaderboard, rules,
diagnostics, settings, and the PIN form. Every form posts here and works without script.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Sequence
from typing import Any, Final, NoReturn

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext
from werkzeug.wrappers import Response as BaseResponse

from controller import palette
from controller import settings as household
from controller.hardware.port import TUNES
from controller.referee.messages import Message
from controller.referee.players import computer_term
from controller.referee.setup import MAX_NAME
from controller.store import StoredGame
from web_ui import auth, control, drawing, forms, i18n, render, reviews
from web_ui.redact import for_viewer
from web_ui.replay import ReplayUnavailable, Step, replay_steps
from web_ui.state import web_state

bp = Blueprint("pages", __name__)

HISTORY_PAGE = 20


def _form_admin() -> None:
    """Forms may carry the PIN themselves: unlock with it, or demand it."""
    if auth.is_admin():
        return
    pin = request.form.get("pin")
    if not pin:
        raise auth.PinRequired
    try:
        auth.unlock(pin)
    except PermissionError as exc:
        abort(403, str(exc))


def _fail(exc: forms.InputError) -> NoReturn:
    abort(400, str(exc))


def _refused(exc: household.SettingError) -> NoReturn:
    abort(400, exc.render(gettext))


# -- live ----------------------------------------------------------------------------------


TUNES_JSON: Final = json.dumps(
    {sound.value: [[note.hz, note.ms] for note in notes] for sound, notes in TUNES.items()},
    separators=(",", ":"),
)
"""The buzzer's tunes (controller.hardware.port.TUNES) for the page's Web Audio."""


@bp.get("/")
def live() -> str:
    snapshot = for_viewer(web_state().table.snapshot, auth.is_admin())
    return render_template(
        "live.html",
        snap=snapshot,
        fragments=render.live_fragments(snapshot, with_csrf=True),
        tunes=TUNES_JSON,
    )


@bp.post("/control/<command>", endpoint="control")
def control_command(command: str) -> BaseResponse:
    if command not in control.actions():
        abort(404, gettext("There is no such command."))
    _form_admin()
    control.action(command)  # the live page shows what changed
    return redirect(url_for("pages.live"))


# -- setup ---------------------------------------------------------------------------------


def _setup_context() -> dict[str, Any]:
    """What the New game page offers: each seat's colour and the name an unnamed seat goes
    by (the name field's placeholder: the field starts empty, so a seat left so is stored
    unnamed and every reader sees its default name in their own language)."""
    colours = [c.name for c in palette.PALETTE[:4]]
    seats = [
        {"name": render.say(Message.of("player_name", seat=i + 1)), "colour": colours[i]}
        for i in range(4)
    ]
    web = web_state()
    levels = web.levels
    example = Message.of("computer_name", computer=computer_term(levels[-1])) if levels else None
    views = web.views.values()
    counted = [v for v in views if v.fixed_seats is None]
    counts = sorted({n for v in counted for n in v.kind.seats})
    return {
        "seats": seats,
        "counted": counted,
        "seat_counts": counts,
        # "Played by" (a computer, or a person on another board) where the game allows it.
        "played_by": [
            v for v in views if v.kind.computer_refused() is None or v.kind.remote_refused() is None
        ],
        "palette": palette.PALETTE,
        "levels": levels,
        "computer_example": render.say(example),
        "name_max": MAX_NAME,
    }


@bp.get("/setup")
def setup() -> str:
    views = web_state().views
    game = request.args.get("game", "")
    if game not in views:
        game = next(iter(views))
    return render_template(
        "setup.html",
        game=game,
        values={},
        errors=(),
        **_setup_context(),
    )


def _field_label(field: str) -> str:
    """``players[1].name`` -> ``Seat 2, Name`` for people reading the setup page."""
    match = re.fullmatch(r"players\[(\d)\]\.(name|colour|computer)", field)
    if match is None:
        return field
    what = {"name": gettext("Name"), "colour": gettext("Colour"), "computer": gettext("Played by")}
    return f"{gettext('Seat %(n)d', n=int(match.group(1)) + 1)}, {what[match.group(2)]}"


def _setup_again(problems: Sequence[str], status: int) -> Response:
    """The setup page again, with what was entered and everything that is wrong."""
    game = request.form.get("game")
    page = render_template(
        "setup.html",
        game=game if game in web_state().views else next(iter(web_state().views)),
        values=request.form,
        errors=problems,
        **_setup_context(),
    )
    return make_response(page, status)


def _mistakes(exc: forms.InputError) -> list[str]:
    """Each mistake of a setup as its reader sees it: ``Seat 2, Name: …``."""
    return [f"{_field_label(field)}: {problem}" for field, problem in exc.mistakes]


@bp.post("/setup", endpoint="setup_submit")
def setup_post() -> BaseResponse:
    try:
        chosen = forms.setup_from_form(request.form, web_state().table.games)
    except forms.InputError as exc:
        return _setup_again(_mistakes(exc), 400)
    if not auth.is_admin() and request.form.get("pin"):
        try:
            auth.unlock(request.form["pin"])
        except PermissionError as exc:
            return _setup_again([str(exc)], 403)
    _form_admin()
    try:
        control.new_game(chosen)  # the live page's status line says that it started
    except forms.InputError as exc:  # the referee's rules: sentences in the reader's language
        return _setup_again(_mistakes(exc), 400)
    return redirect(url_for("pages.live"))


# -- history and replay -------------------------------------------------------------------


def _page_number() -> int:
    raw = request.args.get("page", "1")
    if not raw.isascii() or not raw.isdigit() or len(raw) > 6 or int(raw) < 1:
        abort(400, gettext("page must be a whole number from 1."))
    return int(raw)


@bp.get("/history")
def history() -> str:
    history = web_state().table.history
    page = _page_number()
    total = history.count_games()
    pages = max(1, math.ceil(total / HISTORY_PAGE))
    if page > pages:
        abort(404, gettext("There is no such page of the history."))
    games = history.games(limit=HISTORY_PAGE, offset=(page - 1) * HISTORY_PAGE)
    return render_template("history.html", games=games, page=page, pages=pages, total=total)


def _stored_game(game_id: int) -> StoredGame:
    if game_id > 2**62:
        abort(404, gettext("There is no game %(id)d.", id=game_id))
    game = web_state().table.history.game(game_id)
    if game is None:
        abort(404, gettext("There is no game %(id)d.", id=game_id))
    return game


def _step_arg(last: int) -> int:
    raw = request.args.get("step")
    if raw is None:
        return last
    if not raw.isascii() or not raw.isdigit() or len(raw) > 6:
        abort(400, gettext("step must be a whole number from 0 to %(last)d.", last=last))
    return min(int(raw), last)


def _replayable(game: StoredGame) -> list[Step]:
    """The steps of a game's replay, or 409 saying why it cannot be replayed."""
    try:
        return replay_steps(game, web_state().table.games)
    except ReplayUnavailable as exc:
        abort(409, str(exc))


def _step_context(game: StoredGame, steps: list[Step], step: int) -> dict[str, Any]:
    """A step of the replay, with the review's verdict on its move once it is there: the
    better cell is ringed in the mover's colour, and a move that was the only one left is
    never praised (``forced``)."""
    current = steps[step]
    snapshot = current.snapshot
    review = reviews.review_for(game)
    loss = review.loss_of(step) if review is not None and review.state == "ready" else None
    if loss is not None and loss.best != loss.played and current.mover is not None:
        snapshot = dataclasses.replace(snapshot, hint=loss.best, to_move=current.mover)
    context = render.live_context(snapshot)
    context.update(
        stored=game,
        steps=steps,
        step=step,
        current=current,
        review=review,
        loss=loss,
        forced=forced_steps(game, steps),
    )
    return context


def forced_steps(game: StoredGame, steps: list[Step]) -> frozenset[int]:
    """The steps whose move was the only one the mover had (the last empty cell)."""
    view = render.view_of(game.game)
    if view is None:
        return frozenset()
    return frozenset(s.number for s in steps[1:] if view.forced(s.snapshot))


@bp.get("/history/<int:game_id>")
def game(game_id: int) -> str:
    stored = _stored_game(game_id)
    try:
        steps = replay_steps(stored, web_state().table.games)
    except ReplayUnavailable as exc:
        return render_template("game.html", stored=stored, steps=None, problem=str(exc))
    step = _step_arg(len(steps) - 1)
    context = _step_context(stored, steps, step)
    return render_template("game.html", problem=None, **context)


@bp.get("/history/<int:game_id>/moves")
def game_moves(game_id: int) -> str:
    """The list of moves with the review as it is now (the page asks again while the
    computer works on it)."""
    stored = _stored_game(game_id)
    steps = _replayable(stored)
    context = _step_context(stored, steps, _step_arg(len(steps) - 1))
    return render_template("_moves.html", **context)


@bp.get("/history/<int:game_id>/step/<int:step>")
def game_step(game_id: int, step: int) -> str:
    stored = _stored_game(game_id)
    steps = _replayable(stored)
    if step >= len(steps):
        abort(404, gettext("This game has only %(n)d steps.", n=len(steps) - 1))
    return render_template("_replay_stage.html", **_step_context(stored, steps, step))


# -- leaderboard and rules -----------------------------------------------------------------


@bp.get("/leaderboard")
def leaderboard() -> str:
    views = web_state().views
    game = request.args.get("game") or None
    if game is not None and game not in views:
        names = ", ".join(views)
        abort(400, gettext("game must be one of %(games)s.", games=names))
    history = web_state().table.history
    kinds = [game] if game else list(views)
    tables = []
    for kind in kinds:
        rows = history.leaderboard(kind)
        people = [r for r in rows if not r.computer]
        tables.append((kind, people, [r for r in rows if r.computer]))
    return render_template("leaderboard.html", tables=tables, game=game)


@bp.get("/rules")
def rules() -> str:
    players = render.local_letters(drawing.PICTURE_PLAYERS)
    pictures = {name: view.pictures(players) for name, view in web_state().views.items()}
    return render_template("rules.html", pictures=pictures)


# -- diagnostics -----------------------------------------------------------------------------


@bp.get("/diagnostics")
def diagnostics() -> str:
    web = web_state()
    snapshot = for_viewer(web.table.snapshot, auth.is_admin())
    return render_template(
        "diagnostics.html",
        snap=snapshot,
        fragments=render.diagnostics_fragments(snapshot),
        levels=render.levels_fragment(web.table.sensor_levels(), web.channel_map),
        leds=web.led_names,
        palette=palette.PALETTE,
        config=web.config,
    )


@bp.get("/diagnostics/levels")
def diagnostics_levels() -> str:
    """Every sensor's reading as a bar against its thresholds (the page asks for this
    fragment a few times a second while it is open)."""
    web = web_state()
    return render.levels_fragment(web.table.sensor_levels(), web.channel_map)


@bp.post("/diagnostics/led-test")
def led_test() -> BaseResponse:
    try:
        wanted = forms.parse_led_test(request.form, web_state().led_names)
    except forms.InputError as exc:
        _fail(exc)
    _form_admin()
    control.led_test(wanted)
    flash(gettext("LED test sent."), "ok")
    return redirect(url_for("pages.diagnostics"))


# -- settings ------------------------------------------------------------------------------


@bp.get("/settings")
def settings() -> str:
    return _settings_page()


def _settings_page(pin_error: str = "", pin_form: dict[str, str] | None = None) -> str:
    """The settings page; after a PIN change that did not work, its form says why in
    place, with what was typed kept."""
    web = web_state()
    return render_template(
        "settings.html",
        default_language=web.household.language,
        brightness=_brightness_percent(),
        has_buzzer=web.table.has_buzzer,
        volume=web.household.volume,
        pin_error=pin_error,
        pin_form=pin_form or {},
    )


@bp.post("/settings/volume")
def settings_volume() -> BaseResponse:
    try:
        volume = household.valid_volume(request.form.get("volume", ""))
    except household.SettingError as exc:
        _refused(exc)
    _form_admin()
    web_state().household.change(volume=volume)
    flash(gettext("The buzzer's volume was changed."), "ok")
    return redirect(url_for("pages.settings"))


def _brightness_percent() -> int | None:
    """The configured LED brightness limit in percent (read-only: set in the config)."""
    config = web_state().config
    return None if config is None else round(config.leds.brightness * 100)


@bp.post("/settings/pin")
def settings_pin() -> BaseResponse:
    current = request.form.get("current", "")
    new = request.form.get("new", "")
    again = request.form.get("again", "")
    typed = {"current": current, "new": new, "again": again}
    try:
        household.valid_pin(new)
    except household.SettingError as exc:
        return _pin_refused(400, exc.render(gettext), typed)
    if new != again:
        return _pin_refused(400, gettext("The two new PINs differ."), typed)
    # The current PIN is always asked for, even in an unlocked browser: a phone left
    # unlocked on the table must not let anyone lock the family out.
    if not current:
        return _pin_refused(403, gettext("Enter the current PIN."), typed)
    try:
        auth.unlock(current)
    except PermissionError as exc:
        return _pin_refused(403, str(exc), typed)
    web_state().household.set_pin(new)
    auth.unlock(new)
    flash(gettext("The PIN was changed. Other browsers must unlock again."), "ok")
    return redirect(url_for("pages.settings"))


def _pin_refused(status: int, why: str, typed: dict[str, str]) -> BaseResponse:
    """The settings page again, the PIN form saying ``why`` beside what was typed (kept,
    so that one mistyped field does not mean typing all three again; never stored)."""
    response = make_response(_settings_page(why, typed), status)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/settings/language")
def settings_language() -> BaseResponse:
    try:
        code = household.valid_language(request.form.get("language", ""))
    except household.SettingError as exc:
        _refused(exc)
    _form_admin()
    web_state().household.change(language=code)
    flash(gettext("The default language was changed."), "ok")
    return redirect(url_for("pages.settings"))


# -- PIN and language ------------------------------------------------------------------------


@bp.get("/unlock")
def unlock() -> str:
    return render_template("unlock.html", next=auth.safe_next(request.args.get("next")), error=None)


@bp.post("/unlock", endpoint="unlock_submit")
def unlock_post() -> BaseResponse:
    target = auth.safe_next(request.form.get("next"))
    try:
        auth.unlock(request.form.get("pin", ""))
    except PermissionError as exc:
        return make_response(render_template("unlock.html", next=target, error=str(exc)), 403)
    return redirect(target)


@bp.post("/lock")
def lock() -> BaseResponse:
    auth.lock()
    flash(gettext("Locked: this browser needs the PIN again to change anything."), "ok")
    return redirect(url_for("pages.live"))


@bp.post("/language")
def language() -> BaseResponse:
    """This browser's own language (a cookie): changes nothing for anyone else."""
    code = request.form.get("language", "")
    if not i18n.is_language(code):
        abort(400, gettext("Choose English, Deutsch or Dansk."))
    response = redirect(auth.safe_next(request.form.get("next")))
    response.set_cookie(
        i18n.LANGUAGE_COOKIE,
        code,
        max_age=365 * 24 * 3600,
        httponly=True,
        samesite="Lax",
    )
    return response

"""The JSON API: reading is open, every write needs an unlocked session and the CSRF token.

``docs/api.md`` is the reference (every route, field and error; a test keeps it true).
In short::

    GET  /api/state  /api/session  /api/games[?limit&offset]  /api/games/<id>[/replay]
         /api/leaderboard[?game=]
    POST /api/unlock {"pin"}  /api/lock  /api/pin {"current", "new"}
         /api/game {"game", "players": [{"name", "colour", "computer"}], "first_seat",
                    "options", "children_help"}
         /api/command/<confirm|end_turn|undo|hint|abort|play_again>
         /api/led-test {"led", "colour"} or {"stop": true}
         /api/virtual {"name", "action"}  /api/settings {"language", "volume"}

Writes send ``X-CSRFToken`` (from ``GET /api/session``) with the session cookie; every
body goes through :func:`web_ui.auth.require_json_object` and its route's model in
:mod:`web_ui.bodies`. Answers are ``{"ok": true, …}`` or ``{"ok": false, "error":
"sentence"}`` with a 4xx (or 503) status.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, abort, jsonify, request
from flask_babel import get_locale, gettext
from flask_wtf.csrf import generate_csrf

from controller import settings as household
from controller.referee.state import Reply
from controller.store import StoredGame
from web_ui import auth, bodies, control, forms, i18n
from web_ui.auth import admin_required, require_json_object
from web_ui.redact import for_viewer
from web_ui.render import say
from web_ui.replay import ReplayUnavailable, replay_steps
from web_ui.state import web_state

bp = Blueprint("api", __name__, url_prefix="/api")


def ok(**extra: Any) -> Response:
    return jsonify({"ok": True, **extra})


def _query_int(name: str, default: int, low: int, high: int) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    if not raw.isascii() or not raw.isdigit() or len(raw) > 9 or not low <= int(raw) <= high:
        abort(
            400,
            gettext(
                "%(name)s must be a whole number from %(low)d to %(high)d.",
                name=name,
                low=low,
                high=high,
            ),
        )
    return int(raw)


def replied(reply: Reply, **extra: Any) -> Response:
    """A command's answer: what the referee said, in the reader's language."""
    return ok(message=say(reply.message), **extra)


# -- reading ---------------------------------------------------------------------------------


@bp.get("/state")
def state() -> Response:
    """The snapshot (its JSON made once by the Table and shared) with the note and the
    prompt in the reader's language; a locked browser's without the invitation code."""
    snapshot = for_viewer(web_state().table.snapshot, auth.is_admin())
    text = {"note": say(snapshot.note), "prompt": say(snapshot.prompt)}
    body = snapshot.json[:-1] + ',"text":' + json.dumps(text, ensure_ascii=False) + "}"
    return Response(body, mimetype="application/json")


@bp.get("/games")
def games() -> Response:
    history = web_state().table.history
    limit = _query_int("limit", 20, 1, 200)
    offset = _query_int("offset", 0, 0, 10**9)
    return jsonify(
        {
            "total": history.count_games(),
            "games": [g.to_dict() for g in history.games(limit=limit, offset=offset)],
        }
    )


def _game(game_id: int) -> StoredGame:
    found = web_state().table.history.game(game_id) if game_id <= 2**62 else None
    if found is None:
        abort(404, gettext("There is no game %(id)d.", id=game_id))
    return found


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> Response:
    return jsonify(_game(game_id).to_dict())


@bp.get("/games/<int:game_id>/replay")
def game_replay(game_id: int) -> Response:
    try:
        steps = replay_steps(_game(game_id), web_state().table.games)
    except ReplayUnavailable as exc:
        abort(409, str(exc))
    return jsonify(
        {
            "steps": [
                {
                    "number": s.number,
                    "label": s.label,
                    "mover": s.mover,
                    "bonuses": list(s.bonuses),
                    "snapshot": s.snapshot.to_json(),
                }
                for s in steps
            ]
        }
    )


@bp.get("/leaderboard")
def leaderboard() -> Response:
    game = request.args.get("game") or None
    games = web_state().table.games
    if game is not None and game not in games:
        abort(400, gettext("game must be one of %(games)s.", games=", ".join(games)))
    return jsonify({"rows": [r.to_dict() for r in web_state().table.history.leaderboard(game)]})


# -- the session and the PIN -------------------------------------------------------------


@bp.get("/session")
def session_state() -> Response:
    """This browser's CSRF token and whether it is unlocked, for programs and scripts.

    The token belongs to the session cookie this answer sets (or keeps): send both back.
    """
    return ok(
        csrf_token=generate_csrf(),
        unlocked=auth.is_admin(),
        unlocked_until=auth.unlocked_until(),
        language=str(get_locale() or i18n.DEFAULT_LANGUAGE),
        virtual=web_state().virtual,
    )


@bp.post("/unlock")
def unlock() -> Response:
    body = require_json_object(bodies.Unlock)
    try:
        auth.unlock(body["pin"])
    except PermissionError as exc:
        abort(403, str(exc))
    return ok(csrf_token=generate_csrf())


@bp.post("/lock")
def lock() -> Response:
    require_json_object(bodies.Empty)
    auth.lock()
    return ok()


@bp.post("/pin")
def change_pin() -> Response:
    body = require_json_object(bodies.PinChange)
    try:
        new = household.valid_pin(body["new"])
    except household.SettingError as exc:
        raise bodies.InputError("new", exc.render(gettext)) from None
    try:
        auth.verify(body["current"])
    except PermissionError as exc:
        abort(403, str(exc))
    web_state().household.set_pin(new)  # a full card: 503, and the session is as it was
    auth.unlock(new)
    return ok(csrf_token=generate_csrf(), message=gettext("The PIN was changed."))


# -- actions ---------------------------------------------------------------------------------


@bp.post("/game")
@admin_required
def new_game() -> Response:
    chosen = forms.parse_setup(auth.read_body(), web_state().table.games)
    linker = web_state().table.linker
    if chosen.remote and linker is None:
        raise bodies.InputError(f"players[{chosen.remote[0]}].remote", _NO_BROKER)
    reply = control.new_game(chosen)
    if not chosen.remote or linker is None:
        return replied(reply)
    view = linker.view() or {}
    return replied(reply, code=view.get("code"))


_NO_BROKER = "this board has no [remote] broker in its config file"


@bp.post("/remote/join")
@admin_required
def remote_join() -> Response:
    body = require_json_object(bodies.Join)
    linker = web_state().table.linker
    if linker is None:
        raise bodies.InputError("code", _NO_BROKER)
    try:
        code = linker.join(body["code"])
    except ValueError as exc:
        raise bodies.InputError("code", str(exc)) from None
    return ok(code=code)


@bp.post("/remote/take-record")
@admin_required
def remote_take_record() -> Response:
    require_json_object(bodies.Empty)
    linker = web_state().table.linker
    if linker is None or not linker.take_record():
        raise bodies.InputError("remote", "no stopped link of a joined game to take a record for")
    return ok()


@bp.post("/command/<name>")
@admin_required
def command(name: str) -> Response:
    if name not in control.actions():
        abort(404, gettext("There is no such command."))
    require_json_object(bodies.Empty)
    return replied(control.action(name))


@bp.post("/led-test")
@admin_required
def led_test() -> Response:
    body = require_json_object(bodies.LedTest)
    wanted = forms.parse_led_test(body, web_state().led_names)
    return replied(control.led_test(wanted))


@bp.post("/virtual")
@admin_required
def virtual() -> Response:
    web = web_state()
    body = require_json_object(bodies.Virtual)
    press = forms.parse_virtual(body, list(web.channel_map.channel_by_name))
    touched = control.virtual(press)
    snap = touched.snapshot
    return ok(
        name=press.name,
        active=touched.active,
        version=snap.version,
        sensor_seq=snap.sensor_seq,
        moves=snap.moves,
        status=snap.status,
        fault=snap.fault,
        note=say(snap.note),
        prompt=say(snap.prompt),
    )


@bp.post("/settings")
@admin_required
def settings() -> Response:
    web = web_state()
    body = require_json_object(bodies.Settings)
    if not body:
        raise bodies.InputError("body", "send language, volume or both")
    try:
        web.household.change(language=body.get("language"), volume=body.get("volume"))
    except household.SettingError as exc:
        raise bodies.InputError(exc.field, exc.render(gettext)) from None
    return ok(language=web.household.language, volume=web.household.volume)

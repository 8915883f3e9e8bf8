"""The JSON API: reading is open, every write needs an unlocked session and the CSRF token.

Reads::

    GET  /api/state                      the Table's snapshot (the same dict SSE sends)
    GET  /api/games?limit=20&offset=0    history, newest first
    GET  /api/games/<id>                 one game: players, options, events, result, record
    GET  /api/games/<id>/replay          every step of the game, snapshot-shaped
    GET  /api/leaderboard[?game=…]       players by wins, then points

Writes (``Content-Type: application/json``, header ``X-CSRFToken``; the token is in the
page's ``<meta name="csrf-token">``)::

    POST /api/unlock     {"pin": "123456"}             -> {"ok": true, "csrf_token": …}
    POST /api/lock       {}
    POST /api/game       {"game": "perlen-pyramide", "players": [{"name", "colour",
                          "computer"}…], "first_seat": 0, "options": {…}, "children_help": false}
    POST /api/command/<confirm|end_turn|undo|abort|hint|play_again>   {}
    POST /api/led-test   {"led": "c3"|"all", "colour": "#ff0000"} or {"stop": true}
    POST /api/virtual    {"name": "c3"|"t2"|"button:confirm", "action": "toggle"|"on"|"off"|"press"}
    POST /api/settings   {"language": "da"}
    POST /api/pin        {"current": "123456", "new": "2468"}

Answers are ``{"ok": true, …}`` or ``{"ok": false, "error": "sentence"}`` with a 4xx status.
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

from flask import Blueprint, Response, abort, jsonify, request
from flask_babel import gettext
from flask_wtf.csrf import generate_csrf

from controller.referee.state import Reply
from web_ui import auth, control, forms, i18n, security
from web_ui.auth import admin_required, require_json_object
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


def _checked(exc: forms.InputError) -> NoReturn:
    abort(400, str(exc))


def replied(reply: Reply, **extra: Any) -> Response:
    """A command's answer: what the referee said, in the reader's language."""
    return ok(message=say(reply.message), **extra)


# -- reading ---------------------------------------------------------------------------------


@bp.get("/state")
def state() -> Response:
    """The snapshot (its JSON made once by the Table and shared) with the note and the
    prompt in the reader's language."""
    snapshot = web_state().table.snapshot
    text = {"note": say(snapshot.note), "prompt": say(snapshot.prompt)}
    body = snapshot.json[:-1] + ',"text":' + json.dumps(text, ensure_ascii=False) + "}"
    return Response(body, mimetype="application/json")


@bp.get("/games")
def games() -> Response:
    store = web_state().store
    limit = _query_int("limit", 20, 1, 200)
    offset = _query_int("offset", 0, 0, 10**9)
    return jsonify(
        {
            "total": store.count_games(),
            "games": [g.to_dict() for g in store.games(limit=limit, offset=offset)],
        }
    )


def _game(game_id: int) -> Any:
    found = web_state().store.game(game_id) if game_id <= 2**62 else None
    if found is None:
        abort(404, gettext("There is no game %(id)d.", id=game_id))
    return found


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> Response:
    return jsonify(_game(game_id).to_dict())


@bp.get("/games/<int:game_id>/replay")
def game_replay(game_id: int) -> Response:
    try:
        steps = replay_steps(_game(game_id))
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
    if game is not None and game not in forms.GAMES:
        abort(400, gettext("game must be perlen-pyramide or pyramidos."))
    return jsonify({"rows": [r.to_dict() for r in web_state().store.leaderboard(game)]})


# -- the PIN ---------------------------------------------------------------------------------


@bp.post("/unlock")
def unlock() -> Response:
    body = require_json_object()
    try:
        auth.unlock(body.get("pin"))
    except PermissionError as exc:
        abort(403, str(exc))
    return ok(csrf_token=generate_csrf())


@bp.post("/lock")
def lock() -> Response:
    auth.lock()
    return ok()


@bp.post("/pin")
def change_pin() -> Response:
    body = require_json_object()
    try:
        new = security.validate_pin(body.get("new"))
    except security.PinError as exc:
        abort(400, str(exc))
    try:
        auth.unlock(body.get("current"))
    except PermissionError as exc:
        abort(403, str(exc))
    security.set_pin(web_state().store, new)
    auth.unlock(new)
    return ok(csrf_token=generate_csrf(), message=gettext("The PIN was changed."))


# -- actions ---------------------------------------------------------------------------------


@bp.post("/game")
@admin_required
def new_game() -> Response:
    body = require_json_object()
    try:
        chosen = forms.parse_setup(body, levels=web_state().levels)
    except forms.InputError as exc:
        _checked(exc)
    return replied(control.new_game(chosen))


@bp.post("/command/<name>")
@admin_required
def command(name: str) -> Response:
    if name not in control.ACTIONS:
        abort(404, gettext("There is no such command."))
    return replied(control.action(name))


@bp.post("/led-test")
@admin_required
def led_test() -> Response:
    body = require_json_object()
    try:
        wanted = forms.parse_led_test(body, web_state().led_names)
    except forms.InputError as exc:
        _checked(exc)
    return replied(control.led_test(wanted))


@bp.post("/virtual")
@admin_required
def virtual() -> Response:
    web = web_state()
    body = require_json_object()
    try:
        press = forms.parse_virtual(body, list(web.channel_map.channel_by_name))
    except forms.InputError as exc:
        _checked(exc)
    touched = control.virtual(press)
    snap = touched.snapshot
    return ok(
        name=press.name,
        active=touched.active,
        version=snap.version,
        sensor_seq=snap.sensor_seq,
        moves=snap.moves,
        status=snap.status,
        note=say(snap.note),
        prompt=say(snap.prompt),
    )


@bp.post("/settings")
@admin_required
def settings() -> Response:
    web = web_state()
    body = require_json_object()
    unknown = sorted(k for k in body if k != "language")
    if unknown or "language" not in body:
        abort(400, gettext('Send the default language: {"language": "en"|"de"|"da"}.'))
    language = body["language"]
    if not i18n.is_language(language):
        abort(400, gettext("Choose English, Deutsch or Dansk."))
    web.store.set_setting(i18n.LANGUAGE_KEY, language)
    web.default_language = language
    return ok()

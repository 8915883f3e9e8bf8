"""The admin PIN, sessions, CSRF, the slow-down of wrong PINs, escaping and headers."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from controller.referee.commands import NewGame
from controller.settings import PIN_HASH_KEY, SECRET_KEY, Settings
from controller.store import Store
from rigs.web import PIN, Rig, build_rig, close_rig, csrf, unlocked
from web_ui import security
from web_ui.app import WebSettings
from web_ui.state import state_of


def test_first_start_makes_a_pin_logs_it_once_and_stores_only_a_hash(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from controller.games.registry import GAMES
    from controller.hardware.channels import ChannelMap
    from controller.hardware.sim import SimBoard
    from controller.table import Table, TableSettings
    from web_ui.app import close_app, create_app
    from web_ui.games.registry import VIEWS

    cmap = ChannelMap.default()
    board = SimBoard(cmap.channel_count, cmap.led_count)
    store = Store(tmp_path / "fresh.sqlite3")
    table = Table(board, cmap, store, TableSettings(games=GAMES))
    table.start()
    try:
        with caplog.at_level(logging.WARNING, logger="web_ui"):
            app = create_app(table=table, views=VIEWS)
        lines = [r.getMessage() for r in caplog.records if "Admin PIN" in r.getMessage()]
        assert len(lines) == 1
        pin = lines[0].split(": ")[1].split(" ")[0]
        assert len(pin) == 6 and pin.isdigit()
        stored = store.get_setting(PIN_HASH_KEY)
        assert stored is not None and pin not in stored and stored.startswith("scrypt:")
        assert Settings(store).check_pin(pin)
        secret = store.get_setting(SECRET_KEY)
        assert secret and app.config["SECRET_KEY"] == secret and not app.debug
        close_app(app)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="web_ui"):
            again = create_app(table=table, views=VIEWS)
        assert not [r for r in caplog.records if "Admin PIN" in r.getMessage()]
        assert again.config["SECRET_KEY"] == secret  # sessions survive a restart
        close_app(again)
    finally:
        table.stop()
        store.close()


def test_every_write_needs_the_pin(rig: Rig, client: FlaskClient) -> None:
    token = csrf(client)
    headers = {"X-CSRFToken": token}
    writes = [
        (
            "/api/game",
            {
                "game": "pyramidos",
                "players": [{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}],
            },
        ),
        ("/api/command/undo", {}),
        ("/api/command/abort", {}),
        ("/api/command/confirm", {}),
        ("/api/led-test", {"led": "all", "colour": "white"}),
        ("/api/virtual", {"name": "c3"}),
        ("/api/settings", {"language": "de"}),
    ]
    before = rig.snapshot()["version"]
    for path, body in writes:
        response = client.post(path, json=body, headers=headers)
        assert response.status_code == 403, path
        assert response.get_json()["need_pin"] is True
    assert rig.snapshot()["version"] == before
    assert rig.board.read().active == frozenset()
    assert rig.store.get_setting("web.language") is None
    # Forms without the PIN are sent to the PIN page, and nothing happens.
    form = client.post("/control/abort", data={"csrf_token": token})
    assert form.status_code == 302 and "/unlock" in form.headers["Location"]
    setup = client.post(
        "/setup",
        data={
            "csrf_token": token,
            "game": "perlen-pyramide",
            "name_0": "A",
            "name_1": "B",
            "name_2": "C",
            "colour_0": "red",
            "colour_1": "blue",
            "colour_2": "yellow",
        },
    )
    assert setup.status_code == 302 and "/unlock" in setup.headers["Location"]
    assert rig.snapshot()["game"] is None


def test_a_form_may_carry_the_pin_itself(rig: Rig, client: FlaskClient) -> None:
    token = csrf(client, "/setup")
    data = {
        "csrf_token": token,
        "game": "perlen-pyramide",
        "name_0": "Anna",
        "name_1": "Ben",
        "name_2": "Cleo",
        "colour_0": "red",
        "colour_1": "blue",
        "colour_2": "yellow",
        "first_seat": "2",
        "ties": "total",
        "children_help": "on",
    }
    wrong = client.post("/setup", data={**data, "pin": "0000"})
    assert wrong.status_code == 403
    assert rig.snapshot()["game"] is None
    right = client.post("/setup", data={**data, "pin": PIN})
    assert right.status_code == 302 and right.headers["Location"] == "/"
    snap = rig.wait(lambda s: s["game"] == "perlen-pyramide")
    assert snap["players"][0]["name"] == "Cleo" and snap["options"]["ties"] == "total"
    # The session is unlocked now: the next form needs no PIN.
    token = csrf(client)
    assert client.post("/control/abort", data={"csrf_token": token}).status_code == 302
    assert rig.wait(lambda s: s["game"] is None)


def test_csrf_is_required_on_forms_and_api_writes(rig: Rig, client: FlaskClient) -> None:
    token = unlocked(client)
    no_token = client.post("/api/command/abort", json={})
    assert no_token.status_code == 400 and no_token.get_json()["csrf"] is True
    wrong = client.post("/api/command/abort", json={}, headers={"X-CSRFToken": "x" + token})
    assert wrong.status_code == 400
    form = client.post("/lock")
    assert form.status_code == 400
    other = rig.app.test_client()
    stolen = other.post("/api/virtual", json={"name": "c3"}, headers={"X-CSRFToken": token})
    assert stolen.status_code == 400  # a token is bound to its own session
    assert rig.board.read().active == frozenset()


def test_wrong_pins_are_slowed_down_per_client_without_blocking(tmp_path: Path) -> None:
    rig = build_rig(tmp_path, web=WebSettings(heartbeat=0.3, throttle_free=2, throttle_base=30.0))
    # The limits on a clock that stands still: a wait is counted from the try, before the
    # slow hash, so on a loaded machine a second could pass between the two.
    web = state_of(rig.app)
    web.pins = security.PinGuard(web.settings.pin_limits, clock=lambda: 1000.0)
    try:
        client = rig.app.test_client()
        headers = {"X-CSRFToken": csrf(client)}
        codes = [
            client.post("/api/unlock", json={"pin": "1111"}, headers=headers).status_code
            for _ in range(2)
        ]
        assert codes == [403, 403]
        third = client.post("/api/unlock", json={"pin": "1112"}, headers=headers)
        assert third.status_code == 429 and third.headers["Retry-After"] == "30"
        # Even the right PIN is not looked at while the client must wait.
        blocked = client.post("/api/unlock", json={"pin": PIN}, headers=headers)
        assert blocked.status_code == 429 and blocked.headers["Retry-After"] == "30"
        page = client.post("/unlock", data={"pin": PIN, "csrf_token": headers["X-CSRFToken"]})
        assert page.status_code == 429 and "Too many wrong PINs" in page.get_data(as_text=True)
        # Another address is not affected.
        elsewhere = rig.app.test_client()
        token = csrf(elsewhere)
        ok = elsewhere.post(
            "/api/unlock",
            json={"pin": PIN},
            headers={"X-CSRFToken": token},
            environ_base={"REMOTE_ADDR": "10.1.2.3"},
        )
        assert ok.status_code == 200
    finally:
        close_rig(rig)


def test_changing_the_pin_locks_every_other_session(rig: Rig) -> None:
    first = rig.app.test_client()
    second = rig.app.test_client()
    token_first = unlocked(first)
    token_second = unlocked(second)
    bad = first.post(
        "/api/pin", json={"current": PIN, "new": "12"}, headers={"X-CSRFToken": token_first}
    )
    assert bad.status_code == 400 and "4 to 12 digits" in bad.get_json()["error"]
    change = first.post(
        "/api/pin", json={"current": PIN, "new": "97531"}, headers={"X-CSRFToken": token_first}
    )
    assert change.status_code == 200
    token_first = change.get_json()["csrf_token"]
    assert Settings(rig.store).check_pin("97531") and not Settings(rig.store).check_pin(PIN)
    locked = second.post("/api/command/abort", json={}, headers={"X-CSRFToken": token_second})
    assert locked.status_code == 403
    rig.new_perlen()
    still = first.post("/api/command/abort", json={}, headers={"X-CSRFToken": token_first})
    assert still.status_code == 200
    # The settings form asks for the current PIN even in an unlocked browser.
    token = csrf(first, "/settings")
    form = first.post(
        "/settings/pin", data={"csrf_token": token, "current": "", "new": "1357", "again": "1357"}
    )
    assert form.status_code == 403 and Settings(rig.store).check_pin("97531")
    form = first.post(
        "/settings/pin",
        data={"csrf_token": token, "current": "97531", "new": "1357", "again": "1357"},
    )
    assert form.status_code == 302 and Settings(rig.store).check_pin("1357")


def test_names_and_all_text_are_escaped(rig: Rig, client: FlaskClient) -> None:
    evil = "<script>alert()</script>"  # as long as a name may be
    reply = rig.table.submit(NewGame("perlen-pyramide", (evil, "B&b", '"Q"')))
    assert reply.ok, reply.message
    rig.place("c3")
    rig.wait(lambda s: s["moves"] == 1)
    for path in ("/", "/history", "/history/1"):
        body = client.get(path).get_data(as_text=True)
        assert evil not in body, path
        assert "&lt;script&gt;alert(" in body, path


def test_headers_cookies_and_no_debug(rig: Rig, client: FlaskClient) -> None:
    response = client.get("/")
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"
    cookie = response.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert rig.app.debug is False
    assert "<script>" not in response.get_data(as_text=True).replace(
        '<script src="/static/app.js', ""
    )


def test_unlock_only_returns_to_local_pages(rig: Rig, client: FlaskClient) -> None:
    token = csrf(client)
    for target, expected in [
        ("/history", "/history"),
        ("https://evil.example/", "/"),
        ("//evil.example/x", "/"),
        ("/\\evil.example", "/"),
        ("javascript:alert(1)", "/"),
    ]:
        client.post("/lock", data={"csrf_token": token})
        token = csrf(client)
        response = client.post("/unlock", data={"csrf_token": token, "pin": PIN, "next": target})
        assert response.status_code == 302
        assert response.headers["Location"] == expected, target
        token = csrf(client)


def test_a_wall_clock_jump_never_lengthens_an_unlocked_session(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Pi without a clock battery: a browser unlocked while the clock was wrong. Forward,
    the session simply ends; backward, its expiry would lie decades ahead and is not
    trusted either (Flask's signed cookie refuses a timestamp from the future too, and
    the PIN check refuses an expiry further ahead than a session). Either way the
    browser unlocks again, and nothing else breaks."""
    import time

    real = time.time
    client = rig.app.test_client()
    token = unlocked(client)
    headers = {"X-CSRFToken": token}
    assert client.get("/api/session").get_json()["unlocked"] is True
    year = 365.25 * 24 * 3600
    for jump in (+10 * year, -10 * year):
        monkeypatch.setattr(time, "time", lambda jump=jump: real() + jump)
        assert client.get("/api/session").get_json()["unlocked"] is False, jump
        refused = client.post("/api/command/abort", json={}, headers=headers)
        assert refused.status_code in (400, 403), refused.get_json()  # no session: no token
    again = unlocked(client)  # unlocked on the jumped clock: fine from then on
    assert client.get("/api/session").get_json()["unlocked"] is True
    assert again


def test_an_expiry_further_ahead_than_a_session_is_not_trusted(rig: Rig) -> None:
    """The check itself, whatever the cookie layer does: unlocked while the clock was
    decades behind, a session would otherwise stay unlocked for decades."""
    import time

    from flask import session

    from web_ui import auth

    fingerprint = Settings(rig.store).pin_fingerprint(rig.app.config["SECRET_KEY"])
    with rig.app.test_request_context():
        session["admin"] = fingerprint
        for ahead, unlocked_now in ((3600.0, True), (13 * 3600.0, False), (-1.0, False)):
            session["admin_until"] = time.time() + ahead
            assert auth.is_admin() is unlocked_now, ahead

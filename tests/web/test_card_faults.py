"""A full or read-only SD card as the web page meets it: the live page, the virtual
board's answer and the LEDs say that nothing more is played; the page's own writes
(settings, the PIN) answer 503 and change nothing; all goes on once the card writes again.

The faults are SQLite's own on the store's writer connection, as in
tests/store/test_store_faults.py: ``PRAGMA query_only`` (SQLITE_READONLY, a card remounted
read-only) and ``PRAGMA max_page_count`` (SQLITE_FULL, a full card).
"""

from __future__ import annotations

import html

from flask.testing import FlaskClient

from controller.hardware.port import LedMode
from controller.palette import WHITE
from controller.settings import Settings
from controller.store import StoreWriteError
from rigs.web import PIN, Rig

READ_ONLY = (
    "The game cannot be saved (the memory card is read-only): nothing more is played until it "
    "can. Every move so far is kept."
)


def test_a_read_only_card_is_shown_on_the_page_and_the_leds(
    rig: Rig, admin: tuple[FlaskClient, dict[str, str]]
) -> None:
    client, headers = admin
    rig.new_perlen()
    first = client.post("/api/virtual", json={"name": "c3", "action": "on"}, headers=headers)
    assert first.get_json()["moves"] == 1
    rig.store._conn.execute("PRAGMA query_only = ON")  # the card turned read-only

    tap = client.post("/api/virtual", json={"name": "d4", "action": "on"}, headers=headers)
    answer = tap.get_json()
    assert tap.status_code == 200 and answer["active"] is True
    assert answer["moves"] == 1 and answer["fault"] is True and answer["status"] == "mismatch"
    assert READ_ONLY in (answer["note"], answer["prompt"])  # what to do now: wait
    page = client.get("/").get_data(as_text=True)
    assert '<p class="message warn">' in page and html.escape(READ_ONLY) in page
    state = client.get("/api/state").get_json()
    assert state["fault"] is True and READ_ONLY in state["text"].values()
    frame = rig.board.led_frame
    led = rig.cmap.led("d4")
    assert led is not None
    d4 = frame.leds[led]
    assert d4.colour == WHITE and d4.mode is LedMode.BLINK  # the pearl that cannot count

    # The page's own writes are refused with a sentence, and nothing is changed.
    settings = client.post("/api/settings", json={"language": "de"}, headers=headers)
    assert settings.status_code == 503 and settings.headers["Retry-After"] == "10"
    assert settings.get_json() == {
        "ok": False,
        "error": "The board's memory card is read-only: nothing was changed.",
        "fault": "read-only",
    }
    pin = client.post("/api/pin", json={"current": PIN, "new": "97531"}, headers=headers)
    assert pin.status_code == 503 and Settings(rig.store).check_pin(PIN)
    german = client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "schreibgeschützt" in german

    rig.store._conn.execute("PRAGMA query_only = OFF")  # the card works again
    snap = rig.wait(lambda s: s["moves"] == 2)  # the referee retries every 2 s
    assert snap["fault"] is False and snap["status"] == "playing"
    assert "warn" not in client.get("/").get_data(as_text=True).split('id="live-status"')[1][:200]
    assert client.post("/api/settings", json={"language": "de"}, headers=headers).status_code == 200
    game = rig.store.game(snap["game_id"])
    assert game is not None and [e.data["cell"] for e in game.events] == ["c3", "d4"]


def test_a_full_card_refuses_a_new_game_until_it_has_room(
    rig: Rig, admin: tuple[FlaskClient, dict[str, str]]
) -> None:
    client, headers = admin
    conn = rig.store._conn
    conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0]}")
    try:
        for n in range(1000):  # fill what room the last pages have: the card is full
            rig.store.set_setting(f"test.filler{n}", "x" * 3000)
    except StoreWriteError as exc:
        assert exc.fault == "full"
    players = [{"name": n, "colour": c} for n, c in (("A", "red"), ("B", "blue"), ("C", "yellow"))]
    setup = {"game": "perlen-pyramide", "players": players}
    try:
        for _ in range(300):  # each game takes rows in three tables: one of them fills up
            before = rig.store.count_games()
            game = client.post("/api/game", json=setup, headers=headers)
            if game.status_code != 200:
                break
        assert game.status_code == 409, game.get_json()
        assert "the memory card is full" in game.get_json()["error"]
        assert rig.store.count_games() == before
    finally:
        conn.execute("PRAGMA max_page_count = 1073741823")
    assert client.post("/api/game", json=setup, headers=headers).status_code == 200
    assert rig.store.count_games() == before + 1

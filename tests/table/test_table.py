"""The Table: the thread that carries the referee, with a real SimBoard and SQLite store.

What the referee decides is tested in tests/referee (pure); here what only the shell does:
its owner thread and queue, the order commit → show → publish → reply, subscriptions,
the computer on a worker thread, sounds to the board, stopping, and time from its clock
(a :class:`~rigs.table.VirtualClock`, so holds and animations run without a
single sleep).
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.games.perlen import rules as perlen
from controller.games.perlen.commands import ConfirmBonus, Hint
from controller.games.perlen.kind import PERLEN_PYRAMIDE
from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.games.registry import GAMES
from controller.hardware.port import Led, LedFrame, LedMode, Sound
from controller.hardware.sim import SimBoard
from controller.referee.commands import NewGame, Undo
from controller.referee.fold import fold, from_stored
from controller.referee.messages import english
from controller.table import TableBusy, TableSettings
from rigs.scripts import perlen_script, play, pyramidos_script
from rigs.table import Harness

RED, BLUE = (0xD6, 0x27, 0x28), (0x1F, 0x77, 0xB4)


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    with Harness(tmp_path / "games.sqlite3") as harness:
        assert harness.do(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"))).ok
        yield harness


def test_a_move_is_stored_shown_and_published(h: Harness) -> None:
    snap = h.put("c3")
    assert snap.moves == 1 and snap.to_move == 1
    assert h.lit == {"seat:1": Led(BLUE)}
    assert snap.game_id is not None
    stored = h.table.history.game(snap.game_id)
    assert stored is not None and [(e.kind, dict(e.data)) for e in stored.events] == [
        ("move", {"cell": "c3", "colour": 0})
    ]


def test_the_virtual_clock_drives_the_holds(h: Harness) -> None:
    h.put("c3")
    assert h.settle(0.1).moves == 1
    assert h.put("d4").status == "mismatch"  # placed together with c3: no time has passed
    h.lift("d4")
    h.settle(1)
    h.put("d4")
    snap = h.lift("d4")
    assert snap.moves == 2 and snap.status == "mismatch"
    assert h.settle(0.4).moves == 2  # not yet: settle_s is 0.5
    snap = h.settle(0.2)
    assert snap.moves == 1 and h.said() == "Took back Ben's pearl on d4. Ben to move."


def test_whole_games_through_the_table(tmp_path: Path) -> None:
    for game, script in (
        ("perlen-pyramide", perlen_script(7)),
        ("pyramidos", pyramidos_script(5, 3)),
    ):
        with Harness(tmp_path / f"{game}.sqlite3") as h:
            assert h.do(NewGame(game, ("Anna", "Ben", "Cleo"))).ok
            for step in script:
                play(h, step)
            snap = h.snap
            assert snap.status == "over" and snap.game_id is not None
            stored = h.table.history.game(snap.game_id)
            assert stored is not None and stored.summary.status == "over"
            assert stored.result is not None
            assert list(stored.result["winners"]) == list(snap.winners)


def test_every_event_is_in_the_store_before_the_leds_or_the_page_show_it(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    with Harness(path) as h:
        # Other readers, like pages: one connection per reading thread (two threads on one
        # connection would share one read transaction, and the later look would see the
        # earlier look's older snapshot of the file).
        readers = threading.local()
        opened: list[sqlite3.Connection] = []

        def stored_moves() -> int:
            if not hasattr(readers, "db"):
                readers.db = sqlite3.connect(path, check_same_thread=False)
                opened.append(readers.db)
            rows = readers.db.execute(
                "SELECT kind, data FROM events WHERE game_id = (SELECT max(id) FROM games) "
                "ORDER BY seq"
            ).fetchall()
            events = [from_stored(PERLEN_PYRAMIDE, k, json.loads(d)) for k, d in rows]
            game = fold(PERLEN_PYRAMIDE, PERLEN_PYRAMIDE.new_game(perlen.PerlenOptions()), events)
            return len(game.standing)

        checked: list[tuple[int, int]] = []
        show = h.board.show

        def checking_show(frame: LedFrame) -> None:
            session = h.table._state.session  # the owner thread is the caller: safe to look
            if session is not None:
                checked.append((session.game.moves, stored_moves()))
            show(frame)

        h.board.show = checking_show  # type: ignore[method-assign]
        assert h.do(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"))).ok
        sub = h.table.subscribe()
        pages: list[tuple[int, int]] = []
        done = threading.Event()

        def page() -> None:
            while not done.is_set():
                snap = sub.get(timeout=0.05)
                if snap is not None and snap.game_id is not None:
                    pages.append((snap.moves, stored_moves()))

        reader = threading.Thread(target=page)
        reader.start()
        for step in perlen_script(12)[:30]:
            play(h, step)
        done.set()
        reader.join()
        sub.close()
        h.board.show = show  # type: ignore[method-assign]
        h.table.flush()
        for db in opened:
            db.close()
        assert len(checked) > 20 and len(pages) > 5
        assert all(stored >= shown for shown, stored in checked)
        assert all(stored >= shown for shown, stored in pages)


def test_snapshots_are_immutable_json_and_latest_wins(h: Harness) -> None:
    sub = h.table.subscribe()
    idle = h.table.subscribe()  # never read: must not hold anything up
    first = sub.get(timeout=1)
    assert first is h.snap
    for cell in ("c3", "d4", "d3"):
        h.settle(1)
        h.put(cell)
    assert h.table.flush()  # everything the Table will publish for these moves is out
    latest = sub.get(timeout=1)
    assert latest is not None and latest.version == h.snap.version and latest.moves == 3
    assert sub.get(timeout=0) is None  # older ones were skipped, not queued
    with pytest.raises(dataclasses.FrozenInstanceError):
        latest.moves = 4  # type: ignore[misc]
    data = latest.to_json()
    assert json.loads(latest.json) == json.loads(json.dumps(data))
    assert data["link"]["adapter"] == "sim" and data["sensors"] == ["c3", "d3", "d4"]
    assert data["toggles"]["c3"] == 1
    assert data["note"][0] == {"key": "played", "params": {"cell": "d3", "player": "Cleo"}}
    assert data["commands"] == ["undo", "abort"] or "hint" in data["commands"]
    sub.close()
    idle.close()
    assert sub.get(timeout=None) is None  # closed: at once, never a wait


def test_sounds_go_to_the_board(tmp_path: Path) -> None:
    class Buzzing(SimBoard):
        def __init__(self, channels: int, leds: int) -> None:
            super().__init__(channels, leds)
            self.played: list[tuple[Sound, float]] = []

        def sound(self, sound: Sound, volume: float = 1.0) -> None:
            self.played.append((sound, volume))

    class BuzzingHarness(Harness):
        def _make_board(self) -> SimBoard:
            return Buzzing(self.cmap.channel_count, self.cmap.led_count)

    with BuzzingHarness(tmp_path / "g.sqlite3") as h:
        assert isinstance(h.board, Buzzing)
        h.table.household.change(volume=50)  # as the Settings page does
        h.do(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo")))
        for cell in ("c3", "d4", "d3", "c4"):
            h.settle(1)
            h.put(cell)
        h.settle(1)
        h.put("a1")  # not touching: a wrong cell
        assert [s for s, _ in h.board.played] == [Sound.TURN] * 4 + [Sound.BONUS, Sound.WRONG]
        assert {v for _, v in h.board.played} == {0.5}
        h.table.household.change(volume=0)  # muted in Settings: the board is not asked at all
        h.lift("a1")
        h.settle(1)
        h.put("e5")
        assert len(h.board.played) == 6 and h.snap.moves == 5


def test_a_computer_seat_thinks_on_a_worker_thread(tmp_path: Path) -> None:
    seen: list[str] = []

    class First:
        """A computer player that takes the first legal cell (the last for a hint)."""

        levels = ("easy",)

        def legal(self, position: object) -> frozenset[str]:
            assert isinstance(position, perlen.PerlenState)
            return frozenset(p.short for p in perlen.legal_moves(position))

        def choose(self, position: object, level: str, seed: int, cancel: threading.Event) -> str:
            seen.append(threading.current_thread().name)
            assert isinstance(position, perlen.PerlenState)
            return perlen.legal_moves(position)[0].short

        def hint(self, position: object, cancel: threading.Event) -> tuple[str, object]:
            seen.append(threading.current_thread().name)
            assert isinstance(position, perlen.PerlenState)
            return perlen.legal_moves(position)[-1].short, None

    settings = TableSettings(computers={PERLEN_PYRAMIDE.name: First()}, games=GAMES)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        assert h.do(NewGame("perlen-pyramide", ("Anna", "", "Cleo"), computer={1: "easy"})).ok
        h.put("c3")
        snap = h.wait(lambda s: s.computer_move is not None)
        assert snap.computer_move == "b2" and h.lit["b2"] == Led(BLUE, LedMode.BLINK)
        h.settle(1)
        h.put("b2")
        assert h.do(Hint()).ok
        snap = h.wait(lambda s: s.hint is not None)
        assert snap.hint in snap.legal
        assert seen and all(name.startswith("pyramid-bot") for name in seen)


def test_a_command_that_waits_too_long_is_a_timeout(h: Harness) -> None:
    gate = threading.Event()
    show = h.board.show

    def slow(frame: LedFrame) -> None:
        gate.wait(2)
        show(frame)

    h.board.show = slow  # type: ignore[method-assign]
    h.board.set_channel(h.cmap.channel("c3"), True)  # the Table now waits in show()
    with pytest.raises(TableBusy):
        h.table.submit(Undo(), timeout=0.1)
    gate.set()


def test_stop_blanks_the_leds_and_refuses_commands(tmp_path: Path) -> None:
    h = Harness(tmp_path / "g.sqlite3").start()
    h.do(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo")))
    h.put("c3")
    h.table.stop()
    assert not any(led.lit for led in h.board.led_frame.leds)
    reply = h.do(Undo())
    assert not reply.ok and reply.message is not None
    assert english(reply.message) == "The table is not running."
    h.store.close()


def test_the_real_computer_player_and_hints(tmp_path: Path) -> None:
    settings = TableSettings(computer_budget_s=0.05, hint_budget_s=0.05, games=GAMES)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        assert h.do(
            NewGame("perlen-pyramide", ("Anna", "", ""), computer={1: "gentle", 2: "strong"})
        ).ok
        while h.snap.status != "over":
            snap = h.snap
            if perlen_parts(snap).pending:
                assert h.do(ConfirmBonus()).ok
                continue
            h.settle(1)
            if snap.players[snap.to_move or 0].computer:
                snap = h.wait(lambda s: s.computer_move is not None, timeout=10)
                h.put(snap.computer_move or "")
            else:
                assert h.do(Hint()).ok
                snap = h.wait(lambda s: s.hint is not None, timeout=10)
                assert snap.hint in snap.legal
                h.put(snap.hint or "")
        stored = h.table.history.game(h.snap.game_id or 0)
        assert stored is not None and stored.summary.status == "over"
        assert len(stored.record["moves"]) == 25
        assert [p.computer for p in stored.players] == [None, "gentle", "strong"]


def test_an_unreadable_cell_is_said_and_never_a_move_nor_a_take_back(h: Harness) -> None:
    """The sun on c3 with Anna's pearl there, and on d4 empty: both keep their state
    (the board says no change), the snapshot names them; no move, no take-back, however
    long it lasts; once readable again the snapshot says nothing more."""
    assert h.put("c3").moves == 1
    h.settle(1)
    frame = h.board.set_unreadable([h.cmap.channel("c3"), h.cmap.channel("d4")])
    assert frame is not None
    seq = frame.seq
    snap = h.wait(lambda s: s.sensor_seq >= seq)
    assert snap.unreadable == ("c3", "d4")
    assert snap.moves == 1 and snap.status != "mismatch"
    assert json.loads(snap.json)["unreadable"] == ["c3", "d4"]
    snap = h.settle(30)
    assert snap.moves == 1 and snap.to_move == 1 and snap.unreadable == ("c3", "d4")
    frame = h.board.set_unreadable(())
    assert frame is not None
    seq = frame.seq
    snap = h.wait(lambda s: s.sensor_seq >= seq)
    assert snap.unreadable == () and snap.moves == 1

"""The wall clock jumps (a Pi has no clock battery; NTP moves it by years after boot).

The Table times its holds on the monotonic clock and the store orders history by game
ids and event numbers, so a jump moves no timer and reorders nothing; a game started
before a jump resumes after it. Here only the wall clock jumps, as on a Pi: ``time.time``
is patched for the whole process (the Table's snapshot times, the sessions of the page)
and the store is given the same clock (its ``clock=`` parameter; its default is bound
when the module is imported); ``time.monotonic`` runs on untouched. The Table runs on its
real clock (``SystemClock``), so a timer read from the wall clock would fire at once
after a jump forward and years late after one backward.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from controller.clock import SystemClock
from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.games.registry import GAMES
from controller.hardware.channels import ChannelMap
from controller.hardware.sim import SimBoard
from controller.referee.commands import NewGame
from controller.referee.fold import kept_record
from controller.referee.snapshot import Snapshot
from controller.referee.state import RefereeConfig
from controller.store import Store
from controller.table import Table, TableSettings
from rigs.poll import wait_until

YEAR = 365.25 * 24 * 3600
SETTLE_S = 1.0
"""The take-back hold: long enough that a flush right after a jump is well inside it."""
REAL_TIME = time.time


@dataclass
class Wall:
    """The wall clock of this process: real time plus ``offset`` seconds."""

    offset: float = 0.0
    jumps: list[float] = field(default_factory=list)

    def __call__(self) -> float:
        return REAL_TIME() + self.offset

    def jump(self, seconds: float) -> None:
        self.offset += seconds
        self.jumps.append(seconds)


@pytest.fixture
def wall(monkeypatch: pytest.MonkeyPatch) -> Iterator[Wall]:
    clock = Wall()
    monkeypatch.setattr(time, "time", clock)
    yield clock


class Board:
    """A SimBoard, a store on the jumping wall clock, a Table on the monotonic clock."""

    def __init__(self, path: Path, wall: Wall, on: Iterable[str] = frozenset()) -> None:
        self.cmap = ChannelMap.default()
        self.sim = SimBoard(self.cmap.channel_count, self.cmap.led_count)
        self.sim.set_active(self.cmap.channel(n) for n in on)
        self.store = Store(path, clock=wall)
        rules = RefereeConfig(settle_s=SETTLE_S, together_s=0.0)
        settings = TableSettings(rules=rules, clock=SystemClock(), games=GAMES)
        self.table = Table(self.sim, self.cmap, self.store, settings)
        self.table.start()

    def set(self, cell: str, on: bool) -> Snapshot:
        frame = self.sim.set_channel(self.cmap.channel(cell), on)
        seq = self.sim.read().seq if frame is None else frame.seq
        snap = self.table.handled(seq, 5.0)
        assert snap is not None
        return snap

    def wait(self, predicate: Callable[[Snapshot], bool], timeout: float = 5.0) -> Snapshot:
        snap: Callable[[], Snapshot] = lambda: self.table.snapshot  # noqa: E731
        return wait_until(lambda: snap() if predicate(snap()) else None, timeout)

    def close(self) -> None:
        self.table.stop()
        self.store.close()


def test_a_jump_forward_fires_no_hold_early(tmp_path: Path, wall: Wall) -> None:
    board = Board(tmp_path / "g.sqlite3", wall)
    try:
        assert board.table.submit(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"))).ok
        board.set("c3", True)
        assert board.set("d4", True).moves == 2
        lifted = time.monotonic()
        board.set("d4", False)  # Ben lifts his pearl: a take-back once it stays off 1 s
        wall.jump(+12 * YEAR)  # NTP: from the fake-hwclock's date to today
        assert board.table.flush()
        if time.monotonic() - lifted < SETTLE_S:  # (a very slow machine: nothing to see)
            assert board.table.snapshot.moves == 2, "the hold fired at once after the jump"
        taken = board.wait(lambda s: s.moves == 1)
        held = time.monotonic() - lifted
        assert SETTLE_S <= held < SETTLE_S + 4.0, held
        assert taken.at > REAL_TIME() + 11 * YEAR  # what the page shows as the time: the new one
    finally:
        board.close()


def test_a_jump_backward_fires_no_hold_late(tmp_path: Path, wall: Wall) -> None:
    board = Board(tmp_path / "g.sqlite3", wall)
    try:
        assert board.table.submit(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"))).ok
        board.set("c3", True)
        board.set("d4", True)
        lifted = time.monotonic()
        board.set("d4", False)
        wall.jump(-30 * YEAR)  # a wrong NTP answer, or a clock set by hand
        board.wait(lambda s: s.moves == 1)  # 30 years late would time out here
        assert SETTLE_S <= time.monotonic() - lifted < SETTLE_S + 4.0
    finally:
        board.close()


def test_history_stays_in_play_order_and_the_game_resumes_after_jumps(
    tmp_path: Path, wall: Wall
) -> None:
    path = tmp_path / "g.sqlite3"
    wall.jump(-50 * YEAR)  # a Pi booted without network, its clock decades behind
    board = Board(path, wall)
    try:
        assert board.table.submit(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"))).ok
        board.set("c3", True)
        board.set("d4", True)
        wall.jump(+50 * YEAR)  # NTP at last
        board.set("d3", True)
        wall.jump(-3 * YEAR)  # and once more, backwards
        assert board.set("c4", True).moves == 4
        first = board.table.snapshot.game_id
    finally:
        board.close()

    with Store(path, clock=wall) as store:
        game = store.history.with_records(lambda kept: kept_record(GAMES, kept)).game(first or 0)
        assert game is not None
        cells = [e.data.get("cell") for e in game.events if e.kind == "move"]
        assert cells == ["c3", "d4", "d3", "c4"]  # by seq, not by `at`
        times = [e.at for e in game.events]
        assert times != sorted(times)  # the wall clock did jump between them
        assert game.record["moves"] == ["c3", "d4", "d3", "c4"]

    wall.jump(+40 * YEAR)  # restarted in another decade
    board = Board(path, wall, on={"c3", "d4", "d3", "c4"})
    try:
        snap = board.wait(lambda s: s.game_id == first and s.status != "idle")
        assert snap.moves == 4 and snap.players[snap.to_move or 0].name == "Ben"
        assert [p.pos for p in perlen_parts(snap).pending] == [
            "2:c3"
        ]  # the bonus pearl still waits
        wall.jump(-92 * YEAR)  # a second game "before" the first one
        assert board.table.submit(NewGame("pyramidos", ("Anna", "Ben"))).ok
        second = board.table.snapshot.game_id
    finally:
        board.close()

    with Store(path, clock=wall) as store:
        listed = store.games()
        assert [g.id for g in listed] == [second, first]  # newest first: by id
        assert listed[0].started < listed[1].started  # though its wall time is older
        unfinished = store.unfinished()
        assert unfinished is not None and unfinished.summary.id == second
        old = store.game(first or 0)
        assert old is not None and old.summary.status == "aborted"
        assert [e.kind for e in old.events] == ["move", "move", "move", "move", "abort"]

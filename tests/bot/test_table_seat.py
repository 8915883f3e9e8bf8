"""End to end: computer seats play a whole game through the real Table on a SimBoard.

A person at the table puts each computer pearl where the LEDs say (here: sets that
cell's sensor), a pearl elsewhere is a mismatch, and the finished game in the store can
be reviewed. The computer seats think on the Table's worker thread with real budgets
(only the moves' legality is asserted of them); the hint, whose words are asserted, is
planned at a fixed speed and kept on a virtual clock, so that it says the same under any
load; the Table's own timers run on the harness's virtual clock.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.games.perlen import bot
from controller.games.perlen.bot import Advice, Speed, machine_speed, review
from controller.games.perlen.commands import ConfirmBonus, Hint
from controller.games.perlen.record import PerlenRecord
from controller.games.perlen.rules import PerlenState, legal_moves, new_game, play
from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.games.registry import GAMES, parse_record
from controller.hardware.port import Led, LedMode
from controller.referee.commands import NewGame
from controller.referee.snapshot import Snapshot
from controller.table import TableSettings
from rigs.scripts import HINTED_ENDGAME
from rigs.table import Harness
from tests.bot.clocks import StepClock

PLANNED = Speed(playouts_per_second=20_000, nodes_per_second=100_000)
"""About this machine's speed: the hint's plan."""


def moves_reach(count: int) -> Callable[[Snapshot], bool]:
    """Whether a snapshot's game has ``count`` base placements."""
    return lambda s: s.moves == count


def test_computer_seats_play_a_whole_game_through_the_table(tmp_path: Path) -> None:
    machine_speed()  # as `pyramid run` would at start
    settings = TableSettings(computer_budget_s=0.25, hint_budget_s=0.1, games=GAMES)
    with Harness(tmp_path / "games.sqlite3", settings) as h:
        computer = {1: "easy", 2: "strongest"}
        assert h.do(NewGame("perlen-pyramide", ("Anna", "", ""), computer=computer)).ok
        state = new_game()
        mismatch_tried = False
        while True:
            snap = h.snap
            if perlen_parts(snap).pending:  # bonus pearls: placed by hand, acknowledged on the page
                assert h.do(ConfirmBonus()).ok
                snap = h.snap
            if snap.status == "over":
                break
            player = snap.players[snap.to_move or 0]
            if player.computer is None:
                assert h.do(Hint()).ok
                cell = h.wait(lambda s: s.hint is not None, timeout=10).hint
            else:
                cell = h.wait(lambda s: s.computer_move is not None, timeout=10).computer_move
                assert cell is not None
                # The LEDs show the computer's cell blinking in its colour.
                red, green, blue = (int(player.colour[i : i + 2], 16) for i in (1, 3, 5))
                assert h.lit[cell] == Led((red, green, blue), LedMode.BLINK)
                if not mismatch_tried:
                    mismatch_tried = True
                    elsewhere = next(p.short for p in legal_moves(state) if p.short != cell)
                    h.settle(1)
                    wrong = h.put(elsewhere)
                    assert wrong.status == "mismatch" and f"chose {cell}, not" in h.said()
                    h.lift(elsewhere)
            assert cell in {p.short for p in legal_moves(state)}
            before = snap.moves
            h.settle(1)
            h.put(cell)
            h.wait(moves_reach(before + 1))
            state, _ = play(state, cell)
        assert state.over and len(h.active()) == 25
        stored = h.table.history.game(h.snap.game_id or 0)
        assert stored is not None
        record = parse_record(dict(stored.record))
        assert isinstance(record, PerlenRecord) and len(record.moves) == 25
        assert [p.computer for p in stored.players] == [None, "easy", "strongest"]
    # The history page's review of the stored game.
    reviews = review(record, budget_per_move=0.02)
    assert [r.played.short for r in reviews] == list(record.moves)
    assert all(r.loss >= 0 for r in reviews)


def test_a_hint_through_the_table_says_why_the_cell_is_good(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    advise = bot.advise

    def on_a_known_machine(state: PerlenState, **given: Any) -> Advice:
        """The Table's hint, planned at a fixed speed on a virtual machine fast enough for
        the plan (256 positions in a tenth of a millisecond), whatever the load."""
        return advise(state, speed=PLANNED, clock=StepClock(1e-4), **given)

    monkeypatch.setattr(bot, "advise", on_a_known_machine)
    settings = TableSettings(hint_budget_s=1.0, games=GAMES)
    with Harness(tmp_path / "games.sqlite3", settings) as h:
        assert h.do(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"))).ok
        for number, cell in enumerate(HINTED_ENDGAME, start=1):
            h.settle(1)
            h.put(cell)
            h.wait(moves_reach(number))
            if perlen_parts(h.snap).pending:
                assert h.do(ConfirmBonus()).ok
        assert h.snap.to_move == 2
        assert h.do(Hint()).ok
        snap = h.wait(lambda s: s.hint is not None, timeout=10)
        assert snap.hint == "a4"
        assert (
            "Hint: the cell with the dotted ring (a4). It wins the bonus pearl 2:a4. It is worth "
            "about 1.0 visible pearls more than the next best cell."
        ) in h.said()

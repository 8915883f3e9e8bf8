"""End to end: computer seats play a whole game through the real Table on a SimBoard.

A person at the table puts each computer pearl where the LEDs say (here: sets that
cell's sensor), a pearl elsewhere is a mismatch, and the finished game in the store can
be reviewed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from controller.bot import machine_speed, review
from controller.hardware.channels import ChannelMap
from controller.hardware.port import Led, LedMode
from controller.hardware.sim import SimBoard
from controller.rules.perlen import legal_moves, new_game, play
from controller.rules.records import PerlenRecord, parse_record
from controller.store import Store
from controller.table import ConfirmBonus, Hint, NewGame, Snapshot, Table, TableSettings

SETTINGS = TableSettings(
    settle_s=0.05,
    together_s=0.0,
    sweep_s=0.3,
    sweep_step_s=0.05,
    computer_budget_s=0.25,
    hint_budget_s=0.1,
)


class Sitting:
    """A Table over a SimBoard and a store, and the hands of the people at it."""

    def __init__(self, path: Path) -> None:
        self.cmap = ChannelMap.default()
        self.board = SimBoard(self.cmap.channel_count, self.cmap.led_count)
        self.store = Store(path)
        self.table = Table(self.board, self.cmap, self.store, SETTINGS)

    def wait(self, ok: Callable[[Snapshot], bool], timeout: float = 10.0) -> Snapshot:
        end = time.monotonic() + timeout
        while not ok(self.table.snapshot):
            assert time.monotonic() < end, self.table.snapshot.to_dict()
            time.sleep(0.005)
        return self.table.snapshot

    def sensors(self, cells: set[str]) -> Snapshot:
        frame = self.board.set_active(self.cmap.channel(c) for c in cells)
        seq = self.board.read().seq if frame is None else frame.seq
        return self.wait(lambda s: s.sensor_seq >= seq)

    def led(self, name: str) -> Led:
        index = self.cmap.led(name)
        assert index is not None
        return self.board.led_frame.leds[index]


def test_computer_seats_play_a_whole_game_through_the_table(tmp_path: Path):
    machine_speed()  # as `pyramid run` would at start
    sitting = Sitting(tmp_path / "games.sqlite3")
    sitting.table.start()
    try:
        reply = sitting.table.submit(
            NewGame("perlen-pyramide", ("Anna", "", ""), computer={1: "easy", 2: "strongest"})
        )
        assert reply.ok, reply.message
        on_board: set[str] = set()
        state = new_game()
        mismatch_tried = False
        while True:
            snap = sitting.table.snapshot
            while snap.pending:  # bonus pearls: placed by hand, acknowledged on the page
                assert sitting.table.submit(ConfirmBonus()).ok
                snap = sitting.table.snapshot
            if snap.status == "over":
                break
            player = snap.players[snap.to_move]
            if player.computer is None:
                assert sitting.table.submit(Hint()).ok
                snap = sitting.wait(lambda s: s.hint is not None)
                cell = snap.hint
            else:
                snap = sitting.wait(lambda s: s.computer_move is not None)
                cell = snap.computer_move
                # The LEDs show the computer's cell blinking in its colour.
                assert sitting.led(cell) == Led(player.colour.rgb, LedMode.BLINK)
                if not mismatch_tried:
                    mismatch_tried = True
                    elsewhere = next(p.short for p in legal_moves(state) if p.short != cell)
                    wrong = sitting.sensors(on_board | {elsewhere})
                    assert wrong.status == "mismatch" and cell in wrong.message
                    sitting.sensors(on_board)
            assert cell in {p.short for p in legal_moves(state)}
            before = snap.moves
            on_board.add(cell)
            sitting.sensors(on_board)
            sitting.wait(lambda s, before=before: s.moves == before + 1)
            state, _ = play(state, cell)
        assert state.over and len(on_board) == 25
        stored = sitting.store.game(snap.game_id)
        record = parse_record(dict(stored.record))
        assert isinstance(record, PerlenRecord) and len(record.moves) == 25
        assert [p.computer for p in stored.players] == [None, "easy", "strongest"]
    finally:
        sitting.table.stop()
        sitting.store.close()
    # The history page's review of the stored game.
    reviews = review(record, budget_per_move=0.02)
    assert [r.played.short for r in reviews] == list(record.moves)
    assert all(r.loss >= 0 for r in reviews)

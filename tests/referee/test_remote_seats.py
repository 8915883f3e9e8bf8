"""A seat that plays on another board: two referees, one shared log, each its own wood.

Pure, in virtual time. Two :class:`Board`\\ s stand for the two homes; what one stores of
the shared kinds (a move, a take-back, an abort) is handed to the other's
``referee.arrived``, in order and once, as the link (tested in tests/remote) delivers it.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from controller.games.perlen.commands import ConfirmBonus, Hint
from controller.games.perlen.events import BasePearl
from controller.games.perlen.kind import PERLEN_PYRAMIDE
from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.hardware.port import Led, LedMode
from controller.referee import arrivals, referee
from controller.referee.commands import Abort, NewGame, Undo
from controller.referee.events import By, Event, TakeBack
from controller.referee.messages import english
from controller.referee.resume import resume
from controller.referee.state import Reply
from controller.store import Store
from rigs.referee import Play

BLUE = (0x1F, 0x77, 0xB4)


class Board(Play):
    """One home's board: it keeps the shared events it makes, to be sent across."""

    def __init__(self) -> None:
        self.outbox: list[Event] = []
        self.arriving = False
        super().__init__()

    def adopt(self, step: referee.Step) -> Reply | None:
        made = () if self.arriving else arrivals.shared(PERLEN_PYRAMIDE, step.commit)
        reply = super().adopt(step)
        self.outbox.extend(made)
        return reply

    def receive(self, event: Event) -> Reply:
        self.arriving = True
        try:
            reply = self.adopt(referee.arrived(self.state, event, self.now))
        finally:
            self.arriving = False
        assert reply is not None
        return reply

    def shared_log(self) -> list[tuple[str, dict[str, Any]]]:
        return [(k, d) for k, d in self.events if k in arrivals.shared_kinds(PERLEN_PYRAMIDE)]


def pair(here: tuple[int, ...] = (0, 2)) -> tuple[Board, Board]:
    """Anna and Cleo at home (seats 0 and 2), Ben (seat 1) on the other board."""
    names = ("Anna", "Ben", "Cleo")
    there = tuple(s for s in range(3) if s not in here)
    home, away = Board(), Board()
    home.new(players=names, remote=there)
    away.new(players=names, remote=here)
    return home, away


def deliver(source: Board, target: Board) -> list[Reply]:
    replies = [target.receive(e) for e in source.outbox]
    source.outbox.clear()
    return replies


def test_setup_marks_the_seats_on_the_other_board() -> None:
    home, _ = pair()
    assert [p.remote for p in home.snap.players] == [False, True, False]
    bad: dict[str, list[tuple[Any, str]]] = {
        "perlen-pyramide": [((5,), "players"), ((0, 1, 2), "players"), (("1",), "players")],
        "pyramidos": [((1,), "players[1].remote")],
    }
    for game, cases in bad.items():
        for remote, field in cases:
            players = ("A", "B", "C") if game == "perlen-pyramide" else ("A", "B")
            reply = Play().do(NewGame(game, players, remote=remote))
            assert (reply.ok, reply.field) == (False, field), remote
    reply = Play().do(
        NewGame("perlen-pyramide", ("A", "B", "C"), computer={1: "easy"}, remote=(1,))
    )
    assert (reply.ok, reply.field) == (False, "players[1].remote")
    assert reply.message is not None
    assert english(reply.message) == "A computer seat plays here, not on another board."


def test_a_move_from_the_other_board_is_shown_until_it_is_placed_here() -> None:
    home, away = pair()
    home.play("c3")  # Anna, at home
    assert [e.data() for e in home.outbox] == [{"cell": "c3", "colour": 0}]
    deliver(home, away)
    # The other home sees Anna's move as a pearl to place, blinking in her colour.
    assert away.snap.moves == 1 and away.snap.status == "mismatch"
    assert away.lit["c3"].mode is LedMode.BLINK
    assert away.said().startswith("Anna played c3 on the other board: place the pearl on c3.")
    # Ben (there) cannot move before Anna's pearl is on his board.
    away.play("b2")
    assert away.snap.moves == 1
    away.lift("b2")
    away.put("c3")
    assert away.snap.status == "playing" and away.said() == "Ben to move."
    # At home it is Ben's turn: nobody there may move for him, nor ask a hint.
    assert home.said().endswith("Ben plays on the other board: wait for the move.")
    assert home.lit["seat:1"] == Led(BLUE)
    home.play("b2")
    assert home.snap.moves == 1 and home.said().startswith("It is Ben's turn, on the other board.")
    home.lift("b2")
    assert not home.do(Hint()).ok
    away.play("d4")
    assert away.snap.moves == 2 and not home.outbox
    deliver(away, home)
    assert home.snap.moves == 2 and home.snap.last_move == "d4"
    assert home.lit["d4"] == Led(BLUE, LedMode.BLINK)
    # Lifting a pearl of the other board's move here is no take-back.
    home.put("d4")
    home.lift("d4")
    home.wait(5)
    assert home.snap.moves == 2 and not home.outbox


def test_a_take_back_is_asked_where_the_move_was_made_and_shown_on_both() -> None:
    home, away = pair()
    home.play("c3")
    deliver(home, away)
    away.put("c3")
    away.play("d4")
    deliver(away, home)
    home.put("d4")
    reply = home.do(Undo())
    assert not reply.ok and reply.message is not None
    assert (
        english(reply.message) == "The last move was made on the other board: take it back there."
    )
    assert away.do(Undo(By.PAGE)).ok
    away.lift("d4")
    assert [(e.kind, e.data()) for e in away.outbox] == [("undo", {"by": "page", "what": "d4"})]
    deliver(away, home)
    assert home.snap.moves == 1 and home.snap.status == "mismatch"
    assert home.said().startswith("Ben's move on d4 was taken back on the other board")
    home.lift("d4")
    assert home.snap.status == "playing"
    assert home.shared_log() == away.shared_log()


def test_events_the_game_cannot_take_are_refused_and_not_stored() -> None:
    home, _ = pair()
    before = home.events
    for event in (
        BasePearl("c3", 0),  # Anna plays here, not there
        TakeBack(By.PAGE, "c3"),  # nothing to take back
    ):
        assert not home.receive(event).ok
    home.play("c3")
    assert not home.receive(BasePearl("c3", 1)).ok  # occupied
    assert not home.receive(TakeBack(By.PAGE, "c3")).ok  # Anna's move was made here
    assert home.events == [*before, ("move", {"cell": "c3", "colour": 0})]
    assert not Board().receive(BasePearl("c3", 0)).ok  # no linked game


def test_an_abort_on_the_other_board_ends_the_game_here() -> None:
    home, away = pair()
    assert away.do(Abort()).ok
    deliver(away, home)
    assert home.state.session is None
    assert home.said() == "Game 1 was ended on the other board."
    assert home.ledger.games[1]["status"] == "aborted"


@pytest.mark.parametrize("seed", range(6))
def test_two_boards_play_a_whole_game_and_keep_the_same_log(seed: int) -> None:
    rng = random.Random(seed)
    home, away = pair(here=(0,) if seed % 2 else (0, 2))
    boards = {False: home, True: away}
    while not home.snap.over:
        mover = home.snap.to_move
        assert mover is not None
        board = boards[home.snap.players[mover].remote]
        other = away if board is home else home
        assert board.said().endswith("to move.") or "bonus" in board.said().lower()
        cell = rng.choice(sorted(board.snap.legal))
        board.play(cell)
        if rng.random() < 0.1 and not board.snap.over:  # a change of mind, then again
            assert board.do(Undo(By.PAGE)).ok
            board.lift(cell)
            board.play(cell)
        if perlen_parts(board.snap).pending and rng.random() < 0.5:
            board.do(ConfirmBonus(By.PAGE))
        deliver(board, other)
        other.wait(1)
        other.set(other.names | {p.pos.split(":")[1] for p in perlen_parts(other.snap).pearls})
        assert other.snap.status in ("playing", "bonus", "over"), other.said()
    assert away.snap.over and home.shared_log() == away.shared_log()
    assert home.ledger.games[1]["result"] == away.ledger.games[1]["result"]
    assert home.snap.winners == away.snap.winners


def test_a_restarted_board_knows_its_seats_on_the_other_board(tmp_path: Path) -> None:
    home, _ = pair()
    home.play("c3")
    record = home.ledger.games[1]
    with Store(tmp_path / "g.sqlite3") as store:
        number = store.create_game(
            record["game"], record["players"], record["options"], children_help=False
        )
        store.append(number, record["events"])
        back = Board()
        back.ledger.games = {number: {**record, "events": list(record["events"])}}
        back.adopt(resume(back.state, store.on_the_table(), back.now, remote=frozenset({1})))
    assert [p.remote for p in back.snap.players] == [False, True, False]
    back.set({"c3", "b2"})  # a pearl for Ben, put here while the power was off: not his move
    assert back.snap.moves == 1 and back.snap.status == "mismatch"
    back.lift("b2")
    assert back.receive(BasePearl("b2", 1)).ok

"""The referee's own reading of the board, for a game that answers only where a piece may go.

The referee compares the board with every game (:func:`differences`): a board that
matches arms it, a finished game's board is only cleared. A game whose kind leaves
:meth:`~controller.referee.protocol.GameKind.reconcile` and
:meth:`~controller.referee.protocol.GameKind.undo` to the referee (they return None) is read
so: on a board that matched just before, one new piece on one of its places, nothing
missing, is a move, when :meth:`~controller.referee.protocol.GameKind.placed` gives the event
it makes (it may say why not instead); anything else is a mismatch until the board
matches again. Undo takes back the last move (:meth:`~controller.referee.protocol.Game.undo`,
stored as a :class:`~controller.referee.events.TakeBack`). The game answers pure
questions over its own value; the flow (armed checks, storing, what is said) is the
referee's. ``tests/games/toy`` is read so.
"""

from __future__ import annotations

import dataclasses

from controller.referee import progress
from controller.referee.events import By, TakeBack
from controller.referee.messages import Message
from controller.referee.protocol import Differences
from controller.referee.session import Session
from controller.referee.state import BoardCheck, RefereeState, Refusal, Reply, Step


def differences(state: RefereeState, session: Session) -> Differences:
    """Where the board differs from the game on the game's places."""
    game = session.game
    on = state.reading.names & game.pieces
    return Differences(on - game.expected, game.expected - on)


def read(state: RefereeState, session: Session, board: Differences, now: float) -> Step:
    """The ``board`` differs from a game still played: play the one new piece, or show
    the mismatch."""
    game, kind = session.game, session.kind
    extra, missing = board.extra, board.missing
    mover = game.to_move
    if not state.comparison.armed or missing or len(extra) != 1 or mover is None:
        return Step(progress.mismatch(state, game, extra, missing, armed=False))
    (place,) = extra
    answer = kind.placed(game, place)
    if isinstance(answer, Message):
        refused = Refusal(answer)
        return Step(progress.mismatch(state, game, extra, (), armed=False, refusal=refused))
    said = Message.of("played", player=session.name(mover), cell=place)
    step = progress.advance(state, session, kind.apply(game, answer), (answer,), [said], now)
    armed = dataclasses.replace(step.state, comparison=BoardCheck(armed=True, last_move_at=now))
    return Step(armed, step.commit, step.effects)


def take_back(state: RefereeState, session: Session, by: By, now: float) -> Step:
    """Undo: the last move taken back (its piece then comes off the board)."""
    game = session.game
    place = game.last_move or ""
    event = TakeBack(by, place)
    said = Message.of("took_back_move", cell=place)
    step = progress.advance(state, session, game.undo(), (event,), [said], now)
    unarmed = dataclasses.replace(step.state, comparison=BoardCheck(armed=False))
    return Step(unarmed, step.commit, step.effects, Reply(True, said))

"""The computer seat's bookkeeping: what was asked for which position, and which answers
are stale.

The referee never waits for the computer. When a computer seat is to move it asks
(:class:`~controller.referee.state.AskComputer`, carried out off its thread) and goes on
refereeing; the answer comes back tagged with the position it was asked for, and an
answer for a position that has gone (a take-back, a new game) is dropped.

>>> from controller.referee.state import RefereeState
>>> state, effects = new_position(RefereeState())
>>> state.asks.position, [type(e).__name__ for e in effects]
(1, ['CancelSearches'])
"""

from __future__ import annotations

import dataclasses

from controller.referee.messages import Message, Term
from controller.referee.state import (
    Announcement,
    Ask,
    AskComputer,
    CancelSearches,
    ComputerAsks,
    Effect,
    Purpose,
    RefereeState,
    Reply,
    Step,
)


def _token(state: RefereeState) -> tuple[int, int]:
    session = state.session
    return (session.game_id if session is not None else 0, state.asks.position)


def new_position(state: RefereeState) -> tuple[RefereeState, tuple[Effect, ...]]:
    """The game moved on: hints and computer answers for the old position no longer
    apply; a computer seat now to move is asked for its cell."""
    asks = ComputerAsks(position=state.asks.position + 1)
    state = dataclasses.replace(state, asks=asks)
    effects: tuple[Effect, ...] = (CancelSearches(),)
    return consider(state, effects)


def mover_level(state: RefereeState) -> str | None:
    """The level of the computer seat to move, or None (a person, no game, game over)."""
    session = state.session
    if session is None:
        return None
    mover = session.game.to_move
    return None if mover is None else session.players[mover].computer


def consider(
    state: RefereeState, effects: tuple[Effect, ...] = ()
) -> tuple[RefereeState, tuple[Effect, ...]]:
    """Ask the computer for its cell if it is to move and has not been asked yet."""
    level = mover_level(state)
    session = state.session
    if level is None or session is None or state.asks.computer is not None:
        return state, effects
    game = session.game
    token = _token(state)
    if not state.config.levels:
        asks = dataclasses.replace(state.asks, computer=Ask(token, failed=True))
        note = Announcement(
            (*state.note.messages, Message.of("computer_missing", thing=_piece(state))), fault=True
        )
        return dataclasses.replace(state, asks=asks, note=note), effects
    asks = dataclasses.replace(state.asks, computer=Ask(token))
    seed = session.game_id * 1000 + game.moves
    ask = AskComputer(Purpose.MOVE, token, session.kind.name, game.state, level, seed)
    return dataclasses.replace(state, asks=asks), (*effects, ask)


def thinking(state: RefereeState) -> bool:
    """A computer seat is to move and has not answered yet."""
    ask = state.asks.computer
    return (
        mover_level(state) is not None and ask is not None and ask.cell is None and not (ask.failed)
    )


def chosen(state: RefereeState) -> str | None:
    """The cell the computer seat to move chose, until its pearl is placed."""
    ask = state.asks.computer
    return ask.cell if ask is not None and mover_level(state) is not None else None


def failed(state: RefereeState) -> bool:
    ask = state.asks.computer
    return ask is not None and ask.failed


def hint(state: RefereeState) -> str | None:
    ask = state.asks.hint
    return ask.cell if ask is not None else None


def answered(
    state: RefereeState,
    purpose: Purpose,
    token: tuple[int, int],
    cell: str | None,
    why: object = None,
) -> tuple[RefereeState, bool]:
    """Take the computer's answer (``cell`` None: it failed); False when it is stale."""
    asks = state.asks
    ask = asks.computer if purpose is Purpose.MOVE else asks.hint
    if ask is None or ask.token != token or token != _token(state):
        return state, False  # asked for a position that has gone
    done = Ask(token, cell, failed=cell is None)
    said: tuple[Message, ...] = ()
    if purpose is Purpose.MOVE:
        said = (Message.of("computer_failed", thing=_piece(state)),) if cell is None else ()
        state = dataclasses.replace(state, asks=dataclasses.replace(asks, computer=done))
    else:
        session = state.session
        assert session is not None  # the token matched: the game asked about is on the table
        said = (Message.of("no_hint"),) if cell is None else session.kind.explained(cell, why)
        state = dataclasses.replace(
            state, asks=dataclasses.replace(asks, hint=None if cell is None else done)
        )
    if said:
        state = dataclasses.replace(
            state, note=Announcement(said, fault=cell is None and purpose is Purpose.MOVE)
        )
    return state, True


def ask_hint(state: RefereeState) -> Step:
    """A person asks which cell looks good (the Hint command)."""
    session = state.session
    assert session is not None
    game = session.game
    token = _token(state)
    asked = state.asks.hint
    if asked is not None and asked.token == token:
        message = (
            Message.of("still_looking")
            if asked.cell is None
            else (Message.of("hint", cell=asked.cell))
        )
        return Step(state, reply=Reply(True, message))
    asks = dataclasses.replace(state.asks, hint=Ask(token))
    ask = AskComputer(
        Purpose.HINT, token, session.kind.name, game.state, state.config.levels[-1], 0
    )
    looking = Message.of("looking")
    return Step(
        dataclasses.replace(state, asks=asks, note=Announcement((looking,))),
        effects=(ask,),
        reply=Reply(True, looking),
    )


def _piece(state: RefereeState) -> Term:
    """The game's piece (``pearl``), for "place its pearl yourself"."""
    session = state.session
    return Term("thing", session.kind.piece if session is not None else "")

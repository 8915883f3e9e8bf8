"""The computer seat's bookkeeping: what was asked for which position, and which answers
are stale.

The referee never waits for the computer. When a computer seat is to move it asks
(:class:`~controller.referee.state.AskComputer`, carried out off its thread) and goes on
refereeing; the answer comes back tagged with the position it was asked for, and an
answer for a position that has gone (a take-back, a new game) is dropped.

>>> from controller.referee.state import Referee
>>> state, effects = new_position(Referee())
>>> state.seat.position, [type(e).__name__ for e in effects]
(1, ['CancelSearches'])
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Final

from controller.referee.games import PerlenGame
from controller.referee.messages import Amount, Items, Message
from controller.referee.state import (
    Ask,
    AskComputer,
    CancelSearches,
    Effect,
    Note,
    Referee,
    Reply,
    Seat,
    Step,
)


def _token(state: Referee) -> tuple[int, int]:
    session = state.session
    return (session.game_id if session is not None else 0, state.seat.position)


def new_position(state: Referee) -> tuple[Referee, tuple[Effect, ...]]:
    """The game moved on: hints and computer answers for the old position no longer
    apply; a computer seat now to move is asked for its cell."""
    seat = Seat(position=state.seat.position + 1)
    state = state.but(seat=seat)
    effects: tuple[Effect, ...] = (CancelSearches(),)
    return consider(state, effects)


def mover_level(state: Referee) -> str | None:
    """The level of the computer seat to move, or None (a person, no game, game over)."""
    session = state.session
    if session is None or not isinstance(session.game, PerlenGame):
        return None
    mover = session.game.state.to_move
    return None if mover is None else session.players[mover].computer


def consider(
    state: Referee, effects: tuple[Effect, ...] = ()
) -> tuple[Referee, tuple[Effect, ...]]:
    """Ask the computer for its cell if it is to move and has not been asked yet."""
    level = mover_level(state)
    session = state.session
    if level is None or session is None or state.seat.computer is not None:
        return state, effects
    game = session.game
    assert isinstance(game, PerlenGame)
    token = _token(state)
    if not state.rules.levels:
        seat = dataclasses.replace(state.seat, computer=Ask(token, failed=True))
        note = Note((*state.note.messages, Message.of("computer_missing")), fault=True)
        return state.but(seat=seat, note=note), effects
    seat = dataclasses.replace(state.seat, computer=Ask(token))
    ask = AskComputer("move", token, game.state, level, session.game_id * 1000 + game.moves)
    return state.but(seat=seat), (*effects, ask)


def thinking(state: Referee) -> bool:
    """A computer seat is to move and has not answered yet."""
    ask = state.seat.computer
    return (
        mover_level(state) is not None and ask is not None and ask.cell is None and not (ask.failed)
    )


def chosen(state: Referee) -> str | None:
    """The cell the computer seat to move chose, until its pearl is placed."""
    ask = state.seat.computer
    return ask.cell if ask is not None and mover_level(state) is not None else None


def failed(state: Referee) -> bool:
    ask = state.seat.computer
    return ask is not None and ask.failed


def hint(state: Referee) -> str | None:
    ask = state.seat.hint
    return ask.cell if ask is not None else None


@dataclass(frozen=True, slots=True)
class Why:
    """Why a hinted cell is good, in bonus pearls and visible pearls (from the computer)."""

    wins: tuple[str, ...] = ()
    """Bonus pearls of the mover's colour the move earns at once (positions)."""
    denies: tuple[str, ...] = ()
    """Bonus pearls a rival's pearl on the cell would earn: the move keeps them from it."""
    worth: float = 0.0
    """Visible pearls of the mover's final score the cell is worth more than the next."""


WORTH_SAYING: Final = 0.5
"""A hint says what it is worth once that is half a visible pearl or more."""


def explained(cell: str, why: Why | None) -> tuple[Message, ...]:
    """``Hint: b3, which wins the bonus pearl 2:b2. It is worth about 1.5 …``."""
    if why is None:
        return (Message.of("hint", cell=cell),)
    if why.wins:
        said = Message.of("hint_wins", cell=cell, positions=Items(why.wins), num=len(why.wins))
    elif why.denies:
        denied = tuple(dict.fromkeys(why.denies))
        said = Message.of("hint_denies", cell=cell, positions=Items(denied), num=len(denied))
    else:  # early in a game: no cell wins one yet, the reason is the chances it leaves
        said = Message.of("hint_chances", cell=cell)
    if why.worth < WORTH_SAYING:
        return (said,)
    return (said, Message.of("hint_worth", worth=Amount(why.worth)))


def answered(
    state: Referee,
    purpose: str,
    token: tuple[int, int],
    cell: str | None,
    why: Why | None = None,
) -> tuple[Referee, bool]:
    """Take the computer's answer (``cell`` None: it failed); False when it is stale."""
    seat = state.seat
    ask = seat.computer if purpose == "move" else seat.hint
    if ask is None or ask.token != token or token != _token(state):
        return state, False  # asked for a position that has gone
    done = Ask(token, cell, failed=cell is None)
    said: tuple[Message, ...] = ()
    if purpose == "move":
        said = (Message.of("computer_failed"),) if cell is None else ()
        state = state.but(seat=dataclasses.replace(seat, computer=done))
    else:
        said = (Message.of("no_hint"),) if cell is None else explained(cell, why)
        state = state.but(seat=dataclasses.replace(seat, hint=None if cell is None else done))
    if said:
        state = state.but(note=Note(said, fault=cell is None and purpose == "move"))
    return state, True


def ask_hint(state: Referee) -> Step:
    """A person asks which cell looks good (the Hint command)."""
    session = state.session
    if session is None:
        return refuse(state, "no_game")
    game = session.game
    if not isinstance(game, PerlenGame):
        return refuse(state, "hints_perlen_only")
    mover = game.state.to_move
    if game.over or mover is None:
        return refuse(state, "game_over")
    if session.players[mover].computer is not None:
        return refuse(state, "computer_turn")
    if not state.rules.levels:
        return refuse(state, "hints_need_bot")
    token = _token(state)
    asked = state.seat.hint
    if asked is not None and asked.token == token:
        message = (
            Message.of("still_looking")
            if asked.cell is None
            else (Message.of("hint", cell=asked.cell))
        )
        return Step(state, reply=Reply(True, message))
    seat = dataclasses.replace(state.seat, hint=Ask(token))
    ask = AskComputer("hint", token, game.state, state.rules.levels[-1], 0)
    looking = Message.of("looking")
    return Step(
        state.but(seat=seat, note=Note((looking,))), effects=(ask,), reply=Reply(True, looking)
    )


def refuse(state: Referee, key: str) -> Step:
    return Step(state, reply=Reply(False, Message.of(key)))

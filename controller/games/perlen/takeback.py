"""Taking a move back: by lifting the last pearl, by moving it, or by Undo.

Undo takes the move back in the store at once; the board must then match again. A move
that earned bonus pearls has them resting on it, so they come off first, in the physical
order, top down: the ones that were placed (acknowledged) are listed, highest first, and
the LEDs blink the place of the first; Confirm says it is off and the next one blinks;
lifting the base pearl ends the list (nothing can rest on a lifted pearl). Bonus pearls
that were still waiting were never placed and just leave the list.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from controller.games.perlen import rules as perlen
from controller.games.perlen.events import BasePearl
from controller.games.perlen.game import PerlenGame
from controller.games.perlen.words import hidden_notes
from controller.referee.game import (
    BoardCheck,
    By,
    Message,
    RefereeState,
    Reply,
    Session,
    Step,
    TakeBack,
    advance,
    matched,
)

TAKE_BACK: Final = "take-back"
"""A decision that waits for the board to stay so (:class:`~controller.referee.state.
Settling`): the last pearl is off its cell."""
SHIFT: Final = "shift"
"""The last pearl is off its cell and one is on another legal cell."""


def removals(state: RefereeState) -> tuple[perlen.Bonus, ...]:
    """The bonus pearls of a move taken back still to come off, top first."""
    found = state.comparison.removals
    assert all(isinstance(b, perlen.Bonus) for b in found), "bonus pearls"
    return tuple(b for b in found if isinstance(b, perlen.Bonus))


def top_down(bonuses: tuple[perlen.Bonus, ...]) -> tuple[perlen.Bonus, ...]:
    """The order to take bonus pearls off: the highest first (the reverse of placing)."""
    return tuple(sorted(bonuses, key=lambda b: b.position.index, reverse=True))


def _took_back(session: Session, game: PerlenGame) -> Message:
    last = game.last
    assert last is not None
    return Message.of("took_back", player=session.name(last.colour), cell=last.cell)


def can_shift(session: Session, game: PerlenGame, cell: str) -> bool:
    """The last pearl may move to ``cell`` in one go: it earned no bonus pearl, a person
    placed it, and ``cell`` was legal for it."""
    last = game.last
    if last is None or last.bonuses or session.players[last.colour].computer is not None:
        return False  # the computer chose that cell; moving its pearl is a mismatch
    if session.players[last.colour].remote:
        return False  # placed here for the other board: only it may take the move back
    return cell in {p.short for p in perlen.legal_moves(last.before)}


def lifted(state: RefereeState, session: Session, game: PerlenGame, now: float) -> Step:
    """The last pearl stayed off: the move is taken back (its bonus pearls came off too)."""
    last = game.last
    assert last is not None
    step = advance(
        state,
        session,
        game.undo(),
        (TakeBack(By.LIFT, last.cell),),
        [_took_back(session, game)],
        now,
    )
    return Step(matched(step.state), step.commit, step.effects)


def shifted(state: RefereeState, session: Session, game: PerlenGame, cell: str, now: float) -> Step:
    """The last pearl moved to ``cell``: taken back and made there."""
    last = game.last
    assert last is not None
    new = game.undo().move(cell)
    name = session.name(last.colour)
    notes = [Message.of("moved", player=name, origin=last.cell, cell=cell)]
    events = (TakeBack(By.LIFT, last.cell), BasePearl(cell, last.colour))
    step = advance(state, session, new, events, [*notes, *hidden_notes(new)], now)
    moved = dataclasses.replace(step.state, comparison=BoardCheck(armed=True, last_move_at=now))
    return Step(moved, step.commit, step.effects)


def undo(state: RefereeState, session: Session, game: PerlenGame, by: By, now: float) -> Step:
    """The Undo command (page or board): take back the last move."""
    last = game.last
    assert last is not None
    removals = top_down(game.placed_on_last())
    note = _took_back(session, game)
    step = advance(state, session, game.undo(), (TakeBack(by, last.cell),), [note], now)
    # The board still shows the move taken back: it must match again before play goes on
    # (the caller looks at it), and the bonus pearls on it come off first.
    watch = BoardCheck(armed=False, last_move_at=state.comparison.last_move_at, removals=removals)
    return Step(
        dataclasses.replace(step.state, comparison=watch), step.commit, step.effects,
        Reply(True, note),
    )  # fmt: skip


def take_off(state: RefereeState) -> Step:
    """Confirm while bonus pearls of a taken-back move are still to come off: the top one
    is off, the next one's place blinks."""
    watch = state.comparison
    first = removals(state)[0]
    state = dataclasses.replace(
        state, comparison=dataclasses.replace(watch, removals=watch.removals[1:])
    )
    return Step(state, reply=Reply(True, Message.of("took_off", pos=first.position.short)))

"""A Perlen-Pyramide seat on another board: its moves and take-backs arrive here.

A move that arrives is played at once (it is stored here before the link acknowledges
it), and this board's wood is then one pearl short: it is shown as the computer's choice
is, the cell blinking in that player's colour and "Oma played d4 on the other board:
place the pearl on d4"; nothing is played here until a person has placed it and the
board matches. A take-back that arrives leaves a pearl too many here, listed as Undo's
is. Only the board of the seat to move can move (:func:`.board.refusal_for` refuses a
pearl for a remote mover).
"""

from __future__ import annotations

import dataclasses

from controller.games.perlen import takeback
from controller.games.perlen.events import BasePearl, BonusPlaced
from controller.games.perlen.game import PerlenGame
from controller.games.perlen.words import hidden_notes
from controller.referee.game import (
    NEVER,
    Announcement,
    BoardCheck,
    By,
    Event,
    Message,
    RefereeState,
    Reply,
    Session,
    Step,
    TakeBack,
    advance,
)


def _no(state: RefereeState, event: Event) -> Step:
    return Step(state, reply=Reply(False, Message.of("remote_event_bad", kind=event.kind)))


def arrived(
    state: RefereeState, session: Session, game: PerlenGame, event: Event, now: float
) -> Step:
    """``event`` (a base pearl or a take-back), made on the other board: play it here."""
    if isinstance(event, BasePearl):
        return _pearl(state, session, game, event, now)
    if isinstance(event, TakeBack):
        return _take_back(state, session, game, event, now)
    return _no(state, event)


def _pearl(
    state: RefereeState, session: Session, game: PerlenGame, event: BasePearl, now: float
) -> Step:
    mover = game.state.to_move
    if mover is None or event.colour != mover or not session.players[mover].remote:
        return _no(state, event)
    if event.cell not in game.legal_cells():
        return _no(state, event)
    # Bonus pearls still waiting here were placed there before the move: going on
    # acknowledges them, as the next base pearl does on this board.
    events: list[Event] = [BonusPlaced(str(b.position), b.colour, By.PEARL) for b in game.pending]
    events.append(event)
    new = game.acknowledge_all().move(event.cell)
    name = session.name(mover)
    notes = [Message.of("remote_played", player=name, cell=event.cell), *hidden_notes(new)]
    step = advance(state, session, new, tuple(events), notes, now)
    # This board is one pearl short now: not a take-back, a pearl to place. The last move
    # was not placed here, so no pearl can be "placed together" with it.
    watch = BoardCheck(armed=False, last_move_at=NEVER)
    waiting = dataclasses.replace(step.state, comparison=watch)
    return Step(waiting, step.commit, step.effects, Reply(True, notes[0]))


def _take_back(
    state: RefereeState, session: Session, game: PerlenGame, event: TakeBack, now: float
) -> Step:
    last = game.last
    if last is None or last.cell != event.what or not session.made_there():
        return _no(state, event)
    removals = takeback.top_down(game.placed_on_last())
    note = Message.of("remote_took_back", player=session.name(last.colour), cell=last.cell)
    step = advance(state, session, game.undo(), (event,), [note], now)
    watch = BoardCheck(armed=False, last_move_at=state.comparison.last_move_at, removals=removals)
    told = dataclasses.replace(step.state, comparison=watch, note=Announcement((note,)))
    return Step(told, step.commit, step.effects, Reply(True, note))

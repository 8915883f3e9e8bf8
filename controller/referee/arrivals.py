"""A seat that plays on another board: its events arrive through the link.

Two boards play one game (:mod:`controller.remote`): each seat belongs to one board
(:attr:`~controller.referee.session.Player.remote` marks the other board's), and the game
has one log of shared events, the kinds in :data:`SHARED`: a base pearl, a take-back, the
end of a game. Each board makes the shared events of its own seats and receives the
other's (:func:`arrived`); both boards' referees fold the same shared events in the same
order, so both stores end with the same moves and result. What each board does for
itself stays local and is never sent: acknowledging bonus pearls (a family places them on
its own wood, at its own pace), a hint, the LED test.

A move that arrives is played at once (it is stored here before the link acknowledges
it), and this board's wood is then one pearl short: it is shown as the computer's choice
is, the cell blinking in that player's colour and "Oma played d4 on her board: place her
pearl on d4"; nothing is played here until a person has placed it and the board matches.
A take-back that arrives leaves a pearl too many here, listed as Undo's is.

Who may do what follows from the seats: only the board of the seat to move can move
(:func:`~controller.referee.perlen.board.refusal_for` refuses a pearl for a remote
mover), and only the board that made the last move can take it back
(:meth:`~controller.referee.session.Session.made_there` and the guard).
"""

from __future__ import annotations

import dataclasses
from typing import Final

from controller.referee import progress
from controller.referee.events import Aborted, BasePearl, BonusPlaced, By, Event, TakeBack
from controller.referee.games import PerlenGame
from controller.referee.messages import Message
from controller.referee.perlen import takeback
from controller.referee.session import Session
from controller.referee.state import (
    NEVER,
    Announcement,
    BoardCheck,
    Commit,
    RefereeState,
    Reply,
    Step,
)

SHARED: Final = frozenset({BasePearl.kind, TakeBack.kind, Aborted.kind})
"""The kinds of event both boards of a linked game keep; every other event is local."""


def shared(commit: Commit | None) -> tuple[Event, ...]:
    """The events of ``commit`` the other board must get (made here, by this board)."""
    return () if commit is None else tuple(e for e in commit.events if e.kind in SHARED)


def _no(state: RefereeState, key: str, **params: str | int) -> Step:
    return Step(state, reply=Reply(False, Message.of(key, **params)))


def arrived(state: RefereeState, event: Event, now: float) -> Step:
    """``event`` (a move or a take-back), made on the other board, arrived: play it here.

    The step's reply says whether it was taken; a refused one (the games differ: another
    game, a move of a seat that is not the other board's) is no network fault and is not
    stored: the Table stops the link for the game and says so.
    """
    session = state.session
    if session is None or not session.linked or not isinstance(session.game, PerlenGame):
        return _no(state, "remote_not_linked")
    game = session.game
    if game.over:
        return _no(state, "game_over")
    if isinstance(event, BasePearl):
        return _pearl(state, session, game, event, now)
    if isinstance(event, TakeBack):
        return _take_back(state, session, game, event, now)
    return _no(state, "remote_event_bad", kind=event.kind)


def _pearl(
    state: RefereeState, session: Session, game: PerlenGame, event: BasePearl, now: float
) -> Step:
    mover = game.state.to_move
    if mover is None or event.colour != mover or not session.players[mover].remote:
        return _no(state, "remote_event_bad", kind=event.kind)
    if event.cell not in game.legal_cells():
        return _no(state, "remote_event_bad", kind=event.kind)
    # Bonus pearls still waiting here were placed there before the move: going on
    # acknowledges them, as the next base pearl does on this board.
    events: list[Event] = [BonusPlaced(str(b.position), b.colour, By.PEARL) for b in game.pending]
    events.append(event)
    new = game.acknowledge_all().move(event.cell)
    name = session.name(mover)
    notes = [Message.of("remote_played", player=name, cell=event.cell), *progress.hidden_notes(new)]
    step = progress.advance(state, session, new, tuple(events), notes, now)
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
        return _no(state, "remote_event_bad", kind=event.kind)
    removals = takeback.top_down(game.placed_on_last())
    note = Message.of("remote_took_back", player=session.name(last.colour), cell=last.cell)
    step = progress.advance(state, session, game.undo(), (event,), [note], now)
    watch = BoardCheck(armed=False, last_move_at=state.comparison.last_move_at, removals=removals)
    told = dataclasses.replace(step.state, comparison=watch, note=Announcement((note,)))
    return Step(told, step.commit, step.effects, Reply(True, note))

"""A seat that plays on another board: its events arrive through the link.

Two boards play one game (:mod:`controller.remote`): each seat belongs to one board
(:attr:`~controller.referee.players.Player.remote` marks the other board's), and the game
has one log of shared events: the kinds the game names
(:attr:`~controller.referee.protocol.GameKind.shared`: Perlen-Pyramide's base pearl), a
take-back, the end of a game. Each board makes the shared events of its own seats and
receives the other's (:func:`arrived`); both boards' referees fold the same shared events
in the same order, so both stores end with the same moves and result. What each board
does for itself stays local and is never sent (acknowledging bonus pearls, a hint, the
LED test).

An event that arrives is played at once (it is stored here before the link acknowledges
it): a move as the game reads it (:meth:`~controller.referee.protocol.GameKind.arrived`),
a take-back as the game takes its last move back
(:meth:`~controller.referee.protocol.GameKind.took_back`). This board's wood is then a
piece short, or one too many: the game shows it as the computer's choice is, and nothing
is played here until a person has placed it (or taken it off) and the board matches.

Who may do what follows from the seats: only the board of the seat to move can move, and
only the board that made the last move can take it back
(:meth:`~controller.referee.session.Session.made_there` and the guard). What the two
boards do while apart is put in one order by the link (the inviting board's stands:
:mod:`controller.remote.link`); the joining board's events that crossed are undone there
(``remote_crossed`` says so) and the board shows what to put back or take off.
"""

from __future__ import annotations

import dataclasses

from controller.referee import progress, prompts
from controller.referee.events import Aborted, Event, TakeBack
from controller.referee.fold import fold
from controller.referee.messages import N_, Message, register
from controller.referee.protocol import GameKind
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

register(
    {
        "remote_crossed": N_(
            "%(name)s's board played first while the two boards were apart, so what was "
            "done here meanwhile is undone: set this board as shown."
        ),
        "remote_took_back": N_(
            "%(player)s's move on %(cell)s was taken back on the other board: take it off."
        ),
        "remote_took_record": N_(
            "This board took %(name)s's record of the game: set this board as shown."
        ),
    }
)


def shared_kinds(kind: GameKind) -> frozenset[str]:
    """The kinds of event both boards of a linked game of ``kind`` keep."""
    return kind.shared | {TakeBack.kind, Aborted.kind}


def shared(kind: GameKind, commit: Commit | None) -> tuple[Event, ...]:
    """The events of ``commit`` the other board must get (made here, by this board)."""
    if commit is None:
        return ()
    kinds = shared_kinds(kind)
    return tuple(e for e in commit.events if e.kind in kinds)


def arrived(state: RefereeState, event: Event, now: float) -> Step:
    """``event`` (a move or a take-back), made on the other board, arrived: play it here.

    The step's reply says whether it was taken; a refused one (the games differ: another
    game, a move of a seat that is not the other board's) is no network fault and is not
    stored: the Table stops the link for the game and says so.
    """
    session = state.session
    if session is None or not session.linked:
        return Step(state, reply=Reply(False, Message.of("remote_not_linked")))
    if session.game.over:
        return Step(state, reply=Reply(False, Message.of("game_over")))
    if event.kind not in shared_kinds(session.kind) or isinstance(event, Aborted):
        return Step(state, reply=Reply(False, Message.of("remote_event_bad", kind=event.kind)))
    if isinstance(event, TakeBack):
        return _taken_back(state, session, event, now)
    return _moved(state, session, event, now)


def _no(state: RefereeState, event: Event) -> Step:
    return Step(state, reply=Reply(False, Message.of("remote_event_bad", kind=event.kind)))


def _moved(state: RefereeState, session: Session, event: Event, now: float) -> Step:
    """A move of a seat on the other board: only that seat's, when it is to move."""
    game = session.game
    mover = game.to_move
    if mover is None or not session.players[mover].remote:
        return _no(state, event)
    move = session.kind.arrived(game, event, prompts.scene(state))
    if move is None:
        return _no(state, event)
    new = fold(session.kind, game, move.events)
    step = progress.advance(state, session, new, move.events, move.said, now)
    # This board is one piece short now: not a take-back, a piece to place. The last move
    # was not placed here, so no piece can be "placed together" with it.
    watch = BoardCheck(armed=False, last_move_at=NEVER)
    waiting = dataclasses.replace(step.state, comparison=watch)
    return Step(waiting, step.commit, step.effects, Reply(True, move.said[0]))


def _taken_back(state: RefereeState, session: Session, event: TakeBack, now: float) -> Step:
    """The other board took back its own last move: here its pieces come off."""
    game = session.game
    last = game.last_by
    if last is None or not session.made_there():
        return _no(state, event)
    undone = session.kind.took_back(game, prompts.scene(state))
    if undone.what != event.what:
        return _no(state, event)
    note = Message.of("remote_took_back", player=session.name(last), cell=undone.what)
    step = progress.advance(state, session, game.undo(), (event,), [note], now)
    watch = BoardCheck(
        armed=False, last_move_at=state.comparison.last_move_at, removals=undone.removals
    )
    told = dataclasses.replace(step.state, comparison=watch, note=Announcement((note,)))
    return Step(told, step.commit, step.effects, Reply(True, note))

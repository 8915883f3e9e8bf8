"""Reading the board of Pyramidos: landings, knock-offs and the end of a turn.

A target going active is a landing for the seat to move (the top only once it is open:
before, it is a mismatch); a target going inactive and staying so for ``settle_s`` is a
knocked-off ball; ``button:end_turn`` or the page ends a turn (:func:`end_turn`), and a
ball that just fell off counts as knocked off at once then.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Final

from controller.hardware.channels import TARGETS
from controller.referee import progress
from controller.referee.events import By, Event, KnockedOff, Landed, TurnEnded
from controller.referee.games import PyramidosGame
from controller.referee.messages import Items, Message, Param
from controller.referee.session import Session
from controller.referee.state import Hold, HoldAction, Referee, Refusal, Reply, Step, Watch
from controller.referee.words import fixes
from controller.rules import pyramidos

TARGET_SET: Final = frozenset(TARGETS)


def _ordered(targets: frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted(targets, key=TARGETS.index))


def knocked_off(
    owners: Mapping[str, int | None], gone: Iterable[str], name: Callable[[int], Param]
) -> Message:
    """``Oma's ball on t1 was knocked off.`` (``owners``: whose ball each target held)."""
    balls: list[Param] = []
    for target in _ordered(frozenset(gone)):
        owner = owners.get(target)
        who = name(owner) if owner is not None else "?"
        balls.append(Message.of("ball_of", player=who, target=target))
    return Message.of("knocked_off", balls=Items(tuple(balls)), num=len(balls))


def said(before: pyramidos.PyramidosState, text: str, name: Callable[[int], Param]) -> Message:
    """One event of a Pyramidos record in words, as the live page said it: ``Oma landed
    on t1.``, ``Oma's ball on t1 was knocked off.``, ``Jonas ended the turn.``"""
    kind, *rest = text.split()
    if kind == "land":
        return Message.of("landed", player=name(before.to_move), target=rest[0])
    if kind == "leave":
        return knocked_off(before.targets(), rest, name)
    return Message.of("turn_ended", player=name(before.to_move))


def reconcile(state: Referee, session: Session, game: PyramidosGame, now: float) -> Step:
    """Compare the targets with the game; land, knock off, or show the mismatch."""
    targets = state.reading.names & TARGET_SET
    expected = game.expected
    extra = targets - expected
    missing = expected - targets
    if not extra and not missing:
        return Step(progress.matched(state))
    if game.over:  # the game is decided: the board is cleared for the next one
        return Step(state.but(watch=Watch(last_move_at=state.watch.last_move_at)))
    if not state.watch.armed:
        return Step(progress.mismatch(state, game, extra, missing, armed=False))
    if extra:
        refusal = _landing_refusal(state, game, extra, now)
        if refusal is not None:
            return Step(
                progress.mismatch(state, game, extra, missing, armed=False, refusal=refusal)
            )
        (target,) = extra
        return _land(state, session, game, target, targets, now)
    return _knock_off(state, session, game, missing, now)


def _landing_refusal(
    state: Referee, game: PyramidosGame, extra: frozenset[str], now: float
) -> Refusal | None:
    if len(extra) > 1:
        return Refusal(Message.of("several_balls", targets=Items(_ordered(extra))), extra)
    (target,) = extra
    if target == "top" and not game.state.top_open:
        return Refusal(Message.of("top_closed"))
    if now - state.watch.last_move_at < state.rules.together_s:
        return Refusal(Message.of("two_balls"))
    return None


def _land(
    state: Referee,
    session: Session,
    game: PyramidosGame,
    target: str,
    targets: frozenset[str],
    now: float,
) -> Step:
    seat = game.state.to_move
    new = game.event(f"land {target}")
    notes = [said(game.state, f"land {target}", session.name)]
    if new.state.top_open and not game.state.top_open:
        notes.append(Message.of("top_opened"))
    step = progress.advance(state, session, new, (Landed(target, seat),), notes, now)
    landed = step.state.but(watch=Watch(armed=True, last_move_at=now))
    gone = new.expected - targets
    if gone and not new.over:
        # A ball knocked off on the way: it counts once it stays off (a timer looks again).
        hold = Hold(HoldAction.KNOCK_OFF, frozenset(gone), now + state.rules.settle_s)
        landed = progress.mismatch(landed, new, (), gone, armed=True, hold=hold)
    return Step(landed, step.commit, step.effects)


def _knock_off(
    state: Referee, session: Session, game: PyramidosGame, missing: frozenset[str], now: float
) -> Step:
    """Balls gone from their targets: knocked off, once they stay gone for ``settle_s``."""
    hold = state.watch.hold
    if hold is None or hold.action is not HoldAction.KNOCK_OFF or hold.key != missing:
        hold = Hold(HoldAction.KNOCK_OFF, missing, now + state.rules.settle_s)
    if now < hold.deadline:
        return Step(progress.mismatch(state, game, (), missing, armed=True, hold=hold))
    new, events = knock_off(game, missing)
    notes = [knocked_off(game.owners, missing, session.name)]
    step = progress.advance(state, session, new, events, notes, now)
    return Step(progress.matched(step.state), step.commit, step.effects)


def knock_off(game: PyramidosGame, gone: frozenset[str]) -> tuple[PyramidosGame, tuple[Event, ...]]:
    events: list[Event] = []
    for target in _ordered(gone):
        events.append(KnockedOff(target, game.state.targets()[target]))
        game = game.event(f"leave {target}")
    return game, tuple(events)


def end_turn(state: Referee, by: By, now: float) -> Step:
    """The End turn command: the ball rests on earth or fell into the net."""
    session = state.session
    if session is None:
        return Step(state, reply=Reply(False, Message.of("no_game")))
    game = session.game
    if not isinstance(game, PyramidosGame):
        return Step(state, reply=Reply(False, Message.of("pyramidos_only")))
    if game.over:
        return Step(state, reply=Reply(False, Message.of("game_over")))
    hold = state.watch.hold
    events: tuple[Event, ...] = ()
    notes: list[Message] = []
    if hold is not None and hold.action is HoldAction.KNOCK_OFF:
        # A deliberate press says the board has settled: the knocked-off balls count now.
        notes.append(knocked_off(game.owners, hold.key, session.name))
        game, events = knock_off(game, hold.key)
    elif state.watch.mismatches:
        return Step(state, reply=Reply(False, Message.of("fix_first", fixes=fixes(state))))
    seat = game.state.to_move
    notes.append(said(game.state, "end", session.name))
    new = game.event("end")
    step = progress.advance(state, session, new, (*events, TurnEnded(seat, by)), notes, now)
    ended = step.state.but(watch=Watch(armed=True, last_move_at=state.watch.last_move_at))
    return Step(ended, step.commit, step.effects, Reply(True, notes[-1]))

"""Reading the board of Pyramidos: landings, knock-offs and the end of a turn.

A target going active is a landing for the seat to move (the top only once it is open:
before, it is a mismatch); a target going inactive and staying so for ``settle_s`` is a
knocked-off ball; ``button:end_turn`` or the page ends a turn (:func:`end_turn`), and a
ball that just fell off counts as knocked off at once then.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from controller.games.pyramidos.events import KnockedOff, Landed, TurnEnded
from controller.games.pyramidos.game import PyramidosGame
from controller.games.pyramidos.words import knocked_off, ordered, said
from controller.guidance import MismatchKind
from controller.referee.game import (
    BoardCheck,
    By,
    Differences,
    Event,
    Items,
    Message,
    RefereeState,
    Refusal,
    Reply,
    Session,
    Settling,
    Step,
    TakeBack,
    advance,
    matched,
    mismatch,
    place,
    places,
)
from controller.vocabulary import TARGETS

TARGET_SET: Final = frozenset(TARGETS)
KNOCK_OFF: Final = "knock-off"
"""The decision that waits (:class:`~controller.referee.state.Settling`): balls are gone
from their targets; they count as knocked off once they stay gone for ``settle_s``."""


def reconcile(state: RefereeState, session: Session, board: Differences, now: float) -> Step:
    """The targets differ from a game still played: land, knock off, or show the
    mismatch."""
    game = session.game
    extra, missing = board.extra, board.missing
    assert isinstance(game, PyramidosGame), "a Pyramidos game"  # the registry's promise
    targets = state.reading.names & TARGET_SET
    if not state.comparison.armed:
        return Step(mismatch(state, game, extra, missing, armed=False))
    if extra:
        refusal = _landing_refusal(state, game, extra, now)
        if refusal is not None:
            return Step(mismatch(state, game, extra, missing, armed=False, refusal=refusal))
        (target,) = extra
        return _land(state, session, game, target, targets, now)
    return _knock_off(state, session, game, missing, now)


def _landing_refusal(
    state: RefereeState, game: PyramidosGame, extra: frozenset[str], now: float
) -> Refusal | None:
    if len(extra) > 1:
        return Refusal(Message.of("several_balls", targets=places(ordered(extra))), extra)
    (target,) = extra
    if target == "top" and not game.state.top_open:
        return Refusal(Message.of("top_closed"))
    if now - state.comparison.last_move_at < state.config.together_s:
        return Refusal(Message.of("two_balls"))
    return None


def _land(
    state: RefereeState,
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
    step = advance(state, session, new, (Landed(target, seat),), notes, now)
    landed = dataclasses.replace(step.state, comparison=BoardCheck(armed=True, last_move_at=now))
    gone = new.expected - targets
    if gone and not new.over:
        # A ball knocked off on the way: it counts once it stays off (a timer looks again).
        hold = Settling(KNOCK_OFF, frozenset(gone), now + state.config.settle_s)
        landed = mismatch(landed, new, (), gone, armed=True, settling=hold)
    return Step(landed, step.commit, step.effects)


def _knock_off(
    state: RefereeState, session: Session, game: PyramidosGame, missing: frozenset[str], now: float
) -> Step:
    """Balls gone from their targets: knocked off, once they stay gone for ``settle_s``."""
    hold = state.comparison.settling
    if hold is None or hold.action is not KNOCK_OFF or hold.key != missing:
        hold = Settling(KNOCK_OFF, missing, now + state.config.settle_s)
    if now < hold.deadline:
        return Step(mismatch(state, game, (), missing, armed=True, settling=hold))
    new, events = knock_off(game, missing)
    notes = [knocked_off(game.owners, missing, session.name)]
    step = advance(state, session, new, events, notes, now)
    return Step(matched(step.state), step.commit, step.effects)


def knock_off(game: PyramidosGame, gone: frozenset[str]) -> tuple[PyramidosGame, tuple[Event, ...]]:
    events: list[Event] = []
    for target in ordered(gone):
        events.append(KnockedOff(target, game.state.targets()[target]))
        game = game.event(f"leave {target}")
    return game, tuple(events)


def end_turn(
    state: RefereeState, session: Session, game: PyramidosGame, by: By, now: float
) -> Step:
    """The End turn command: the ball rests on earth or fell into the net."""
    hold = state.comparison.settling
    events: tuple[Event, ...] = ()
    notes: list[Message] = []
    if hold is not None and hold.action is KNOCK_OFF:
        # A deliberate press says the board has settled: the knocked-off balls count now.
        notes.append(knocked_off(game.owners, hold.key, session.name))
        game, events = knock_off(game, hold.key)
    seat = game.state.to_move
    notes.append(said(game.state, "end", session.name))
    new = game.event("end")
    step = advance(state, session, new, (*events, TurnEnded(seat, by)), notes, now)
    ended = dataclasses.replace(
        step.state, comparison=BoardCheck(armed=True, last_move_at=state.comparison.last_move_at)
    )
    return Step(ended, step.commit, step.effects, Reply(True, notes[-1]))


def undo(state: RefereeState, session: Session, game: PyramidosGame, by: By, now: float) -> Step:
    """The Undo command: take back the last event (a landing, a knock-off, an ended turn)."""
    last = game.steps[-1]
    words = last.text.split()
    if words[0] == "land":
        note = Message.of(
            "took_back_landing", player=session.name(last.seat), target=place(words[1])
        )
    elif words[0] == "leave":
        note = Message.of("took_back_knock_off", target=place(words[1]))
    else:
        note = Message.of("took_back_end", player=session.name(last.seat))
    step = advance(state, session, game.undo(), (TakeBack(by, last.text),), [note], now)
    watch = BoardCheck(armed=False, last_move_at=state.comparison.last_move_at)
    return Step(
        dataclasses.replace(step.state, comparison=watch),
        step.commit,
        step.effects,
        Reply(True, note),
    )


def missing(state: RefereeState) -> Items:
    """The targets whose balls are gone, as the board reads now."""
    return places(m.cell for m in state.comparison.mismatches if m.kind is MismatchKind.MISSING)

"""A game's own commands carried out: Confirm, Hint, End turn … (the referee's flow for them).

The game says whether it takes one now (:meth:`~controller.referee.protocol.GameKind.
refusal`, asked by :mod:`controller.referee.guard`) and what it makes
(:meth:`~controller.referee.protocol.GameKind.act`): events to store and words
(:class:`~controller.referee.protocol.Acted`), the first piece to take off being off
(:class:`~controller.referee.protocol.TookOff`), or a hint wanted
(:class:`~controller.referee.protocol.AskHint`). The referee stores and says it. A command
is a deliberate press: pieces the game reads as falling off (a held change that takes
nothing back) count at once then, before the command. Once the game is over its result
stands: the command changes the position only (the last pieces placed by hand), nothing
is stored, and the winner's sweep starts when none waits any more.
"""

from __future__ import annotations

import dataclasses

from controller.referee import computer_seat, progress, prompts
from controller.referee.commands import Command
from controller.referee.events import Event
from controller.referee.fold import fold
from controller.referee.messages import Message
from controller.referee.protocol import AskHint, TookOff
from controller.referee.session import Session
from controller.referee.state import BoardCheck, RefereeState, Reply, Step


def act(state: RefereeState, session: Session, order: Command, now: float) -> Step:
    """Carry out ``order``, one of the game's own commands the guard let through."""
    kind, game = session.kind, session.game
    watch = state.comparison
    hold = watch.settling
    events: tuple[Event, ...] = ()
    notes: tuple[Message, ...] = ()
    falling = hold is not None and not hold.held.undoes
    if hold is not None and falling:
        # A deliberate press says the board has settled: the pieces gone count now.
        events, notes = hold.held.events, hold.held.said
        game = fold(kind, game, events)
    answer = kind.act(game, order, prompts.scene(state))
    if isinstance(answer, AskHint):
        return computer_seat.ask_hint(state)
    if isinstance(answer, TookOff):
        rest = dataclasses.replace(watch, removals=watch.removals[1:])
        return Step(dataclasses.replace(state, comparison=rest), reply=Reply(True, answer.said))
    new = fold(kind, game, answer.events)
    notes += answer.said
    reply = Reply(True, notes[-1] if notes else None)
    if session.game.over:  # the result stands: only the position changes
        finished = dataclasses.replace(state, session=session.with_game(new))
        if not new.pending:  # the last pieces are placed: on to the winner's sweep
            sweep = progress.sweep(state.animations, state, now)
            finished = dataclasses.replace(finished, animations=sweep)
        return Step(finished, reply=reply)
    step = progress.advance(state, session, new, (*events, *answer.events), notes, now,
                            fresh=answer.fresh)  # fmt: skip
    after = step.state
    if falling:
        after = dataclasses.replace(
            after, comparison=BoardCheck(armed=True, last_move_at=watch.last_move_at)
        )
    return Step(after, step.commit, step.effects, reply)

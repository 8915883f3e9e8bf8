"""Store first, then adopt: how every step of the referee meets the store.

A step's events are written (and a new game created) before its state is adopted, so
nothing is shown that is not on disk; when the store cannot write, the referee keeps the
state it had and says so (:func:`controller.referee.referee.failed`). The Table carries
its steps through :func:`carry` with the real :class:`~controller.store.Store`; the
referee's tests with their own ledger.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from controller.referee import referee
from controller.referee.events import Event, Result
from controller.referee.state import Referee, Step
from controller.store import PlayerRecord, StoreError, StoreWriteError, write_fault

log = logging.getLogger(__name__)


class Ledger(Protocol):
    """What the referee needs of a store."""

    def create_game(
        self,
        game: str,
        players: Sequence[PlayerRecord],
        options: dict[str, str | int],
        *,
        children_help: bool,
    ) -> int: ...

    def append(
        self, game_id: int, events: Sequence[Event], *, result: Result | None = None
    ) -> object: ...


def carry(before: Referee, step: Step, ledger: Ledger, now: float) -> Step:
    """``step`` as it may be adopted: what it stored (or why nothing was)."""
    if step.create is not None:
        setup = step.create
        try:
            game_id = ledger.create_game(
                setup.kind,
                [p.record() for p in setup.players],
                setup.options.to_dict(),
                children_help=setup.children_help,
            )
        except StoreError as exc:
            log.error("could not start a game: %s", exc)
            return referee.failed(before, step, _fault(exc), now)
        started = referee.stored(step.state)
        return carry(started, referee.begin(started, setup, game_id, now), ledger, now)
    commit = step.commit
    if commit is None:
        return step
    try:
        ledger.append(commit.game_id, commit.events, result=commit.result)
    except StoreError as exc:
        log.error("could not store %s: %s", [e.kind for e in commit.events], exc)
        return referee.failed(before, step, _fault(exc), now)
    return Step(referee.stored(step.state), commit, step.effects, step.reply)


def _fault(exc: StoreError) -> str:
    return exc.fault if isinstance(exc, StoreWriteError) else write_fault(exc)

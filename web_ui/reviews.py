"""The computer's look back at a finished Perlen-Pyramide game: what each move cost.

``controller.bot.review(record)`` gives, for every move, the best cell and the loss (how
many points of their own final score the mover gave away). It takes seconds, so it runs
on one background thread, one game at a time, and the result is kept in memory. A game
is queued the moment it ends (:func:`on_game_over`, called with each snapshot the live
page's hub passes on), or when its replay is first opened; the replay page asks for
the moves again until the review is there (``GET /history/<id>/moves``). Reviews change
nothing, so they need no PIN; the single worker and the bounded queue keep a curious
visitor from loading the Pi.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

from flask import current_app

from controller.referee.snapshot import Snapshot
from controller.rules.records import PERLEN, PerlenRecord, RecordError, parse_record
from controller.store import Store, StoredGame

if TYPE_CHECKING:
    from controller.bot import MoveReview

log = logging.getLogger("web_ui")

BUDGET_PER_MOVE: Final = 0.25
"""Seconds of thought per move: a 25-move game is reviewed in well under ten seconds."""
QUEUE: Final = 4
KEEP: Final = 64


@dataclass(frozen=True, slots=True)
class MoveLoss:
    number: int
    colour: int
    played: str
    best: str
    loss: float


@dataclass(frozen=True, slots=True)
class Review:
    state: str
    """``working``, ``ready``, ``busy`` (queue full: try later) or ``failed``."""
    moves: tuple[MoveLoss, ...] = ()

    def loss_of(self, number: int) -> MoveLoss | None:
        for move in self.moves:
            if move.number == number:
                return move
        return None


class ReviewFunction(Protocol):
    """What ``controller.bot.review`` is: every move of a record against the best one."""

    def __call__(
        self,
        record: PerlenRecord,
        *,
        budget_per_move: float = ...,
        cancel: threading.Event | None = ...,
    ) -> Sequence[MoveReview]: ...


def _review_function() -> ReviewFunction | None:
    try:
        from controller import bot
    except ImportError:
        return None
    return bot.review


class Reviewer:
    """One worker thread and a small cache of finished reviews, by game id."""

    def __init__(self, budget_per_move: float = BUDGET_PER_MOVE) -> None:
        self.budget_per_move = budget_per_move
        self.cancel = threading.Event()
        """Set when the app closes: a review in progress gives up."""
        self._lock = threading.Lock()
        self._done: dict[int, Review] = {}
        self._queue: queue.Queue[tuple[int, dict[str, Any]]] = queue.Queue(QUEUE)
        self._thread: threading.Thread | None = None

    def stop(self) -> None:
        self.cancel.set()

    def known(self, game_id: int) -> bool:
        """Whether ``game_id`` is reviewed, being reviewed or queued."""
        with self._lock:
            return game_id in self._done

    def get(self, game_id: int, record: dict[str, Any]) -> Review:
        with self._lock:
            known = self._done.get(game_id)
            if known is not None:
                return known
            try:
                self._queue.put_nowait((game_id, record))
            except queue.Full:
                return Review("busy")
            self._done[game_id] = Review("working")
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="web-review", daemon=True)
                self._thread.start()
            return self._done[game_id]

    def _run(self) -> None:
        while not self.cancel.is_set():
            try:
                game_id, raw = self._queue.get(timeout=1.0)
            except queue.Empty:
                continue
            review_fn = _review_function()
            try:
                record = parse_record(raw)
                if review_fn is None:
                    raise TypeError("controller.bot offers no review")
                if not isinstance(record, PerlenRecord):
                    raise TypeError(f"only Perlen-Pyramide is reviewed: {type(record).__name__}")
                moves = tuple(
                    MoveLoss(m.number, m.colour, m.played.short, m.best.short, m.loss)
                    for m in review_fn(
                        record, budget_per_move=self.budget_per_move, cancel=self.cancel
                    )
                )
                result = Review("ready", moves)
            except (RecordError, ValueError, TypeError, AttributeError):
                log.exception("review of game %d failed", game_id)
                result = Review("failed")
            except Exception:  # the worker must live on: a page would wait for ever
                log.exception("review of game %d failed unexpectedly", game_id)
                result = Review("failed")
            if self.cancel.is_set():
                return
            with self._lock:
                self._done[game_id] = result
                while len(self._done) > KEEP:
                    self._done.pop(next(iter(self._done)))


def reviewable(game: StoredGame) -> bool:
    """A finished Perlen-Pyramide game with its record, and the computer to review it."""
    return (
        game.game == PERLEN
        and game.summary.status == "over"
        and bool(game.record)
        and _review_function() is not None
    )


def review_for(game: StoredGame) -> Review | None:
    """The review of a stored game, if one applies (a finished Perlen-Pyramide game)."""
    if not reviewable(game):
        return None
    reviewer: Reviewer = current_app.extensions["pyramid"].reviewer
    return reviewer.get(game.id, dict(game.record))


def on_game_over(reviewer: Reviewer, store: Store, snapshot: Snapshot) -> None:
    """Queue the review of the game ``snapshot`` shows, once it is over and stored so, so
    that it is ready by the time someone opens the replay (the hub's thread calls this
    with every snapshot; a game already queued costs a look-up)."""
    game_id = snapshot.game_id
    if snapshot.status != "over" or snapshot.game != PERLEN or game_id is None:
        return
    if reviewer.known(game_id):
        return
    stored = store.game(game_id)
    if stored is not None and reviewable(stored):
        reviewer.get(game_id, dict(stored.record))

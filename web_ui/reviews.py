"""The computer's look back at a finished game: what each move cost.

A game's view says whether and how its games are reviewed
(:attr:`~web_ui.games.view.GameView.review`: Perlen-Pyramide's gives, for every move, the
best cell and the loss, how many points of their own final score the mover gave away, when
the computer is sure of it). The review is a fixed amount of work, planned at a reference
speed rather than this machine's, and does all of it, so the same game, mirrored or
turned, gets the same review on any machine, on a busy Pi too, and again after a
restart: reviews are kept in memory only, and a restart reviews a game afresh. It takes
seconds (more on a slower machine), so it runs on one background thread, one game at a
time. A game is queued the moment it ends (:func:`on_game_over`, called with
each snapshot the live page's hub passes on), or when its replay is first opened; the
replay page asks for the moves again until the review is there (``GET
/history/<id>/moves``). Reviews change nothing, so they need no PIN; the single worker
and the bounded queue keep a curious visitor from loading the Pi.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from flask import current_app

from controller.referee.snapshot import Snapshot
from controller.rules.records import RecordError, parse_record
from controller.store import StoredGame
from controller.store.history import History
from web_ui.games.view import GameView, MoveLoss
from web_ui.games.view import Review as Reviewing

log = logging.getLogger("web_ui")

BUDGET_PER_MOVE: Final = 0.25
"""Seconds of thought per move at the review's reference speed (a fixed amount of work):
a 25-move game takes about a second on the development machine and three or four times
as long on a Pi 4 (docs/performance.md, "The review")."""
QUEUE: Final = 4
KEEP: Final = 64


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


class Reviewer:
    """One worker thread and a small cache of finished reviews, by game id."""

    def __init__(self, budget_per_move: float = BUDGET_PER_MOVE) -> None:
        self.budget_per_move = budget_per_move
        self.cancel = threading.Event()
        """Set when the app closes: a review in progress gives up."""
        self._lock = threading.Lock()
        self._done: dict[int, Review] = {}
        self._queue: queue.Queue[tuple[int, dict[str, Any], GameView]] = queue.Queue(QUEUE)
        self._thread: threading.Thread | None = None

    def stop(self) -> None:
        self.cancel.set()

    def known(self, game_id: int) -> bool:
        """Whether ``game_id`` is reviewed, being reviewed or queued."""
        with self._lock:
            return game_id in self._done

    def get(self, game_id: int, record: dict[str, Any], view: GameView) -> Review:
        with self._lock:
            known = self._done.get(game_id)
            if known is not None:
                return known
            try:
                self._queue.put_nowait((game_id, record, view))
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
                game_id, raw, view = self._queue.get(timeout=1.0)
            except queue.Empty:
                continue
            try:
                review: Reviewing | None = view.review
                if review is None:
                    raise TypeError(f"{view.name} games are not reviewed")
                record = parse_record(raw, {view.name: view.kind.read_record})
                moves = tuple(review(record, self.budget_per_move, self.cancel))
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


def _view(views: Mapping[str, GameView], game: str | None) -> GameView | None:
    """The view of ``game`` if the computer reviews its games."""
    view = views.get(game) if game is not None else None
    return view if view is not None and view.reviewed else None


def reviewable(game: StoredGame, views: Mapping[str, GameView]) -> GameView | None:
    """The view that reviews ``game``: a finished game with its record, of a game the
    computer reviews; else None."""
    view = _view(views, game.game)
    if view is None or game.summary.status != "over" or not game.record:
        return None
    return view


def review_for(game: StoredGame) -> Review | None:
    """The review of a stored game, if one applies (a finished game the computer reviews)."""
    state = current_app.extensions["pyramid"]
    view = reviewable(game, state.views)
    if view is None:
        return None
    reviewer: Reviewer = state.reviewer
    return reviewer.get(game.id, dict(game.record), view)


def on_game_over(
    reviewer: Reviewer, history: History, views: Mapping[str, GameView], snapshot: Snapshot
) -> None:
    """Queue the review of the game ``snapshot`` shows, once it is over and stored so, so
    that it is ready by the time someone opens the replay (the hub's watch calls this
    with every snapshot; a game already queued costs a look-up)."""
    game_id = snapshot.game_id
    if snapshot.status != "over" or _view(views, snapshot.game) is None or game_id is None:
        return
    if reviewer.known(game_id):
        return
    stored = history.game(game_id)
    view = reviewable(stored, views) if stored is not None else None
    if stored is not None and view is not None:
        reviewer.get(game_id, dict(stored.record), view)

"""The page's definition of one game: its :class:`GameView`.

The referee defines each game once (a :class:`~controller.referee.game.GameKind`); the
page adds one view to each, in the manner of a boardgame.io game's board component: its
board drawings and score bars, what its live page adds, its template of macros (its
board, its score heading, its buttons, how a piece is put back, its rules, its setup
fields …), the template folder they live in, the helpers its templates call, the
pictures of its rules and, where the computer reviews its games, the review. A game the
page has no view for gets :func:`plain_view`: its players' points and nothing drawn.

>>> from controller.games.registry import GAMES
>>> view = plain_view(GAMES["pyramidos"])
>>> view.piece, view.fixed_seats, view.template
('ball', None, '_game_plain.html')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from controller.referee.game import GameKind
from controller.referee.snapshot import PlayerView, Snapshot
from controller.rules.records import Record
from web_ui.drawing import ScoreBar, Swatch, points_bars


@dataclass(frozen=True, slots=True)
class MoveLoss:
    """One move of a finished game as the computer's review saw it."""

    number: int
    colour: int
    played: str
    best: str
    """The best move found: ``played`` itself when it is as good."""
    loss: float
    """What the mover gave away with it, in the game's points: above 0 only when the
    computer is sure of it. 0 with ``best`` another move: about as good as the best (the
    computer cannot tell it is worse)."""


class Review(Protocol):
    """What a game's review is: every move of a record against the best one, thinking at
    most ``budget_per_move`` seconds a move, stopping early when ``cancel`` is set."""

    def __call__(
        self, record: Record, budget_per_move: float, cancel: Any
    ) -> Sequence[MoveLoss]: ...


def _nothing(snapshot: Snapshot) -> dict[str, Any]:
    return {}


def _no_more(snapshot: Snapshot, palette: Sequence[Swatch]) -> dict[str, Any]:
    return {}


def _bare(snapshot: Snapshot) -> bool:
    return not snapshot.points or not any(snapshot.points)


@dataclass(frozen=True, slots=True)
class GameView:
    """How the page shows one game."""

    kind: GameKind
    """The referee's definition of the game (its name, its seats, its pieces …)."""
    template: str
    """Its macros (a file name no other game uses): ``board``, ``score_heading``,
    ``buttons``, ``clear_label``, ``put_back``, ``status_note``, ``todo``, ``bar_todo``
    (what is owed, in one short line for the phone's bar; empty: the prompt),
    ``record_heading``, ``step_said`` (a review step's move in words), ``points_heading``,
    ``tagline``, ``rules``, ``rules_nav``,
    ``setup_fields``, ``command_button`` (its own game buttons on the page)."""
    folder: Path | None = None
    """Where its templates live (the page's template loader looks there too)."""
    drawings: Callable[[Snapshot], dict[str, Any]] = _nothing
    """The board's geometry for its ``board`` macro, by name."""
    score_bars: Callable[[Snapshot], tuple[ScoreBar, ...]] = field(
        default=lambda snapshot: points_bars(snapshot, max(snapshot.points or (0,)) or 1)
    )
    bare: Callable[[Snapshot], bool] = _bare
    """No piece of the game is on the board (so a clear-up takes everything off)."""
    places: frozenset[str] = frozenset()
    """The places its board drawing shows (cells, targets): a piece the sensors report
    anywhere else is listed beside the drawing (none for a game it does not draw)."""
    context: Callable[[Snapshot, Sequence[Swatch]], dict[str, Any]] = _no_more
    """What its live templates need beyond the shared context (the bonus pearls to place
    and to take off …), worked out once per snapshot."""
    helpers: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    """Functions its templates call, by name (template globals; no two games may share a
    name)."""
    pictures: Callable[[tuple[PlayerView, ...]], object] = lambda players: None
    """The pictures of its rules page section, drawn with these players' colours (the
    ``rules`` macro's argument)."""
    review: Review | None = None
    """The computer's review of its finished games, or None."""
    forced: Callable[[Snapshot], bool] = lambda snapshot: False
    """Whether the move that led to ``snapshot`` was the only one the mover had (the
    review never praises it as the best)."""
    left_over: Callable[[int], str] | None = None
    """The sentence saying that ``count`` of its pieces lie on the board while another game
    is played (the live page lists them beside that game's drawing), or None: the page
    then says "pieces the game does not have"."""

    @property
    def name(self) -> str:
        """The game's name in the store, the API and the snapshot (``perlen-pyramide``)."""
        return self.kind.name

    @property
    def piece(self) -> str:
        """What its pieces are called (``pearl``, ``ball``), for the referee's words."""
        return self.kind.piece

    @property
    def fixed_seats(self) -> int | None:
        """The number of players when the game takes exactly so many, else None (the
        setup page then asks how many)."""
        seats = self.kind.seats
        return seats.start if len(seats) == 1 else None

    @property
    def reviewed(self) -> bool:
        """The computer reviews its finished games move by move."""
        return self.review is not None


def plain_view(kind: GameKind) -> GameView:
    """The view of a game the page has none for: its players' points, nothing drawn."""
    return GameView(kind, "_game_plain.html")

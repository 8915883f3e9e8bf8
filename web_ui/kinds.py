"""How the page shows each kind of game: the one place in ``web_ui`` that tells
Perlen-Pyramide and Pyramidos apart.

The referee defines each game once (:data:`controller.referee.kinds.KINDS`); the page
adds one :class:`GameView` to each: its board drawings, its score bars, whether the
computer reviews its games, and ``template``, a file of Jinja
macros with the page's parts that differ (its board, its score heading, its virtual
buttons, how a piece is put back…), in the manner of a boardgame.io game's board
component. Views and templates ask :data:`GAME_VIEWS` (or :func:`view_of`) instead of
comparing game names.

>>> view_of("pyramidos").piece, view_of("perlen-pyramide").fixed_seats
('ball', 3)
>>> view_of("pyramidos").fixed_seats is None, view_of(None) is None
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from controller.referee import KINDS, GameKind, Snapshot
from controller.rules.records import PERLEN, PYRAMIDOS
from web_ui import drawing


@dataclass(frozen=True, slots=True)
class GameView:
    """The page's definition of one kind of game."""

    kind: GameKind
    """The referee's definition of the game (its name, its seats, its pieces …)."""
    template: str
    """Its macros: ``board``, ``score_heading``, ``buttons``, ``clear_label``,
    ``put_back``, ``status_note``, ``record_heading``, ``points_heading``, ``tagline``."""
    reviewed: bool
    """The computer reviews its finished games move by move."""
    drawings: Callable[[Snapshot], dict[str, Any]]
    """The board's geometry for its ``board`` macro, by name."""
    score_bars: Callable[[Snapshot], tuple[drawing.ScoreBar, ...]]
    bare: Callable[[Snapshot], bool]
    """No piece of the game is on the board (so a clear-up takes everything off)."""

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


def _perlen_drawings(snapshot: Snapshot) -> dict[str, Any]:
    return {"layers": drawing.layers_view(snapshot), "side": drawing.side_view(snapshot)}


def _pyramidos_drawings(snapshot: Snapshot) -> dict[str, Any]:
    return {"pyr": drawing.pyramidos_view(snapshot)}


GAME_VIEWS: Final[Mapping[str, GameView]] = {
    view.name: view
    for view in (
        GameView(
            kind=KINDS[PERLEN],
            template="_game_perlen.html",
            reviewed=True,
            drawings=_perlen_drawings,
            score_bars=drawing.perlen_bars,
            bare=lambda snapshot: not snapshot.pearls,
        ),
        GameView(
            kind=KINDS[PYRAMIDOS],
            template="_game_pyramidos.html",
            reviewed=False,
            drawings=_pyramidos_drawings,
            score_bars=drawing.pyramidos_bars,
            bare=lambda snapshot: all(owner is None for owner in snapshot.targets.values()),
        ),
    )
}
"""Every game the page shows, in the order it offers them: each of the referee's."""


def view_of(game: object) -> GameView | None:
    """The view of ``game`` (a game's name), or None for no game or an unknown one."""
    return GAME_VIEWS.get(game) if isinstance(game, str) else None

"""How the page shows each kind of game: the one place in ``web_ui`` that tells
Perlen-Pyramide and Pyramidos apart.

Each game has one :class:`GameView`: what its board drawings are, its score bars, the
word for its pieces, how many seats it takes, whether the computer reviews its games,
and ``template``, a file of Jinja macros with the page's parts that differ (its board,
its score heading, its virtual buttons, how a piece is put back…), in the manner of a
boardgame.io game's board component. Views and templates ask :data:`GAME_VIEWS` (or
:func:`view_of`) instead of comparing game names.

>>> view_of("pyramidos").piece, view_of("perlen-pyramide").seats
('ball', (3, 3))
>>> view_of(None) is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from controller.referee import Snapshot
from controller.rules import perlen, pyramidos
from controller.rules.records import PERLEN, PYRAMIDOS
from web_ui import drawing


@dataclass(frozen=True, slots=True)
class GameView:
    """The page's definition of one kind of game."""

    name: str
    """The game's name in the store, the API and the snapshot (``perlen-pyramide``)."""
    template: str
    """Its macros: ``board``, ``score_heading``, ``buttons``, ``clear_label``,
    ``put_back``, ``status_note``, ``record_heading``, ``points_heading``, ``tagline``."""
    piece: str
    """What its pieces are called (``pearl``, ``ball``), for the referee's words."""
    seats: tuple[int, int]
    """The fewest and the most players."""
    reviewed: bool
    """The computer reviews its finished games move by move."""
    drawings: Callable[[Snapshot], dict[str, Any]]
    """The board's geometry for its ``board`` macro, by name."""
    score_bars: Callable[[Snapshot], tuple[drawing.ScoreBar, ...]]
    bare: Callable[[Snapshot], bool]
    """No piece of the game is on the board (so a clear-up takes everything off)."""


def _perlen_drawings(snapshot: Snapshot) -> dict[str, Any]:
    return {"layers": drawing.layers_view(snapshot), "side": drawing.side_view(snapshot)}


def _pyramidos_drawings(snapshot: Snapshot) -> dict[str, Any]:
    return {"pyr": drawing.pyramidos_view(snapshot)}


GAME_VIEWS: Final[Mapping[str, GameView]] = {
    view.name: view
    for view in (
        GameView(
            name=PERLEN,
            template="_game_perlen.html",
            piece="pearl",
            seats=(perlen.COLOURS, perlen.COLOURS),
            reviewed=True,
            drawings=_perlen_drawings,
            score_bars=drawing.perlen_bars,
            bare=lambda snapshot: not snapshot.pearls,
        ),
        GameView(
            name=PYRAMIDOS,
            template="_game_pyramidos.html",
            piece="ball",
            seats=(pyramidos.MIN_SEATS, pyramidos.MAX_SEATS),
            reviewed=False,
            drawings=_pyramidos_drawings,
            score_bars=drawing.pyramidos_bars,
            bare=lambda snapshot: all(owner is None for owner in snapshot.targets.values()),
        ),
    )
}
"""Every game the page shows, in the order it offers them."""


def view_of(game: object) -> GameView | None:
    """The view of ``game`` (a game's name), or None for no game or an unknown one."""
    return GAME_VIEWS.get(game) if isinstance(game, str) else None

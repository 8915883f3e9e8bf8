"""Pyramidos' :class:`~web_ui.games.view.GameView`: the targets from above and the points.

>>> PYRAMIDOS_VIEW.name, PYRAMIDOS_VIEW.fixed_seats, PYRAMIDOS_VIEW.reviewed
('pyramidos', None, False)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from controller.games.pyramidos import rules as pyramidos
from controller.games.pyramidos.kind import PYRAMIDOS
from controller.games.pyramidos.snapshot import parts_of
from controller.referee.showing import position
from controller.referee.snapshot import PlayerView, Snapshot
from controller.vocabulary import TARGETS
from web_ui.games.pyramidos import drawing, labels
from web_ui.games.view import GameView


def _drawings(snapshot: Snapshot) -> dict[str, Any]:
    return {"pyr": drawing.board_view(snapshot)}


def _pictures(players: tuple[PlayerView, ...]) -> drawing.BoardView:
    """The rules page's picture: four base balls down, the top open."""
    players = players[:3]
    board = pyramidos.new_game(3)
    for text in ("land t1", "land t2", "land t3", "land t4"):
        board = pyramidos.apply(board, pyramidos.parse_event(text))
    return drawing.board_view(position(players, PYRAMIDOS, board, board.options))


PYRAMIDOS_VIEW: Final = GameView(
    kind=PYRAMIDOS,
    template="_game_pyramidos.html",
    folder=Path(__file__).parent / "templates",
    drawings=_drawings,
    score_bars=drawing.score_bars,
    bare=lambda snapshot: all(owner is None for owner in parts_of(snapshot).targets.values()),
    places=frozenset(TARGETS),
    helpers={"target_label": labels.target_label, "target_name": labels.target_name},
    pictures=_pictures,
    left_over=labels.left_over,
)
"""Pyramidos, as the page shows it."""

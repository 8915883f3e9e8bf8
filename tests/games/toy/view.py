"""The third game's page: its view and its template folder, outside ``web_ui`` (as any
game's may be: the page's loader looks in the folder a view names)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from tests.games.toy.game import THREE_IN_A_ROW
from web_ui.games.view import GameView

ROW_VIEW: Final = GameView(
    kind=THREE_IN_A_ROW,
    template="_game_row.html",
    folder=Path(__file__).parent / "templates",
)

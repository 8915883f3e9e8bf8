"""The games the page can show, each with its view: the one place in ``web_ui`` that
names them. Only the composition root (:mod:`pyramid_board.run`) imports it and hands
them to ``web_ui.create_app`` (tests may add a view of their own).

>>> list(VIEWS)
['perlen-pyramide', 'pyramidos']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from web_ui.games.perlen.view import PERLEN_VIEW
from web_ui.games.pyramidos.view import PYRAMIDOS_VIEW
from web_ui.games.view import GameView

VIEWS: Final[Mapping[str, GameView]] = {view.name: view for view in (PERLEN_VIEW, PYRAMIDOS_VIEW)}
"""Every game's view, by name."""

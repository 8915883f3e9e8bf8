"""The games this product plays and how the page shows them: the composition root's two
lists, handed down to everything that plays or shows games (the Table, the remote seats,
the page, ``pyramid replay``). Nothing below :mod:`pyramid_board` imports the registries
(``tests/test_layers.py`` checks); the benchmarks take the lists from here too.

Each list is loaded on its first call only, so that ``pyramid --help`` stays light.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.referee import GameKind
    from web_ui.games.view import GameView


def games() -> Mapping[str, GameKind]:
    """The games this product plays (:mod:`controller.games.registry`), for the commands
    that play them (``args.games()``)."""
    # Every game's rules, loaded only when a command plays one: `pyramid --help` stays light.
    from controller.games.registry import GAMES

    return GAMES


def views() -> Mapping[str, GameView]:
    """How the page shows each game (:mod:`web_ui.games.registry`), for ``pyramid run``."""
    # The page's drawings of every game, loaded only when the page is served.
    from web_ui.games.registry import VIEWS

    return VIEWS

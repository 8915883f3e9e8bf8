"""The games this product plays: the one place that names them.

Only the composition root imports it (:mod:`pyramid_board`: ``pyramid run`` and the
commands that play games, through :func:`pyramid_board.games.games`), and hands
:data:`GAMES` to the Table (:attr:`~controller.table.TableSettings.games`, which the
referee gets as :attr:`~controller.referee.state.RefereeConfig.games`), the remote seats
and the page; below the root every module is handed the games it plays
(``tests/test_layers.py`` checks; the tests and benchmarks, roots of their own, import
it too). Adding a game is a package under :mod:`controller.games` and a line here
(``docs/architecture.md``, "Adding a game").

>>> list(GAMES)
['perlen-pyramide', 'pyramidos']
>>> parse_record('{"game": "pyramidos", "seats": 2, "events": ["land t1"]}').summary()["points"]
[1, 0]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from controller.games.perlen.kind import PERLEN_PYRAMIDE
from controller.games.pyramidos.kind import PYRAMIDOS
from controller.referee.game import GameKind
from controller.rules import records

GAMES: Final[Mapping[str, GameKind]] = {kind.name: kind for kind in (PERLEN_PYRAMIDE, PYRAMIDOS)}
"""Every game, by name, in the order the setup page offers them."""


def parse_record(
    source: str | bytes | Mapping[str, Any], games: Mapping[str, GameKind] = GAMES
) -> records.Record:
    """A record of any of ``games`` (:func:`controller.rules.records.parse_record`)."""
    return records.parse_record(source, {name: kind.read_record for name, kind in games.items()})

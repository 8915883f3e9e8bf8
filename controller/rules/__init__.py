"""The rules core every game shares: board notation and game records; pure, typed,
standard library only (each game's own rules are in :mod:`controller.games`).

Everything else (the Table, the web page, the computer player, the command line) depends
on this package; it depends on nothing but the standard library.
"""

from controller.rules.notation import (
    APEX,
    BASE,
    POSITIONS,
    NotationError,
    Position,
    Target,
    parse_cell,
    parse_position,
    parse_target,
)

__all__ = [
    "APEX",
    "BASE",
    "POSITIONS",
    "NotationError",
    "Position",
    "Target",
    "parse_cell",
    "parse_position",
    "parse_target",
]

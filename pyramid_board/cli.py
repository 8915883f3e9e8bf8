"""The ``pyramid`` command line: ``pyramid run|diag|replay|flash|...``.

Each subcommand lives in its own module and offers ``register(subparsers)``: ``pyramid
run`` is the composition root (:mod:`pyramid_board.run`), the others are the
controller's tools (:mod:`controller.commands`). This module only assembles them, so
importing it does no work. A command that plays games is handed them as ``args.games``
(:func:`games`): nothing below this package picks the list.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.referee import GameKind

# Subcommand modules, in the order ``pyramid --help`` lists them.
COMMANDS: tuple[str, ...] = (
    "pyramid_board.run",
    "controller.commands.replay",
    "controller.commands.diag",
    "controller.commands.flash",
    "controller.commands.pin",
    "controller.commands.label",
)


def games() -> Mapping[str, GameKind]:
    """The games this product plays (:mod:`controller.games.registry`), for the commands
    that play them (``args.games()``)."""
    # Every game's rules, loaded only when a command plays one: `pyramid --help` stays light.
    from controller.games.registry import GAMES

    return GAMES


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pyramid",
        description="Guide and score wooden pyramid games on a sensor board.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(name).register(subparsers)
    parser.set_defaults(games=games)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    status: int = args.handler(args)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""The ``pyramid`` command line: ``pyramid run|diag|replay|flash|...``.

Each subcommand lives in its own module and offers ``register(subparsers)``: ``pyramid
run`` is the composition root (:mod:`pyramid_board.run`), the others are the
controller's tools (:mod:`controller.cli`). This module only assembles them, so
importing it does no work. A command that plays games is handed them as ``args.games``
(:func:`pyramid_board.games.games`): nothing below this package picks the list.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from pyramid_board.games import games

# Subcommand modules, in the order ``pyramid --help`` lists them.
COMMANDS: tuple[str, ...] = (
    "pyramid_board.run",
    "controller.cli.replay",
    "controller.cli.diag",
    "controller.cli.flash",
    "controller.cli.pin",
    "controller.cli.label",
)


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

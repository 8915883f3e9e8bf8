"""The ``pyramid`` command line: ``pyramid run|diag|replay|flash|...``.

Each subcommand lives in its own module under :mod:`controller.commands` and offers
``register(subparsers)``; this module only assembles them, so importing it does no work.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Subcommand modules, in the order ``pyramid --help`` lists them.
COMMANDS: tuple[str, ...] = ("run", "replay", "diag", "flash", "pin")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pyramid",
        description="Guide and score Perlen-Pyramide and Pyramidos on a sensor board.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"controller.commands.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    status: int = args.handler(args)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

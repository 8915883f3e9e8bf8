"""``pyramid replay FILE [--json]``: play a game record through and show the result.

``pyramid replay --store FILE [--game N]`` replays a game of the store instead (the
newest by default): its stored events folded by the referee's own vocabulary
(:mod:`controller.referee.events`), exactly as a resume after a restart does.

With ``--json`` exactly one JSON object goes to standard output (other programs read it).
A record that cannot be read or played exits with status 2, prints nothing on standard
output, and says on standard error which move failed and why.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from controller.referee import GameKind
from controller.referee.events import EventError
from controller.referee.fold import record_of
from controller.rules.records import OptionError, Record, RecordError, ReplayError, parse_record
from controller.store import Store, StoreError

MAX_RECORD_BYTES = 1_000_000


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="replay a game record and show the pyramid and scores",
        description="Replay a JSON game record (use - for standard input).",
    )
    parser.add_argument("file", nargs="?", help="the record, or - to read standard input")
    parser.add_argument("--store", type=Path, help="replay a game of this game store instead")
    parser.add_argument("--game", type=int, help="with --store: the game's number (the newest)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--colour",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the drawing (default: when writing to a terminal)",
    )
    parser.set_defaults(handler=run)


def _read(path: str) -> str:
    if path == "-":
        text = sys.stdin.read(MAX_RECORD_BYTES + 1)
    else:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(MAX_RECORD_BYTES + 1)
    if len(text) > MAX_RECORD_BYTES:
        raise RecordError(f"larger than {MAX_RECORD_BYTES} bytes; not a game record")
    return text


def _stored_record(path: Path, number: int | None, games: Mapping[str, GameKind]) -> Record:
    """The record of game ``number`` (the newest) of the store at ``path``, by the fold."""

    if not path.is_file():
        raise RecordError(f"there is no game store at {path}")
    try:
        with Store(path) as store:
            if number is None:
                latest = store.games(limit=1)
                if not latest:
                    raise RecordError("the store holds no game")
                number = latest[0].id
            game = store.game(number)
    except StoreError as exc:
        raise RecordError(str(exc)) from None
    if game is None:
        raise RecordError(f"the store holds no game {number}")
    names = tuple(p.name for p in game.players)
    kind = games.get(game.game)
    if kind is None:
        raise RecordError(f"game {number} is of {game.game!r}, which this version does not know")
    try:
        return record_of(kind, names, game.options, game.events)
    except (EventError, OptionError) as exc:
        raise RecordError(f"game {number}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    if (args.file is None) == (args.store is None):
        print("pyramid replay: give a record FILE (or -), or --store FILE", file=sys.stderr)
        return 2
    source = args.file if args.store is None else str(args.store)
    games: Mapping[str, GameKind] = args.games()  # the composition root's (pyramid_board.games)
    try:
        if args.store is not None:
            record = _stored_record(args.store, args.game, games)
        else:
            readers = {name: kind.read_record for name, kind in games.items()}
            record = parse_record(_read(args.file), readers)
        result = record.summary()
    except OSError as exc:
        print(f"pyramid replay: cannot read {source}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except (RecordError, ReplayError, UnicodeDecodeError) as exc:
        print(f"pyramid replay: {source}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
        return 0
    colour = args.colour == "always" or (
        args.colour == "auto" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    )
    *_, last = record.steps()
    sys.stdout.write(games[record.game].drawn(last.state, colour=colour))
    return 0

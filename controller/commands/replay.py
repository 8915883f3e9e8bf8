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
from pathlib import Path
from typing import TextIO

from controller.rules import perlen, pyramidos
from controller.rules.notation import FILES, LAYERS, POSITIONS, Target, layer_size
from controller.rules.records import (
    PerlenRecord,
    Record,
    RecordError,
    ReplayError,
    parse_record,
    replay_perlen,
    replay_pyramidos,
    summary,
)

MAX_RECORD_BYTES = 1_000_000

# Colour letters and ANSI colours for a terminal; letters keep it readable without colour.
LETTERS = "RBYG"
ANSI = ("\x1b[1;31m", "\x1b[1;34m", "\x1b[1;33m", "\x1b[1;32m")
RESET = "\x1b[0m"


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


def _stored_record(path: Path, number: int | None) -> Record:
    """The record of game ``number`` (the newest) of the store at ``path``, by the fold."""
    from controller.referee.events import EventError, record_of
    from controller.store import Store, StoreError

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
    try:
        return record_of(game.game, names, game.options, game.events)
    except (EventError, perlen.OptionError, pyramidos.SetupError) as exc:
        raise RecordError(f"game {number}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    if (args.file is None) == (args.store is None):
        print("pyramid replay: give a record FILE (or -), or --store FILE", file=sys.stderr)
        return 2
    source = args.file if args.store is None else str(args.store)
    try:
        if args.store is not None:
            record = _stored_record(args.store, args.game)
        else:
            record = parse_record(_read(args.file))
        result = summary(record)
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
    if isinstance(record, PerlenRecord):
        draw_perlen(replay_perlen(record).state, sys.stdout, colour=colour)
    else:
        draw_pyramidos(replay_pyramidos(record), sys.stdout, colour=colour)
    return 0


def _pearl(colour_number: int | None, colour: bool) -> str:
    if colour_number is None:
        return "·"
    letter = LETTERS[colour_number]
    return f"{ANSI[colour_number]}{letter}{RESET}" if colour else letter


def draw_perlen(state: perlen.PerlenState, out: TextIO, *, colour: bool = False) -> None:
    """Each layer from above (rank 5 at the top, as seen from player 1), then the scores."""
    for layer in range(1, LAYERS + 1):
        n = layer_size(layer)
        out.write(f"layer {layer}\n")
        for rank in reversed(range(n)):
            cells = [
                _pearl(state.colour_at(p), colour)
                for p in POSITIONS
                if p.layer == layer and p.rank == rank
            ]
            out.write(f"  {rank + 1} " + " ".join(cells) + "\n")
        out.write("    " + " ".join(FILES[:n]) + "\n")
    result = perlen.outcome(state)
    pools = state.pools_left()
    for c in range(perlen.COLOURS):
        pool = "" if pools[c] is None else f", {pools[c]} left in the pool"
        out.write(
            f"colour {c} ({_pearl(c, colour)}): {result.visible[c]} visible, "
            f"{result.totals[c]} in all{pool}\n"
        )
    if result.over:
        names = " and ".join(f"colour {c}" for c in result.winners)
        out.write(f"winner: {names}\n" if len(result.winners) == 1 else f"shared win: {names}\n")
    else:
        out.write(f"colour {state.to_move} to move\n")


def draw_pyramidos(state: pyramidos.PyramidosState, out: TextIO, *, colour: bool = False) -> None:
    """The four base targets around the top, then the points."""

    def at(target: Target) -> str:
        owner = state.owner(target)
        return f"{target}:{_pearl(owner, colour)}"

    out.write(f"      {at(Target.TOP)}\n")
    out.write(f"  {at(Target.T1)}  {at(Target.T2)}  {at(Target.T3)}  {at(Target.T4)}\n")
    result = pyramidos.outcome(state)
    for seat, points in enumerate(result.points):
        unit = "point" if points == 1 else "points"
        out.write(f"seat {seat} ({_pearl(seat, colour)}): {points} {unit}\n")
    if result.over:
        names = " and ".join(f"seat {s}" for s in result.winners)
        out.write(f"winner: {names}\n" if len(result.winners) == 1 else f"draw: {names}\n")
    else:
        out.write(f"seat {state.to_move} to move" + (", top open\n" if state.top_open else "\n"))

"""``pyramid pin``: set the web page's admin PIN (for a forgotten one, or before first use).

::

    pyramid pin [--config FILE]         asks for the new PIN twice (not echoed)
    echo 2468 | pyramid pin             reads it from standard input when that is no terminal
    pyramid pin --generate              makes a random 6-digit PIN and prints it

Only a hash of the PIN is stored, in the game store the config names; browsers unlocked
with the old PIN must unlock again. The PIN is never taken as an argument, where other
users of the computer could read it in the process list.

Exit status: 0 set, 1 the PINs differ or are not 4 to 12 digits, 2 the config or the
store could not be used.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import Any, TextIO

from controller.config import ConfigError, load_config
from controller.store import Store, StoreError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "pin",
        help="set the admin PIN of the web page",
        description="Set the admin PIN that the web page asks for before any change.",
    )
    parser.add_argument("--config", type=Path, help="the config file (default: the usual places)")
    parser.add_argument(
        "--generate", action="store_true", help="make a random 6-digit PIN and print it"
    )
    parser.set_defaults(handler=run)


def _read_pin(stdin: TextIO, err: TextIO) -> str | None:
    if not stdin.isatty():
        return stdin.readline().strip()
    first = getpass.getpass("New admin PIN (4 to 12 digits): ")
    second = getpass.getpass("The same PIN again: ")
    if first != second:
        print("pyramid pin: the two PINs differ; nothing was changed", file=err)
        return None
    return first


def run(args: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None) -> int:
    # The web package is imported here, not at the top: `pyramid --help` stays light.
    from web_ui import security

    stdin = stdin or sys.stdin
    out = out or sys.stdout
    err = sys.stderr
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"pyramid pin: {exc}", file=err)
        return 2
    if args.generate:
        pin: str | None = security.generate_pin()
    else:
        pin = _read_pin(stdin, err)
        if pin is None:
            return 1
        try:
            security.validate_pin(pin)
        except security.PinError as exc:
            print(f"pyramid pin: {exc}; nothing was changed", file=err)
            return 1
    assert pin is not None
    try:
        with Store(config.store.path) as store:
            security.set_pin(store, pin)
    except (StoreError, OSError) as exc:
        print(f"pyramid pin: {exc}", file=err)
        return 2
    if args.generate:
        print(f"New admin PIN: {pin}", file=out)
    else:
        print(f"Admin PIN changed (store {config.store.path}).", file=out)
    return 0

"""``pyramid pin``: set the web page's admin PIN (for a forgotten one, or before first use).

::

    pyramid pin [--config FILE] [--data-dir D]   asks for the new PIN twice (not echoed)
    echo 2468 | pyramid pin                      reads it from standard input (no terminal)
    pyramid pin --generate                       makes a random 6-digit PIN and prints it

Only a hash of the PIN is stored, in the game store the config names (``[store] path``;
``--data-dir`` puts it in that folder, as for ``pyramid run``); browsers unlocked with the
old PIN must unlock again. The PIN is never taken as an argument, where other users of
the computer could read it in the process list.

On a Pi with the service installed (``deploy/install-pi.sh``), the config in
``/etc/pyramid-board`` names the service's store in ``/var/lib/pyramid-board``, which
only the service's user may write: ``pyramid pin`` then says the exact command to run,
``sudo -u pyramid pyramid pin --config /etc/pyramid-board/config.toml``.

Exit status: 0 set, 1 the PINs differ or are not 4 to 12 digits, 2 the config or the
store could not be used.
"""

from __future__ import annotations

import argparse
import dataclasses
import getpass
import os
import pwd
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from controller.config import ConfigError, load_config
from controller.settings import SettingError, Settings, generate_pin, valid_pin
from controller.store import Store, StoreError

if TYPE_CHECKING:
    from controller.config_schema import Config


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "pin",
        help="set the admin PIN of the web page",
        description="Set the admin PIN that the web page asks for before any change.",
    )
    parser.add_argument("--config", type=Path, help="the config file (default: the usual places)")
    parser.add_argument(
        "--data-dir", type=Path, help="folder of the game store (as for pyramid run)"
    )
    parser.add_argument(
        "--generate", action="store_true", help="make a random 6-digit PIN and print it"
    )
    parser.set_defaults(handler=run)


def store_path(config: Config, data_dir: Path | None) -> Path:
    """The store ``pyramid run`` would use with the same config and ``--data-dir``.

    >>> from controller.config import Config
    >>> store_path(Config(), Path("/srv/pb"))
    PosixPath('/srv/pb/pyramid.sqlite3')
    """
    path = config.store.path
    if data_dir is None:
        return path
    # Here, not at the top: the schema (and pydantic) would cost `pyramid --help`.
    from controller.config_schema import STORE_FILE

    return data_dir.expanduser() / (path.name or STORE_FILE)


def owner_of(path: Path) -> str | None:
    """The user owning ``path``, or its nearest existing folder; None if unknown."""
    for candidate in (path, *path.parents):
        try:
            uid = candidate.stat().st_uid
        except OSError:
            continue
        try:
            return pwd.getpwuid(uid).pw_name
        except KeyError:
            return str(uid)
    return None


def writable(path: Path) -> bool:
    """Whether this process may create or change the store at ``path`` (and its journal)."""
    for candidate in (path.parent, *path.parent.parents):
        if candidate.exists():
            folder_ok = os.access(candidate, os.W_OK | os.X_OK)
            return folder_ok and (not path.exists() or os.access(path, os.W_OK))
    return False


def run_as_hint(args: argparse.Namespace, config: Config, owner: str) -> str:
    """The command that sets the PIN as ``owner``, with the same options.

    >>> from controller.config import Config
    >>> ns = argparse.Namespace(config=None, data_dir=None, generate=True)
    >>> run_as_hint(ns, Config(source=Path("/etc/pyramid-board/config.toml")), "pyramid")
    'sudo -u pyramid pyramid pin --config /etc/pyramid-board/config.toml --generate'
    """
    words = ["sudo", "-u", owner, "pyramid", "pin"]
    source = args.config or config.source
    if source is not None:
        words += ["--config", str(Path(source).expanduser().absolute())]
    data_dir = getattr(args, "data_dir", None)
    if data_dir is not None:
        words += ["--data-dir", str(data_dir.expanduser().absolute())]
    if args.generate:
        words.append("--generate")
    return shlex.join(words)


def _read_pin(stdin: TextIO, err: TextIO) -> str | None:
    if not stdin.isatty():
        return stdin.readline().strip()
    first = getpass.getpass("New admin PIN (4 to 12 digits): ")
    second = getpass.getpass("The same PIN again: ")
    if first != second:
        print("pyramid pin: the two PINs differ; nothing was changed", file=err)
        return None
    return first


def _cannot_write(args: argparse.Namespace, config: Config, path: Path, err: TextIO) -> bool:
    """Say what to run when the store is someone else's (the service's); True if so."""
    if writable(path):
        return False
    owner = owner_of(path)
    me = pwd.getpwuid(os.geteuid()).pw_name
    print(f"pyramid pin: you ({me}) cannot write the game store {path}", file=err)
    if owner is not None and owner != me:
        print(
            f"  it belongs to user {owner!r} (the service's, on a Pi); set the PIN as that "
            f"user:\n  {run_as_hint(args, config, owner)}",
            file=err,
        )
    return True


def run(args: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    err = sys.stderr
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"pyramid pin: {exc}", file=err)
        return 2
    path = store_path(config, getattr(args, "data_dir", None))
    config = dataclasses.replace(config, store=dataclasses.replace(config.store, path=path))
    if _cannot_write(args, config, path, err):
        return 2  # before asking for a PIN that could not be kept
    if args.generate:
        pin: str | None = generate_pin()
    else:
        pin = _read_pin(stdin, err)
        if pin is None:
            return 1
        try:
            valid_pin(pin)
        except SettingError as exc:
            print(f"pyramid pin: {exc.english} Nothing was changed.", file=err)
            return 1
    assert pin is not None
    try:
        with Store(path) as store:
            settings = Settings(store)
            wrong = settings.wrong_pins()
            settings.set_pin(pin)
    except (StoreError, OSError) as exc:
        print(f"pyramid pin: {exc}", file=err)
        return 2
    if wrong:
        # After 100 the page had stopped checking PINs (web_ui.security): now it does again.
        print(
            f"{wrong} wrong PINs were tried on the web page since the PIN was set; the "
            "page checks PINs again and counts from 0.",
            file=out,
        )
    if args.generate:
        print(f"New admin PIN: {pin}", file=out)
    else:
        print(f"Admin PIN changed (store {path}).", file=out)
    return 0

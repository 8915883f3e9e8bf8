"""``pyramid run``: the whole program — board, store, Table and web page — in one place.

::

    pyramid run [--config FILE] [--host H] [--port P] [--data-dir D] [--log-level L]

This is the composition root: the config chooses the board adapter (the simulated board
when nothing else is configured, so ``make run`` works on any computer), and everything
is built here and handed to what needs it; no module builds its own. The games
(:mod:`controller.games.registry`, through :func:`pyramid_board.games.games`) and their
views (:mod:`web_ui.games.registry`, through :func:`pyramid_board.games.views`) are picked
here once and handed to the Table, the remote seats and the page.

The page listens on ``[web] host`` (built in: ``0.0.0.0``, every address, so that phones
at the table reach it; ``--host 127.0.0.1`` keeps it to this computer). The log (standard
error) says the address it listens on and every address it can be opened at
(``http://<hostname>.local:8080/`` and each address of the machine); last comes a box
with those addresses and the admin PIN (made on the first start and shown that once) or,
when the store already has one, the ``pyramid pin`` command that sets a new one. Standard
output gets exactly one line, once the page is served, for scripts (``--port 0`` picks a
free port)::

    pyramid: serving on http://127.0.0.1:41233/

It runs until SIGTERM (systemd) or SIGINT (Ctrl-C), then shuts down in order: the page
stops, the Table blanks the LEDs, the store closes, the board is let go.

Exit status: 0 after a clean shutdown, 1 when the page could not be served (the port is
taken), 2 when the config, the board or the store cannot be used.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import os
import pwd
import shlex
import signal
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from controller.addresses import page_url, page_urls
from controller.config import ConfigError, load_config

if TYPE_CHECKING:
    from controller.config_schema import Config
    from controller.hardware.port import Board
    from controller.referee import GameKind
    from controller.store import Store
    from controller.table import Inbox, Linker, Table

log = logging.getLogger("pyramid.run")

WEB_READY_TIMEOUT_S = 10.0
SHUTDOWN_TIMEOUT_S = 5.0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run the board, the referee and the web page",
        description="Run the board, the Table (the referee) and the web page until stopped.",
    )
    parser.add_argument("--config", type=Path, help="the TOML config file (default: searched)")
    parser.add_argument("--host", help="address the web page listens on (default: config)")
    parser.add_argument("--port", type=int, help="port of the web page (0 picks a free one)")
    parser.add_argument("--data-dir", type=Path, help="folder of the game store")
    parser.add_argument(
        "--log-level",
        default="info",
        choices=("debug", "info", "warning", "error"),
        help="how much to log (default: info)",
    )
    parser.set_defaults(handler=run)


def _configure(args: argparse.Namespace) -> Config:
    config = load_config(args.config)
    web = config.web
    if args.host is not None:
        if not args.host.strip():
            raise ConfigError("--host", "must name an address, e.g. 0.0.0.0 or 127.0.0.1")
        web = dataclasses.replace(web, host=args.host.strip())
    if args.port is not None:
        if not 0 <= args.port <= 65535:
            raise ConfigError("--port", f"must be from 0 to 65535, not {args.port}")
        web = dataclasses.replace(web, port=args.port)
    store = config.store
    if args.data_dir is not None:
        # Here, not at the top: the schema (and pydantic) would cost `pyramid --help`.
        from controller.config_schema import STORE_FILE

        name = store.path.name or STORE_FILE
        store = dataclasses.replace(store, path=args.data_dir.expanduser() / name)
    return dataclasses.replace(config, web=web, store=store)


def serving_line(host: str, port: int) -> str:
    """The one line ``pyramid run`` prints on standard output: a URL this machine can open.

    >>> serving_line("0.0.0.0", 8080)
    'pyramid: serving on http://127.0.0.1:8080/'
    >>> serving_line("::1", 41233)
    'pyramid: serving on http://[::1]:41233/'
    """
    local = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)
    return f"pyramid: serving on {page_url(local, port)}"


def pin_command(
    args: argparse.Namespace, source: Path | None = None, uid: int | None = None
) -> str:
    """The ``pyramid pin`` that reaches the store this ``pyramid run`` uses: with the config
    it read (``source``, e.g. from ``$PYRAMID_CONFIG``), and as this process's user when
    that is a system account (the service's, whose store no one else may write).

    >>> pin_command(argparse.Namespace(config=None, data_dir=Path("/tmp/my games")), uid=1000)
    "pyramid pin --data-dir '/tmp/my games'"
    >>> args = argparse.Namespace(config=None, data_dir=None)
    >>> pin_command(args, Path("/etc/pyramid-board/config.toml"), uid=0)
    'pyramid pin --config /etc/pyramid-board/config.toml'
    """
    words = ["pyramid", "pin"]
    config = args.config if args.config is not None else source
    if config is not None:
        words += ["--config", str(config)]
    if args.data_dir is not None:
        words += ["--data-dir", str(args.data_dir)]
    uid = os.geteuid() if uid is None else uid
    if 0 < uid < 1000:  # Debian's system users (the service's `pyramid`)
        with contextlib.suppress(KeyError):  # a user with no name: the plain command
            words = ["sudo", "-u", pwd.getpwuid(uid).pw_name, *words]
    return shlex.join(words)


def ready_box(urls: list[str], pin: str | None, pin_command: str) -> str:
    """What ``pyramid run`` says last on standard error once the page is served: where to
    open it and the admin PIN (new: shown this once; set before: the command that sets a
    new one), boxed so that it stands out below the log.

    >>> print(ready_box(["http://pyramid.local:8080/"], "135790", "pyramid pin"))
    +--------------------------------------------------------------+
    | Open the page at:                                            |
    |     http://pyramid.local:8080/                               |
    | Admin PIN for the web page: 135790 (shown once)              |
    | Change it in Settings or with `pyramid pin`.                 |
    +--------------------------------------------------------------+
    """
    lines = ["Open the page at:", *(f"    {url}" for url in urls)]
    if pin is not None:
        lines += [
            f"Admin PIN for the web page: {pin} (shown once)",
            f"Change it in Settings or with `{pin_command}`.",
        ]
    else:
        lines += [f"admin PIN: set before (not shown again); `{pin_command}` sets a new one"]
    width = max(60, *(len(line) for line in lines))
    rule = "+" + "-" * (width + 2) + "+"
    return "\n".join([rule, *(f"| {line:<{width}} |" for line in lines), rule])


def _open_store(path: Path) -> Store:
    # The product is imported only once `pyramid run` runs (here and in run() below):
    # building the command line for `pyramid replay` or `pyramid --help` must stay light.
    from controller.store import Store, StoreError

    try:
        return Store(path)
    except StoreError as exc:
        if exc.set_aside is None:
            raise
        # The unusable file is out of the way (renamed, not deleted): start an empty store.
        log.error("%s", exc)
        log.error("starting with an empty game store; the old file is kept as %s", exc.set_aside)
        return Store(path)


@dataclasses.dataclass
class _Stopper:
    """Turns SIGTERM and SIGINT into one event the main thread waits for."""

    event: threading.Event = dataclasses.field(default_factory=threading.Event)
    signal_name: str = ""

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.signal_name = signal.Signals(signum).name
        self.event.set()


@contextlib.contextmanager
def _signals() -> Iterator[_Stopper]:
    stopper = _Stopper()
    old = {s: signal.signal(s, stopper) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield stopper
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    if not logging.getLogger().handlers:
        logging.basicConfig(
            level=args.log_level.upper(),
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
            stream=sys.stderr,
        )
    try:
        config = _configure(args)
    except ConfigError as exc:
        print(f"pyramid run: config: {exc}", file=sys.stderr)
        return 2
    log.info("config: %s", config.source or "built-in defaults (simulated board)")

    # The product, imported only now that `pyramid run` runs (see _open_store).
    from controller.hardware.adapters import build_board
    from controller.palette import from_rgb
    from controller.referee.state import RefereeConfig
    from controller.store import StoreError
    from controller.table import Inbox, Table, TableSettings

    try:
        board, channel_map = build_board(config, data_dir=config.store.path.parent)
    except (ConfigError, OSError) as exc:
        print(f"pyramid run: board: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        # The pin factory's own errors (a pin in use, no SPI, no lgpio) are not ours to
        # enumerate; a maker gets one clear line instead of a traceback.
        log.debug("board failed to start", exc_info=True)
        print(
            f"pyramid run: board: could not start the {config.board.adapter} board: "
            f"{type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        return 2
    try:
        store = _open_store(config.store.path)
    except StoreError as exc:
        print(f"pyramid run: {exc}", file=sys.stderr)
        board.close()
        return 2
    log.info("game store: %s", config.store.path)
    colours = tuple(from_rgb(rgb, seat) for seat, rgb in enumerate(config.seats.colours))
    games = args.games()
    settings = TableSettings(rules=RefereeConfig(seat_colours=colours), games=games)
    inbox = Inbox()
    seats = _remote_seats(config, inbox, store, games)
    table = Table(board, channel_map, store, settings, inbox=inbox, linker=seats)
    with _signals() as stopper:
        try:
            return _serve(config, board, table, stopper, started, pin_command(args, config.source))
        finally:
            table.stop()
            if seats is not None:
                seats.close()
            store.close()
            board.close()
            log.info("stopped")


def _remote_seats(
    config: Config, inbox: Inbox, store: Store, games: Mapping[str, GameKind]
) -> Linker | None:
    """The games played with another board, through ``[remote]``'s broker (None: none);
    they reach the Table through its ``inbox``."""
    if config.remote is None:
        return None
    # paho-mqtt and the link's cryptography are loaded only for a board with [remote].
    from controller.remote.seats import RemoteSeats

    return RemoteSeats(inbox, store, config.remote, games=games)


def _serve(
    config: Config,
    board: Board,
    table: Table,
    stopper: _Stopper,
    started: float,
    pin: str,
) -> int:
    """Start the Table and the page; wait for a signal; stop the page. The exit status."""
    # Flask and the page, imported only now that `pyramid run` runs (see _open_store).
    from pyramid_board.games import views
    from web_ui.app import create_app
    from web_ui.server import serve as serve_app
    from web_ui.server import stop as stop_app

    table.start()
    log.info("board: %s", board.status().detail)
    new_pin = table.household.ensure_pin()  # said last, in the box below
    app = create_app(table=table, config=config, views=views())
    ready = threading.Event()
    failure: list[BaseException] = []

    def serve() -> None:
        try:
            serve_app(app, config.web.host, config.web.port, ready=ready)
        except BaseException as exc:  # reported by the main thread
            failure.append(exc)
        finally:
            stopper.event.set()

    web_thread = threading.Thread(target=serve, name="pyramid-web", daemon=True)
    web_thread.start()
    try:
        deadline = time.monotonic() + WEB_READY_TIMEOUT_S
        while not ready.wait(0.05) and web_thread.is_alive() and time.monotonic() < deadline:
            pass  # serving, failing (a taken port) or too slow: whichever comes first
        if failure or not ready.is_set():
            reason = failure[0] if failure else "it did not start in time"
            print(
                f"pyramid run: the web page cannot be served on "
                f"{config.web.host}:{config.web.port}: {reason}",
                file=sys.stderr,
            )
            return 1
        port = int(app.config.get("SERVER_PORT", config.web.port))
        host = config.web.host
        urls = page_urls(host, port)
        log.info("ready in %.2f s; open the page at:", time.monotonic() - started)
        for url in urls:
            log.info("    %s", url)
        print(serving_line(host, port), flush=True)
        print(ready_box(urls, new_pin, pin), file=sys.stderr, flush=True)
        stopper.event.wait()
        if failure:
            print(f"pyramid run: the web page stopped: {failure[0]}", file=sys.stderr)
            return 1
        log.info("%s: shutting down", stopper.signal_name or "stop")
        return 0
    finally:
        stop_app(app)
        web_thread.join(SHUTDOWN_TIMEOUT_S)

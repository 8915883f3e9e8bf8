"""The web tests' rig: SimBoard -> Table -> Store -> the Flask app, as ``pyramid run``
wires them (tests/web, bench/web_attacks.py).

Nothing is faked: the Table is controller.table.Table on its own thread, the board is
the sim adapter the virtual board drives, the store an SQLite file in a temporary folder.

Two things are made once per process and shared by every rig, for they cost the same
each time and each rig would make them again: the PIN's scrypt hash (scrypt is slow on
purpose; the first rig's hash comes from ``Settings.set_pin``, and each rig stores that
same value, while every unlock still checks the PIN against it), and the pages' compiled
templates (Jinja's own bytecode cache, in memory: every rig's app has the same templates
and the same Jinja settings, from ``create_app``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from flask import Flask
from flask.testing import FlaskClient

from controller.clock import SystemClock
from controller.config import RemoteConfig
from controller.games.perlen.commands import ConfirmBonus
from controller.games.registry import GAMES
from controller.hardware.channels import ChannelMap
from controller.hardware.sim import SimBoard
from controller.referee.commands import NewGame
from controller.referee.messages import english
from controller.referee.state import RefereeConfig
from controller.remote.link import LinkTiming
from controller.remote.seats import RemoteSeats
from controller.settings import PIN_HASH_KEY, Settings
from controller.store import Store
from controller.table import Inbox, Table, TableSettings
from web_ui.app import WebSettings, close_app, create_app
from web_ui.games.registry import VIEWS
from web_ui.games.view import GameView

PIN = "2468"


CSRF_RE = re.compile(r'<meta name="csrf-token" content="([^"]+)"')


WAIT_MS = 60_000
"""How long a browser test may wait for the state it needs (a wait on the page's real
state, ending the moment it is there: only a broken page, or a machine under a load no
person would bear, reaches this)."""


@dataclass
class Rig:
    app: Flask
    table: Table
    board: SimBoard
    store: Store
    cmap: ChannelMap
    seats: RemoteSeats | None = None
    """The seats on another board (a rig built with ``remote``)."""

    def snapshot(self) -> dict[str, Any]:
        """The Table's snapshot as the API sends it (JSON)."""
        return self.table.snapshot.to_json()

    def said(self) -> str:
        """The status line in English: the note, then the prompt."""
        snap = self.table.snapshot
        return " ".join(english(m) for m in (*snap.note, *snap.prompt))

    def wait(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 30.0
    ) -> dict[str, Any]:
        """The snapshot once ``predicate`` holds (the Table runs on its own thread): each
        snapshot the Table publishes is looked at as it comes, none polled for; AssertionError
        after ``timeout`` seconds of patience."""
        deadline = time.monotonic() + timeout
        seen: dict[str, Any] = {}
        with self.table.subscribe() as published:
            while True:
                snap = published.get(timeout=max(0.0, deadline - time.monotonic()))
                if snap is not None:
                    seen = snap.to_json()
                    if predicate(seen):
                        return seen
                if time.monotonic() >= deadline or published.closed:
                    raise AssertionError(f"timed out after {timeout} s: {seen}")

    def place(self, cell: str, on: bool = True) -> None:
        self.board.set_channel(self.cmap.channel(cell), on)

    def play_perlen_to_end(self) -> dict[str, Any]:
        """Place pearls on the first legal cell until the base is full: the game is then
        over (its last bonus pearls finish the pyramid)."""
        while True:
            snap = self.snapshot()
            if snap["status"] == "over":
                return snap
            if snap["pending"]:
                assert self.table.submit(ConfirmBonus()).ok
                continue
            moves = snap["moves"]
            self.place(snap["legal"][0])

            def moved(s: dict[str, Any], m: int = moves) -> bool:
                return bool(s["moves"] > m)

            self.wait(moved)

    def new_perlen(self, names: tuple[str, ...] = ("Anna", "Ben", "Cleo"), **kw: Any) -> None:
        reply = self.table.submit(NewGame("perlen-pyramide", names, **kw))
        assert reply.ok, reply.message and english(reply.message)

    def new_pyramidos(self, names: tuple[str, ...] = ("Anna", "Ben")) -> None:
        reply = self.table.submit(NewGame("pyramidos", names))
        assert reply.ok, reply.message and english(reply.message)


class _CompiledTemplates(jinja2.BytecodeCache):
    """Jinja's compiled templates, kept in memory for the process (see the docstring)."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)  # Jinja drops it if the source changed

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


TEMPLATES = _CompiledTemplates()


_PIN_HASHES: dict[str, str] = {}


def give_pin(store: Store, pin: str = PIN) -> None:
    """As ``Settings(store).set_pin(pin)``, with the hash made once per process."""
    if pin not in _PIN_HASHES:
        Settings(store).set_pin(pin)
        hashed = store.get_setting(PIN_HASH_KEY)
        assert hashed is not None
        _PIN_HASHES[pin] = hashed
    store.set_setting(PIN_HASH_KEY, _PIN_HASHES[pin])


def compiled_once(app: Flask) -> Flask:
    """``app`` with the process's compiled templates (before it renders any)."""
    app.jinja_env.bytecode_cache = TEMPLATES
    return app


RULES = RefereeConfig(together_s=0.0, settle_s=0.05)
"""together_s=0: tests place pearls faster than any hand; settle_s short for take-backs.
Real time: the pages and the browser run on it."""


def build_rig(
    folder: Path,
    *,
    web: WebSettings | None = None,
    pieces: Iterable[str] = (),
    rules: RefereeConfig = RULES,
    hint_budget_s: float = 1.0,
    views: Mapping[str, GameView] = VIEWS,
    remote: RemoteConfig | None = None,
    timing: LinkTiming | None = None,
) -> Rig:
    """The rig on the store in ``folder`` (a game stored there is resumed), its board
    holding ``pieces`` when the Table starts (as wood holds them after a power cut).
    ``hint_budget_s``: the hint's thinking time, as ``pyramid run`` gives it (a cap: an
    exact search that fits answers as soon as it is done). ``remote``: games may have
    seats on another board, through that broker (with the link's ``timing``), wired as
    ``pyramid run`` wires them."""
    cmap = ChannelMap.default()
    board = SimBoard(cmap.channel_count, cmap.led_count)
    board.set_active(cmap.channel(name) for name in pieces)
    store = Store(folder / "games.sqlite3")
    give_pin(store)
    settings = TableSettings(
        rules=rules, clock=SystemClock(), hint_budget_s=hint_budget_s, games=GAMES
    )
    inbox = Inbox()
    seats = None
    if remote is not None:
        seats = RemoteSeats(inbox, store, remote, games=GAMES, timing=timing or LinkTiming())
    table = Table(board, cmap, store, settings, inbox=inbox, linker=seats)
    table.start()
    app = create_app(
        table=table,
        testing=True,
        web=web or WebSettings(heartbeat=0.3, throttle_free=3, throttle_base=1.0),
        views=views,
    )
    return Rig(compiled_once(app), table, board, store, cmap, seats)


def close_rig(rig: Rig) -> None:
    close_app(rig.app)
    rig.table.stop()
    if rig.seats is not None:
        rig.seats.close()
    rig.board.close()
    rig.store.close()


def csrf(client: FlaskClient, path: str = "/rules") -> str:
    """The CSRF token of this client's session, read from a page as a browser would."""
    page = client.get(path)
    match = CSRF_RE.search(page.get_data(as_text=True))
    assert match, "no csrf meta tag"
    return match.group(1)


def unlocked(client: FlaskClient, pin: str = PIN) -> str:
    """Unlock ``client`` with the PIN through the API; returns the fresh CSRF token."""
    token = csrf(client)
    response = client.post("/api/unlock", json={"pin": pin}, headers={"X-CSRFToken": token})
    assert response.status_code == 200, response.get_json()
    fresh = response.get_json()["csrf_token"]
    assert isinstance(fresh, str)
    return fresh

"""What every view of the web page needs, kept on the app (never in module globals).

:func:`web_ui.app.create_app` builds one :class:`WebState` and stores it in
``app.extensions["pyramid"]``; views, blueprints and helpers reach it through
:func:`web_state`. This module imports no blueprint, so every module can use it.

:class:`TablePort` is the page's only way into the program: it holds no store and no
board and names no adapter (``tests/web/test_port.py``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Protocol

from flask import Flask, current_app

from controller.hardware.channels import BUTTONS, CELLS, SEATS, TARGETS, ChannelMap
from controller.hardware.port import SensorLevels, Touchable
from controller.referee.commands import Command
from controller.referee.game import GameKind
from controller.referee.snapshot import Snapshot
from controller.referee.state import Reply
from controller.settings import Settings
from controller.store.history import History
from controller.subscription import Subscription
from controller.table import Linker
from web_ui import security
from web_ui.games.view import GameView
from web_ui.live import LiveHub
from web_ui.reviews import Reviewer

if TYPE_CHECKING:
    from waitress.server import BaseWSGIServer

    from controller.config_schema import Config

KEY: Final = "pyramid"


class TablePort(Protocol):
    """All the web page uses of the program: :class:`controller.table.Table`'s commands,
    snapshots, history, the household's settings and, on the simulated board, touch."""

    @property
    def snapshot(self) -> Snapshot: ...

    @property
    def games(self) -> Mapping[str, GameKind]:
        """The games the referee plays, by name, in the order the page offers them."""

    @property
    def channel_map(self) -> ChannelMap: ...

    @property
    def levels(self) -> tuple[str, ...]: ...

    @property
    def history(self) -> History: ...

    @property
    def household(self) -> Settings: ...

    @property
    def touchable(self) -> Touchable | None: ...

    @property
    def has_buzzer(self) -> bool: ...

    def sensor_levels(self) -> SensorLevels | None:
        """Every sensor's last reading (the board is asked for fresh ones), or None."""

    def subscribe(self) -> Subscription: ...

    def submit(self, command: Command, timeout: float = 5.0) -> Reply: ...

    def handled(self, seq: int, timeout: float) -> Snapshot | None: ...

    @property
    def linker(self) -> Linker | None:
        """Games with a seat on another board (None: no ``[remote]`` broker configured)."""
        ...


@dataclass(frozen=True, slots=True)
class WebSettings:
    """Tunables of the web page; the defaults suit a Pi serving a family's phones."""

    heartbeat: float = 15.0
    """Seconds between SSE keep-alive comments (below waitress' 120 s channel timeout)."""
    max_streams: int = 64
    """Live pages open at once; more are told to retry (503) so reads always get a thread."""
    streams_per_device: int = 8
    """Live pages one device may hold open (a device: an IPv4 address or an IPv6 /64)."""
    connections_per_device: int = 16
    """Connections one device may hold open; more are answered 503 and closed."""
    request_deadline: float = 10.0
    """Seconds a request's headers and body may take to arrive, from its first byte."""
    spare_threads: int = 8
    """Waitress threads beyond ``max_streams`` for pages and the JSON API."""
    session_hours: float = 12.0
    """How long a PIN unlocks a browser."""
    throttle_free: int = 3
    """Wrong PINs without delay, per client."""
    throttle_base: float = 1.0
    """Seconds of the first delay; each further wrong PIN doubles it."""
    throttle_cap: float = 900.0
    """The longest wait of one device (seconds)."""
    pin_burst: int = 10
    """Wrong PINs all devices together may try in a row."""
    pin_per_hour: float = 10.0
    """Wrong PINs all devices together may try per hour after the burst."""
    pin_lockout: int = 100
    """Wrong PINs since the PIN was set after which none is checked until ``pyramid pin``."""
    command_timeout: float = 5.0
    """How long a request waits for the Table to handle a command."""
    review_budget: float = 0.25
    """Seconds the computer thinks about each move when reviewing a finished game."""

    @property
    def pin_limits(self) -> security.Limits:
        return security.Limits(
            free=self.throttle_free,
            base=self.throttle_base,
            cap=self.throttle_cap,
            burst=self.pin_burst,
            per_hour=self.pin_per_hour,
            lockout=self.pin_lockout,
        )

    @property
    def threads(self) -> int:
        return self.max_streams + self.spare_threads


@dataclass
class WebState:
    """Everything the views need."""

    table: TablePort
    config: Config | None
    settings: WebSettings
    hub: LiveHub
    pins: security.PinGuard
    secret: str
    reviewer: Reviewer = field(default_factory=Reviewer)
    started: float = field(default_factory=time.time)
    static_versions: dict[str, str] = field(default_factory=dict)
    stop_serving: threading.Event = field(default_factory=threading.Event)
    """Set by :func:`web_ui.server.stop`: the serving loop returns."""
    server: BaseWSGIServer | None = None
    """The waitress server while :func:`web_ui.server.serve` runs."""
    views: Mapping[str, GameView] = field(default_factory=dict)
    """How the page shows each of the Table's games, by name, in the Table's order."""
    host_names: frozenset[str] = frozenset()
    """The board's own names a request's Host may give (:mod:`web_ui.hosts`)."""

    def view_of(self, game: object) -> GameView | None:
        """The view of ``game`` (a game's name), or None for no game or one the board
        does not play."""
        return self.views.get(game) if isinstance(game, str) else None

    @property
    def virtual(self) -> bool:
        """The page is the board: the board takes touches (the simulated board)."""
        return self.table.touchable is not None

    @property
    def channel_map(self) -> ChannelMap:
        return self.table.channel_map

    @property
    def household(self) -> Settings:
        """The household's settings (PIN, volume, language), through the Table."""
        return self.table.household

    @property
    def levels(self) -> tuple[str, ...]:
        """The computer's levels (empty when the computer player is missing)."""
        return self.table.levels

    @property
    def led_names(self) -> list[str]:
        """The board's LEDs: cells, targets, buttons, seats."""
        order = {name: i for i, name in enumerate(CELLS + TARGETS + BUTTONS + SEATS)}
        return sorted(self.channel_map.led_by_name, key=lambda n: order.get(n, 999))


def web_state() -> WebState:
    """The :class:`WebState` of the current app."""
    return state_of(current_app)


def state_of(app: Flask) -> WebState:
    state = app.extensions[KEY]
    assert isinstance(state, WebState)
    return state

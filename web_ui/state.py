"""What every view of the web page needs, kept on the app (never in module globals).

:func:`web_ui.app.create_app` builds one :class:`WebState` and stores it in
``app.extensions["pyramid"]``; views, blueprints and helpers reach it through
:func:`web_state`. This module imports no blueprint, so every module can use it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from flask import Flask, current_app

from controller.config import Config
from controller.hardware.channels import BUTTONS, CELLS, SEATS, TARGETS, ChannelMap
from controller.hardware.port import Board
from controller.hardware.sim import SimBoard
from controller.store import Store
from web_ui import i18n, security
from web_ui.live import LiveHub, TableLike
from web_ui.reviews import Reviewer

if TYPE_CHECKING:
    from waitress.server import BaseWSGIServer

KEY: Final = "pyramid"
VOLUME_KEY: Final = "board.volume"
"""Store setting: the buzzer's volume in percent, set on the Settings page (0 mutes it)."""


def volume_percent(store: Store) -> int:
    """The buzzer's volume in percent (100 until someone sets it)."""
    raw = store.get_setting(VOLUME_KEY, "100") or "100"
    return int(raw) if raw.isascii() and raw.isdigit() and int(raw) <= 100 else 100


@dataclass(frozen=True, slots=True)
class WebSettings:
    """Tunables of the web page; the defaults suit a Pi serving a family's phones."""

    heartbeat: float = 15.0
    """Seconds between SSE keep-alive comments (below waitress' 120 s channel timeout)."""
    max_streams: int = 64
    """Live pages open at once; more are told to retry (503) so reads always get a thread."""
    spare_threads: int = 8
    """Waitress threads beyond ``max_streams`` for pages and the JSON API."""
    session_hours: float = 12.0
    """How long a PIN unlocks a browser."""
    throttle_free: int = 3
    """Wrong PINs without delay, per client."""
    throttle_base: float = 1.0
    """Seconds of the first delay; each further wrong PIN doubles it."""
    throttle_cap: float = 900.0
    command_timeout: float = 5.0
    """How long a request waits for the Table to handle a command."""
    review_budget: float = 0.25
    """Seconds the computer thinks about each move when reviewing a finished game."""

    @property
    def threads(self) -> int:
        return self.max_streams + self.spare_threads


@dataclass
class WebState:
    """Everything the views need."""

    table: TableLike
    store: Store
    board: Board | None
    channel_map: ChannelMap
    config: Config | None
    settings: WebSettings
    hub: LiveHub
    throttle: security.Throttle
    secret: str
    reviewer: Reviewer = field(default_factory=Reviewer)
    default_language: str = i18n.DEFAULT_LANGUAGE
    started: float = field(default_factory=time.time)
    static_versions: dict[str, str] = field(default_factory=dict)
    stop_serving: threading.Event = field(default_factory=threading.Event)
    """Set by :func:`web_ui.server.stop`: the serving loop returns."""
    server: BaseWSGIServer | None = None
    """The waitress server while :func:`web_ui.server.serve` runs."""

    @property
    def virtual(self) -> bool:
        """The page is the board: the sim adapter is in use."""
        return isinstance(self.board, SimBoard)

    @property
    def sim(self) -> SimBoard | None:
        return self.board if isinstance(self.board, SimBoard) else None

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

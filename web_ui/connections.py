"""A page no single device can close: connections per device, a deadline per request.

Waitress limits connections only all together (``connection_limit``) and closes a
connection only after ``channel_timeout`` seconds *without* a byte, so one device with a
few hundred connections that each trickle a header line now and then held every slot and
the family's phones got no page. :class:`GuardedServer` adds two limits:

- **connections per device** (:func:`web_ui.security.device_of`: an IPv4 address, or an
  IPv6 /64): a device's connection beyond ``per_device`` is answered 503 and closed at
  once, so the others' slots stay free;
- **a request's deadline**: the headers and body of a request must have arrived within
  ``request_deadline`` seconds of its first byte, whatever trickles in meanwhile; a slower
  connection is closed. (A request being served, such as a live stream, is not a request
  being received: its connection stays.)

It also tells the app the address each request arrived on (``environ[LOCAL_ADDRESS]``),
which :mod:`web_ui.hosts` needs. The decisions are pure (:func:`over_limit`,
:func:`too_slow`); the classes are the shell.

What of waitress 3.0 this relies on (its source, ``waitress/server.py`` and
``channel.py``; ``tests/web/test_attacks.py`` fails should any of it change):

- ``BaseWSGIServer.handle_accept`` accepts a socket (``accept``, ``set_socket_options``,
  ``fix_addr``) and makes ``channel_class(server, conn, addr, adj, map)``: overridden here
  to refuse a device over its limit first;
- ``BaseWSGIServer.maintenance(now)`` runs from ``readable()`` every
  ``adj.cleanup_interval`` seconds and closes a channel by setting its ``will_close``;
- ``HTTPChannel.received(data)`` parses bytes into ``channel.request`` (None between
  requests) and appends complete requests to ``channel.requests``;
  ``HTTPChannel.del_channel`` runs when a channel closes; ``HTTPChannel.task_class`` makes
  the task whose ``get_environment()`` builds the WSGI environ.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer
from waitress.task import WSGITask

from web_ui.hosts import LOCAL_ADDRESS
from web_ui.security import device_of

if TYPE_CHECKING:
    from waitress.wasyncore import _SocketMap

log = logging.getLogger("web_ui")

BUSY: Final = (
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Type: text/plain\r\n"
    b"Content-Length: 40\r\nConnection: close\r\n\r\nToo many connections from this device.\r\n"
)


def over_limit(held: int, per_device: int) -> bool:
    """Whether a device holding ``held`` connections may not open another."""
    return held >= per_device


def too_slow(started: float | None, now: float, deadline: float) -> bool:
    """Whether a request whose first byte came at ``started`` (None: no request being
    received) has taken longer than ``deadline`` seconds to arrive."""
    return started is not None and now - started > deadline


class LocalAddressTask(WSGITask):
    """A request's task: waitress' environ and the address the request arrived on."""

    channel: GuardedChannel

    def get_environment(self) -> dict[str, Any]:
        environ = super().get_environment()
        environ[LOCAL_ADDRESS] = self.channel.local_address
        return environ


class GuardedChannel(HTTPChannel):
    """One connection: its device, its local address, when its request began."""

    task_class = LocalAddressTask
    server: GuardedServer

    def __init__(
        self,
        server: GuardedServer,
        sock: socket.socket,
        addr: Any,
        adj: Adjustments,
        map: _SocketMap | None = None,
    ) -> None:
        self.device = device_of(str(addr[0]))
        try:
            self.local_address = str(sock.getsockname()[0])
        except OSError:
            self.local_address = ""
        self.request_started: float | None = None
        """When the first byte of the request being received came (monotonic seconds)."""
        self._counted = True
        super().__init__(server, sock, addr, adj, map)
        server.opened(self)

    def received(self, data: bytes) -> bool:
        if data and self.request is None and self.request_started is None:
            self.request_started = self.server.clock()
        done = super().received(data)
        if self.request is None:  # every request in ``data`` arrived whole
            self.request_started = None
        return done

    def del_channel(self, map: _SocketMap | None = None) -> None:
        super().del_channel(map)
        if self._counted:
            self._counted = False
            self.server.closed(self)


class GuardedServer(TcpWSGIServer):
    """Waitress' TCP server with connections limited per device and a request deadline."""

    channel_class = GuardedChannel

    def __init__(
        self,
        application: Any,
        *,
        map: _SocketMap,
        adj: Adjustments,
        per_device: int,
        request_deadline: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_device = per_device
        self.request_deadline = request_deadline
        self.clock = clock
        """Seconds for the request deadline (tests put a virtual clock here)."""
        self._lock = threading.Lock()
        self._held: Counter[str] = Counter()
        self._channels: set[GuardedChannel] = set()
        self._refused: Counter[str] = Counter()
        self._socket_map = map
        super().__init__(application, map=map, adj=adj)  # listens on adj.listen[0]

    # -- the channels tell ------------------------------------------------------------------
    def opened(self, channel: GuardedChannel) -> None:
        with self._lock:
            self._channels.add(channel)

    def closed(self, channel: GuardedChannel) -> None:
        with self._lock:
            self._channels.discard(channel)
            self._held[channel.device] -= 1
            if self._held[channel.device] <= 0:
                del self._held[channel.device]
                self._refused.pop(channel.device, None)  # said again next time

    def held(self, device: str) -> int:
        """Connections ``device`` holds now."""
        with self._lock:
            return self._held[device]

    # -- waitress' hooks --------------------------------------------------------------------
    def handle_accept(self) -> None:
        try:
            pair = self.accept()
            if pair is None:
                return
            conn, addr = pair
            self.set_socket_options(conn)
        except OSError:
            return  # as waitress: the peer left before we got to it
        addr = self.fix_addr(addr)
        device = device_of(str(addr[0]))
        with self._lock:
            refused = over_limit(self._held[device], self.per_device)
            if not refused:
                self._held[device] += 1
            else:
                self._refused[device] += 1
                first = self._refused[device] == 1
        if refused:
            if first:
                log.warning(
                    "web: %s holds %d connections, the most one device may; more are refused",
                    device,
                    self.per_device,
                )
            with contextlib.suppress(OSError):
                conn.setblocking(False)
                conn.send(BUSY)
            conn.close()
            return
        try:
            self.channel_class(self, conn, addr, self.adj, map=self._socket_map)
        except Exception:
            with self._lock:
                self._held[device] -= 1
            raise

    def maintenance(self, now: int | float) -> None:
        super().maintenance(now)  # type: ignore[arg-type]
        moment = self.clock()
        with self._lock:
            channels = list(self._channels)
        for channel in channels:
            if not channel.requests and too_slow(
                channel.request_started, moment, self.request_deadline
            ):
                channel.will_close = True

"""The thin shell: one thread that carries a :class:`~controller.remote.link.Link` over a
paho-mqtt client, in the manner of pyserial's ``ReaderThread`` and of the Table.

paho's own network thread (``loop_start``) connects outwards, keeps the connection alive
and reconnects by itself with a growing delay (``reconnect``: 1 s doubling up to 30 s);
its callbacks only put what happened on a queue. The link's thread (``pyramid-remote``)
takes each input from that queue with the time from a monotonic clock, hands it to the
link, and carries out the step in the order the store needs: first ``on_step`` (which
keeps what happened: the Table stores delivered events and the acknowledgement mark and
returns only then), then it adopts the new link, then it publishes the step's messages.
When ``on_step`` raises, the step is dropped whole: nothing is acknowledged that was not
kept, and the other board sends it again.

**Session.** MQTT 3.1.1 with ``clean_session=False`` and a client id fixed by the game,
side and board (:func:`client_id`), QoS 1 both ways: while a board is away the broker
queues the other's messages for it, and a short drop loses nothing. Each side's state
is a retained message (and the will sets it offline), so a board that connects learns
at once how far the other is.
The events themselves are not retained: a retained log would make the broker the
game's storage, growing on someone else's server and gone with a broker restarted
without persistence. Each board's store is the log, and what the broker lost is asked
for again (:mod:`controller.remote.link`), so the link needs neither the session nor the
retained state to be complete, only to be quick.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Final

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.reasoncodes import ReasonCode

from controller.config import RemoteConfig
from controller.remote.link import Link, Report, Step
from controller.remote.outcomes import Acknowledged, Delivered, Outcome
from controller.remote.wire import MAX_EVENT_BYTES, JsonObject, event_bytes

__all__ = ["KEEPALIVE_S", "RECONNECT_S", "OnStep", "RemoteLink", "client_id"]

log = logging.getLogger("controller.remote")

KEEPALIVE_S: Final = 30
"""MQTT keep-alive: a broker gone silent is noticed within 1.5 times this."""
RECONNECT_S: Final = (1, 30)
"""paho's reconnect delay: the first, doubling up to the second."""

OnStep = Callable[[tuple[Outcome, ...], Report], None]
"""Called on the link's thread with what happened and the link's report (``since`` in
wall-clock seconds) whenever either changed; it returns once what happened is kept."""


@dataclass(frozen=True, slots=True)
class _Send:
    event: JsonObject


@dataclass(frozen=True, slots=True)
class _Received:
    topic: str
    payload: bytes


@dataclass(frozen=True, slots=True)
class _Connected:
    up: bool


@dataclass(frozen=True, slots=True)
class _Stop:
    pass


_Input = _Send | _Received | _Connected | _Stop


def client_id(link: Link) -> str:
    """The MQTT client id: fixed by game, side and board, so the broker keeps the session
    across restarts, and two boards that joined with one code do not throw each other off
    (the link refuses the second as a stranger instead). 23 characters: the most every
    MQTT 3.1.1 broker must accept.

    >>> from controller.remote.journal import MemoryJournal
    >>> from controller.remote.wire import Side, derive_keys
    >>> link = Link.restore(MemoryJournal(), keys=derive_keys("5A4L-KPRX-AC7H"),
    ...                     side=Side.JOINER, board="b1", name="Tim", now=0.0)
    >>> name = client_id(link)
    >>> name.startswith(f"pyr-{link.keys.room[:10]}-b-"), len(name)
    (True, 23)
    """
    board = hashlib.blake2b(link.board.encode(), digest_size=3).hexdigest()
    return f"pyr-{link.keys.room[:10]}-{link.side.value}-{board}"


class RemoteLink:
    """A link to the other board through the broker of ``[remote]``: :meth:`start`, then
    :meth:`send` each event made here and read :meth:`report`; :meth:`close` at the end.
    What arrives goes to ``on_step``."""

    def __init__(
        self,
        config: RemoteConfig,
        link: Link,
        on_step: OnStep,
        *,
        clock: Callable[[], float] = time.monotonic,
        reconnect: tuple[int, int] = RECONNECT_S,
        keepalive: int = KEEPALIVE_S,
    ) -> None:
        self._config = config
        self._link = link
        self._on_step = on_step
        self._clock = clock
        self._inputs: queue.SimpleQueue[_Input] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="pyramid-remote", daemon=True)
        self._keepalive = keepalive
        self._client = self._make_client(reconnect)
        self._started = False
        self.failed_attempts = 0
        """Connection attempts that failed or were refused since :meth:`start`."""

    # -- the client --------------------------------------------------------------------------

    def _make_client(self, reconnect: tuple[int, int]) -> mqtt.Client:
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id(self._link),
            clean_session=False,
            protocol=mqtt.MQTTv311,
        )
        if self._config.username is not None:
            client.username_pw_set(self._config.username, self._config.password)
        if self._config.tls:
            context = ssl.create_default_context(
                cafile=str(self._config.ca_file) if self._config.ca_file else None
            )
            client.tls_set_context(context)
        will = self._link.will()
        client.will_set(will.topic, will.payload, qos=1, retain=will.retain)
        client.reconnect_delay_set(min_delay=reconnect[0], max_delay=reconnect[1])
        client.on_socket_open = self._on_socket_open
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        return client

    def _on_connect(
        self, client: mqtt.Client, _userdata: Any, _flags: Any, reason: ReasonCode, _props: Any
    ) -> None:
        if reason.is_failure:
            log.warning("remote: the broker %s refused us: %s", self._config.broker, reason)
            self.failed_attempts += 1
            self._inputs.put(_Connected(up=False))
            return
        client.subscribe(self._link.subscription, qos=1)
        self._inputs.put(_Connected(up=True))

    def _on_socket_open(self, _client: mqtt.Client, _userdata: Any, sock: Any) -> None:
        # paho leaves Nagle's algorithm on: a small PUBACK or PUBLISH written while the last
        # is unacknowledged would wait for the peer's delayed ACK (40 ms on Linux).
        if isinstance(sock, socket.socket):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _on_connect_fail(self, _client: mqtt.Client, _userdata: Any) -> None:
        self.failed_attempts += 1  # only paho's thread writes it
        self._inputs.put(_Connected(up=False))

    def _on_disconnect(
        self, _client: mqtt.Client, _userdata: Any, _flags: Any, reason: ReasonCode, _props: Any
    ) -> None:
        self._inputs.put(_Connected(up=False))

    def _on_message(self, _client: mqtt.Client, _userdata: Any, message: mqtt.MQTTMessage) -> None:
        self._inputs.put(_Received(message.topic, bytes(message.payload)))

    # -- the owner ---------------------------------------------------------------------------

    def start(self) -> None:
        """Connect (in the background; a broker that is not there yet is retried)."""
        if self._started:
            raise RuntimeError("the link is already started")
        self._started = True
        self._thread.start()
        self._client.connect_async(self._config.host, self._config.port, self._keepalive)
        self._client.loop_start()

    def send(self, event: JsonObject) -> None:
        """An event made here, already stored as this board's next one (ValueError, here
        and at once, for what is no JSON object or is too large to send)."""
        size = event_bytes(event)
        if size > MAX_EVENT_BYTES:
            raise ValueError(f"an event of {size} bytes is more than {MAX_EVENT_BYTES}")
        self._inputs.put(_Send(event))

    def report(self) -> Report:
        """The link's state now (``since`` in wall-clock seconds), from any thread."""
        return self._wall(self._link.report())

    @property
    def link(self) -> Link:
        """The link's latest value (for tests and diagnostics)."""
        return self._link

    def close(self, timeout: float = 5.0) -> None:
        """Say goodbye (retained: offline), disconnect and end both threads."""
        if not self._started:
            return
        self._inputs.put(_Stop())
        self._thread.join(timeout)
        self._client.disconnect()
        self._client.loop_stop()

    def _wall(self, report: Report) -> Report:
        return replace(report, since=time.time() - (self._clock() - report.since))

    def _run(self) -> None:
        while True:
            deadline = self._link.next_deadline()
            wait = None if deadline is None else max(deadline - self._clock(), 0.0)
            try:
                item: _Input | None = self._inputs.get(timeout=wait)
            except queue.Empty:
                item = None
            now = self._clock()
            link = self._link
            if isinstance(item, _Stop):
                self._carry(link.closing(), wait_for_publish=True)
                return
            try:
                step = self._step(link, item, now)
            except Exception:  # a bug in the link: say so, and keep the thread alive
                log.exception("remote: the link failed on %r", item)
                continue
            self._carry(step)

    @staticmethod
    def _step(link: Link, item: _Input | None, now: float) -> Step:
        if item is None:
            return link.tick(now)
        if isinstance(item, _Send):
            return link.send(item.event, now)
        if isinstance(item, _Received):
            return link.received(item.topic, item.payload, now)
        if isinstance(item, _Connected):
            return link.connected(now) if item.up else link.disconnected(now)
        raise TypeError(f"not an input: {item!r}")

    def _carry(self, step: Step, *, wait_for_publish: bool = False) -> None:
        before = self._link.report()
        report = step.link.report()
        if step.happened or report != before:
            try:
                self._on_step(step.happened, self._wall(report))
            except Exception:
                if any(isinstance(o, Delivered | Acknowledged) for o in step.happened):
                    # Not kept: drop the step whole (a received message, which changes no
                    # connection state), so it is acknowledged only when it comes again.
                    log.exception("remote: a received event was not kept; it comes again")
                    return
                log.exception("remote: on_step failed on a report")
        self._link = step.link
        for message in step.publish:
            info = self._client.publish(
                message.topic, message.payload, qos=1, retain=message.retain
            )
            if wait_for_publish and info.rc == mqtt.MQTT_ERR_SUCCESS:
                info.wait_for_publish(timeout=2.0)

"""The thin shell: one thread that carries a :class:`~controller.remote.link.Link` over a
paho-mqtt client, in the manner of pyserial's ``ReaderThread`` and of the Table.

(Longer than most shells: besides the thread, paho's callbacks drop what a stranger sends
before it is queued (:class:`_BoundedClient`, the junk counts, the once-a-second opening
of a code-sealed message), and that gate must be read beside the queue it guards.)

The network thread (``pyramid-mqtt``) connects outwards, runs paho's loop while the
connection lasts and, when it is lost or refused, waits as :class:`~controller.remote.
backoff.Backoff` says (0.1 s doubling to 1 s, with jitter) before the next try, so a board
is back within about a second of the broker's return; before each try it sets the will
for that connection (:meth:`Link.will`). paho's callbacks only put what happened on a
queue. The link's thread (``pyramid-remote``)
takes each input from that queue with the time from a monotonic clock, hands it to the
link, and carries out the step in the order the store needs: first ``on_step`` (which
keeps what happened: the Table stores delivered events and the acknowledgement mark and
returns only then), then it adopts the new link, then it publishes the step's messages.
When ``on_step`` raises, the step is dropped whole: nothing is acknowledged that was not
kept, and the other board sends it again.

**Session.** MQTT 5, a clean start at each start of the link and the session kept for
:data:`SESSION_S` after that, and a client id drawn at random at each start
(:func:`client_id`: nothing public tells it, so nobody can take the board's place at the
broker and push it off), QoS 1 both ways: while a board is away in one run, the broker
queues the other's messages for it, and a short drop loses nothing. Each side's state is
a retained message (and the will sets it offline), so a board that connects learns at
once how far the other is. The events themselves are not retained: a retained log would
make the broker the game's storage, growing on someone else's server and gone with a
broker restarted without persistence. Each board's store is the log, and what the broker
lost is asked for again (:mod:`controller.remote.link`), so the link needs neither the
session nor the retained state to be complete, only to be quick.

**Bounded input.** CONNECT says :data:`MAX_PACKET` (MQTT 5's Maximum Packet Size): the
broker drops anything larger for this board (and should one send it anyway, the client
hangs up once it has read the packet's length, before its body). The board subscribes to
the other side's two topics exactly. On paho's thread, a payload that is not shaped like
a sealed message (:func:`~controller.remote.wire.plausible`; once paired, also one
naming another key), a retained event and, once paired, all but one per
:data:`CODE_OPEN_S` of the messages sealed with the code alone are dropped and counted
before anything else reads them, and what waits for the link's thread is held to
:data:`QUEUE_BYTES`. Messages the link drops change only counts: the page hears of them
at most once per :data:`COUNTS_S`, so a flood costs neither a decrypt per message nor a
republish.
"""

from __future__ import annotations

import logging
import math
import queue
import random
import secrets
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from controller.remote.backoff import Backoff
from controller.remote.link import Connection, Link, Report, Step
from controller.remote.outcomes import Acknowledged, Crossed, Delivered, Ignored, Outcome, Voided
from controller.remote.wire import (
    FRAME,
    MAX_EVENT_BYTES,
    MAX_PAYLOAD,
    JsonObject,
    Kind,
    RecordEntry,
    event_bytes,
    plausible,
)

if TYPE_CHECKING:
    from controller.config_schema import RemoteConfig

__all__ = ["CODE_OPEN_S", "COUNTS_S", "KEEPALIVE_S", "MAX_PACKET", "QUEUE_BYTES", "RECONNECT_S",
           "SESSION_S", "OnStep", "RemoteLink", "client_id", "worth_saying"]  # fmt: skip

log = logging.getLogger("controller.remote")

KEEPALIVE_S: Final = 10
"""MQTT keep-alive: a broker (or a route to it) gone silent is noticed within 15 s; a
broker that stops closes the connection, which is noticed at once."""
RECONNECT_S: Final = Backoff()
"""The waits between tries to reach the broker."""
_LOOP_S: Final = 0.5
"""paho's loop returns this often to see whether the link is closing."""
MAX_PACKET: Final = MAX_PAYLOAD + 1024
"""Bytes: the largest MQTT packet this board takes (a payload of :data:`~controller.
remote.wire.MAX_PAYLOAD`, its topic and headers), said to the broker in CONNECT (MQTT 5's
Maximum Packet Size): the broker drops a larger message for this board instead of
sending it, so a stranger's 250 MiB never reaches its memory."""
QUEUE_BYTES: Final = 1024 * 1024
"""Bytes of received payloads waiting for the link's thread at most; more is dropped and
counted (``junk``): the link asks again for what it lacks."""
COUNTS_S: Final = 1.0
"""Seconds: messages dropped unread change the page (``on_step``) at most this often."""
CODE_OPEN_S: Final = 1.0
"""Seconds: once paired, a message sealed with the code alone is opened at most this
often (to tell another board that tried; the others are junk, unopened)."""
SESSION_S: Final = 24 * 3600
"""Seconds the broker keeps this board's session (what it queues for it) once it is
gone; a restarted board's old session goes after this long."""

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
    conn: int | None = None
    """The connection the broker took (its will names it)."""


@dataclass(frozen=True, slots=True)
class _Stop:
    pass


@dataclass(frozen=True, slots=True)
class _Dropped:
    """Messages were dropped unread (the count is the shell's): say so, not too often."""


@dataclass(frozen=True, slots=True)
class _Refuse:
    seq: int


@dataclass(frozen=True, slots=True)
class _WantRecord:
    pass


@dataclass(frozen=True, slots=True)
class _SendRecord:
    entries: tuple[RecordEntry, ...]


_Input = _Send | _Received | _Connected | _Stop | _Refuse | _WantRecord | _SendRecord | _Dropped


class _BoundedClient(mqtt.Client):
    """paho's client, refusing a packet longer than :data:`MAX_PACKET` once its length is
    read and before its body is (for a broker that does not honour the Maximum Packet
    Size it was told): the connection is dropped, as MQTT 5 says, and made again."""

    def _sock_recv(self, bufsize: int) -> bytes:
        packet = self._in_packet
        if packet["have_remaining"] and packet["remaining_length"] > MAX_PACKET:
            length = packet["remaining_length"]
            log.warning("remote: the broker sent a packet of %d bytes; dropping it", length)
            raise OSError(f"a packet of {length} bytes, more than {MAX_PACKET}")
        return super()._sock_recv(bufsize)


def worth_saying(count: int, before: int) -> bool:
    """Whether a count of dropped messages that went from ``before`` to ``count`` gets a
    log line: the first, then one per hundred (a stranger's flood writes a line per
    hundred messages, not one each).

    >>> [n for n in range(1, 301) if worth_saying(n, n - 1)]
    [1, 100, 200, 300]
    >>> worth_saying(250, 150), worth_saying(150, 150)
    (True, False)
    """
    return count > before and (before == 0 or count // 100 > before // 100)


def client_id() -> str:
    """An MQTT client id for one start of a link: 72 random bits, nothing derived from the
    room, the side or the board (a stranger who could tell it could connect under it and
    push the board off the broker). 22 characters: fewer than the 23 every MQTT 3.1.1
    broker must accept. Two boards that joined with one code do not throw each other off
    either (the link refuses the second as a stranger).

    >>> a, b = client_id(), client_id()
    >>> a.startswith("pyr-"), len(a), a != b
    (True, 22, True)
    """
    return f"pyr-{secrets.token_hex(9)}"


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
        reconnect: Backoff = RECONNECT_S,
        keepalive: int = KEEPALIVE_S,
        draw: Callable[[], float] = random.random,
    ) -> None:
        self._config = config
        self._link = link
        self._on_step = on_step
        self._clock = clock
        self._draw = draw
        self._inputs: queue.SimpleQueue[_Input] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="pyramid-remote", daemon=True)
        self._network = threading.Thread(target=self._connect, name="pyramid-mqtt", daemon=True)
        self._closing = threading.Event()
        self._keepalive = keepalive
        self.backoff = reconnect
        """The waits before the next try (only the network thread writes it)."""
        self._attempt = 0
        self._client = self._make_client()
        self._started = False
        self.failed_attempts = 0
        """Connection attempts that failed or were refused since :meth:`start`."""
        self.connections = 0
        """Connections the broker took since :meth:`start`."""
        self.changed = threading.Condition()
        """Notified whenever :attr:`failed_attempts`, :attr:`connections` or the link's
        report changes (tests and the benchmark wait on it instead of polling)."""
        self._lost_at: float | None = None
        self._refused = ""
        """Why the broker last refused us (said once until it changes or we are in)."""
        self._held = threading.Lock()
        self._held_bytes = 0
        """Bytes of received payloads on the queue (paho's thread adds, the link's takes)."""
        self._junk = 0
        """Messages dropped on paho's thread, unread (only that thread writes it)."""
        self._dropped_due = False
        """A :class:`_Dropped` is on the queue."""
        self._event_topic = link.keys.topic(link.side.other, Kind.EVENT)
        self._told_at = -math.inf
        """When ``on_step`` last heard of messages dropped unread."""
        self._tell_at: float | None = None
        """When it is to hear of them next (None: nothing new)."""
        self._code_opened_at = -math.inf
        """When a message sealed with the code alone was last opened after pairing."""
        self._will_paired = False
        """The will of this connection is sealed with the pair key."""
        self._renewing = False
        """Disconnected on purpose, to connect again with a will sealed with the pair key."""

    # -- the client --------------------------------------------------------------------------

    def _make_client(self) -> mqtt.Client:
        client = _BoundedClient(
            CallbackAPIVersion.VERSION2, client_id=client_id(), protocol=mqtt.MQTTv5
        )
        if self._config.username is not None:
            client.username_pw_set(self._config.username, self._config.password)
        if self._config.tls:
            context = ssl.create_default_context(
                cafile=str(self._config.ca_file) if self._config.ca_file else None
            )
            client.tls_set_context(context)
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
            if str(reason) != self._refused:  # said once, not at every try a second
                log.warning("remote: the broker %s refused us: %s", self._config.broker, reason)
            self._refused = str(reason)
            self._count_failure()
            self._inputs.put(_Connected(up=False))
            return
        client.subscribe([(topic, SubscribeOptions(qos=1)) for topic in self._link.topics])
        self._refused = ""
        self.backoff = self.backoff.connected()
        with self.changed:
            self.connections += 1
            self.changed.notify_all()
        self._inputs.put(_Connected(up=True, conn=self._attempt))

    def _on_socket_open(self, _client: mqtt.Client, _userdata: Any, sock: Any) -> None:
        # paho leaves Nagle's algorithm on: a small PUBACK or PUBLISH written while the last
        # is unacknowledged would wait for the peer's delayed ACK (40 ms on Linux).
        if isinstance(sock, socket.socket):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _count_failure(self) -> None:
        with self.changed:
            self.failed_attempts += 1  # only the network thread writes it
            self.changed.notify_all()

    def _on_connect_fail(self, _client: mqtt.Client, _userdata: Any) -> None:
        self._count_failure()
        self._inputs.put(_Connected(up=False))

    def _on_disconnect(
        self, _client: mqtt.Client, _userdata: Any, _flags: Any, reason: ReasonCode, _props: Any
    ) -> None:
        self._inputs.put(_Connected(up=False))

    def _on_message(self, _client: mqtt.Client, _userdata: Any, message: mqtt.MQTTMessage) -> None:
        """paho's thread: what cannot be a message of the link (its shape, a retained
        event: the boards never retain one) is dropped and counted here, unread; the rest
        waits for the link's thread, up to :data:`QUEUE_BYTES`."""
        payload = bytes(message.payload)
        peer = self._link.peer_pub
        junk = not plausible(payload, peer or None) or (
            message.retain and message.topic == self._event_topic
        )
        if not junk and peer and payload.startswith(FRAME):
            # Sealed with the code alone after the boards paired: never believed; one a
            # second is opened, to tell another board with the code from junk.
            now = self._clock()
            junk = now < self._code_opened_at + CODE_OPEN_S
            if not junk:
                self._code_opened_at = now
        if not junk:
            with self._held:
                junk = self._held_bytes + len(payload) > QUEUE_BYTES
                if not junk:
                    self._held_bytes += len(payload)
        if not junk:
            self._inputs.put(_Received(message.topic, payload))
            return
        with self.changed:
            self._junk += 1
            self.changed.notify_all()
        if worth_saying(self._junk, self._junk - 1):
            log.warning("remote: dropped messages (junk, unread): %d so far", self._junk)
        if not self._dropped_due:
            self._dropped_due = True
            self._inputs.put(_Dropped())

    # -- the owner ---------------------------------------------------------------------------

    def start(self) -> None:
        """Connect (in the background; a broker that is not there yet is retried)."""
        if self._started:
            raise RuntimeError("the link is already started")
        self._started = True
        self._thread.start()
        self._network.start()

    def _connect(self) -> None:
        """The network thread: try, run the connection while it lasts, wait, try again."""
        client, first = self._client, True
        connect = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        connect.MaximumPacketSize = MAX_PACKET
        connect.SessionExpiryInterval = SESSION_S
        while not self._closing.is_set():
            self._attempt += 1
            link = self._link
            will = link.will(self._attempt)
            client.will_set(will.topic, will.payload, qos=1, retain=will.retain)
            self._will_paired, self._renewing = bool(link.pair), False
            try:
                if first:
                    client.connect(
                        self._config.host,
                        self._config.port,
                        self._keepalive,
                        clean_start=mqtt.MQTT_CLEAN_START_FIRST_ONLY,
                        properties=connect,
                    )
                else:
                    client.reconnect()
            except (OSError, ValueError) as exc:  # refused, unreachable, no such host
                if self.failed_attempts == 0 or log.isEnabledFor(logging.DEBUG):
                    log.info("remote: cannot reach the broker %s: %s", self._config.broker, exc)
                self._count_failure()
                self._inputs.put(_Connected(up=False))
            else:
                first = False
                rc = mqtt.MQTT_ERR_SUCCESS
                while rc == mqtt.MQTT_ERR_SUCCESS and not self._closing.is_set():
                    rc = client.loop(_LOOP_S)
                if self._closing.is_set():
                    return
            wait = self.backoff.wait(self._draw())
            self.backoff = self.backoff.failed()
            self._closing.wait(wait)

    def send(self, event: JsonObject) -> None:
        """An event made here, already stored as this board's next one (ValueError, here
        and at once, for what is no JSON object or is too large to send)."""
        size = event_bytes(event)
        if size > MAX_EVENT_BYTES:
            raise ValueError(f"an event of {size} bytes is more than {MAX_EVENT_BYTES}")
        self._inputs.put(_Send(event))

    def refuse(self, seq: int) -> None:
        """The inviting board's game could not take the joining board's event ``seq``."""
        self._inputs.put(_Refuse(seq))

    def want_record(self) -> None:
        """The joining board asks for the inviting board's record."""
        self._inputs.put(_WantRecord())

    def send_record(self, entries: tuple[RecordEntry, ...]) -> None:
        """The inviting board's record, as the joining board asked."""
        self._inputs.put(_SendRecord(entries))

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
        self._closing.set()
        self._network.join(timeout)

    def _wall(self, report: Report) -> Report:
        """``report`` with ``since`` in wall-clock time and the messages dropped unread."""
        counts = replace(report.counts, junk=report.counts.junk + self._junk)
        return replace(report, since=time.time() - (self._clock() - report.since), counts=counts)

    def _run(self) -> None:
        while True:
            deadline = self._link.next_deadline()
            if self._tell_at is not None:
                deadline = min(self._tell_at, deadline or math.inf)
            wait = None if deadline is None else max(deadline - self._clock(), 0.0)
            try:
                item: _Input | None = self._inputs.get(timeout=wait)
            except queue.Empty:
                item = None
            now = self._clock()
            link = self._link
            if isinstance(item, _Received):
                with self._held:
                    self._held_bytes -= len(item.payload)
            if self._tell_at is not None and now >= self._tell_at:
                self._tell(now)
            if isinstance(item, _Dropped):
                self._dropped_due = False
                self._quiet(now)
                continue
            if isinstance(item, _Stop):
                self._carry(link.closing(), wait_for_publish=True)
                return
            try:
                step = self._step(link, item, now)
            except Exception:  # a bug in the link: say so, and keep the thread alive
                log.exception("remote: the link failed on %r", item)
                continue
            self._carry(step, now=now)

    def _quiet(self, now: float) -> None:
        """Only counts of dropped messages changed: ``on_step`` (which republishes the
        page) hears of it at most once per :data:`COUNTS_S`."""
        if now >= self._told_at + COUNTS_S:
            self._tell(now)
        elif self._tell_at is None:
            self._tell_at = self._told_at + COUNTS_S

    def _tell(self, now: float) -> None:
        self._told_at, self._tell_at = now, None
        try:
            self._on_step((), self._wall(self._link.report()))
        except Exception:
            log.exception("remote: on_step failed on a report")

    @staticmethod
    def _step(link: Link, item: _Input | None, now: float) -> Step:
        if item is None:
            return link.tick(now)
        if isinstance(item, _Send):
            return link.send(item.event, now)
        if isinstance(item, _Received):
            return link.received(item.topic, item.payload, now)
        if isinstance(item, _Connected):
            return link.connected(now, item.conn) if item.up else link.disconnected(now)
        if isinstance(item, _Refuse):
            return link.refuse(item.seq, now)
        if isinstance(item, _WantRecord):
            return link.want_record(now)
        if isinstance(item, _SendRecord):
            return link.send_record(item.entries, now)
        raise TypeError(f"not an input: {item!r}")

    def _carry(self, step: Step, *, now: float = 0.0, wait_for_publish: bool = False) -> None:
        before = self._link.report()
        report = step.link.report()
        self._say(before, report, step.happened)
        quiet = all(isinstance(o, Ignored) for o in step.happened) and not step.publish
        if quiet and replace(before, counts=report.counts) == report:
            self._link = step.link
            if report != before:
                with self.changed:
                    self.changed.notify_all()
                self._quiet(now)
            return
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
        if report != before:
            with self.changed:
                self.changed.notify_all()
        for message in step.publish:
            info = self._client.publish(
                message.topic, message.payload, qos=1, retain=message.retain
            )
            if wait_for_publish and info.rc == mqtt.MQTT_ERR_SUCCESS:
                info.wait_for_publish(timeout=2.0)
        settled = report.unsent == report.missing == 0 and report.peer_online
        if report.paired and settled and not self._will_paired and not self._renewing:
            # The will set at CONNECT was sealed with the code alone, which the other
            # board no longer believes: connect again (a normal disconnect: the broker
            # drops that will) so that it is sealed with the pair key. Once per game,
            # once nothing waits either way (a join is not held up by it).
            log.info("remote: paired with the other board; connecting again for its will")
            self._renewing = True
            self._client.disconnect()

    def _say(self, before: Report, after: Report, happened: tuple[Outcome, ...]) -> None:
        """A log line for every change of the link a person may ask about later."""
        broker = self._config.broker
        if after.connection is not before.connection:
            if after.connection is Connection.CONNECTED:
                if self._lost_at is None:
                    log.info("remote: connected to the broker %s", broker)
                else:
                    log.info(
                        "remote: connected to the broker %s again after %.1f s",
                        broker,
                        self._clock() - self._lost_at,
                    )
                self._lost_at = None
            elif after.connection is Connection.UNREACHABLE and self._renewing:
                self._lost_at = self._clock()
            elif after.connection is Connection.UNREACHABLE:
                self._lost_at = self._clock()
                log.warning(
                    "remote: lost the broker %s; moves are kept and sent when it is back",
                    broker,
                )
        if after.peer_online is not before.peer_online and after.peer_online is not None:
            state = "online" if after.peer_online else "offline"
            log.info("remote: the other board (%s) is %s", after.peer_name, state)
        if after.unanswered and not before.unanswered:
            log.warning("remote: nobody has answered this code yet")
        strangers, before_ = after.counts.strangers, before.counts.strangers
        if worth_saying(strangers, before_):
            log.warning(
                "remote: another board with this game's code tried to join it (%d messages)",
                strangers,
            )
        for outcome in happened:
            if isinstance(outcome, Voided):
                log.warning(
                    "remote: events %s of this board crossed the other board's and are undone",
                    list(outcome.seqs),
                )
            elif isinstance(outcome, Crossed):
                log.warning(
                    "remote: event %d of the other board crossed this board's; not applied",
                    outcome.seq,
                )
        counts, was = after.counts, before.counts
        for reason, now_, then in (
            ("stale or replayed", counts.stale, was.stale),
            ("duplicate", counts.duplicates, was.duplicates),
            ("wrong key", counts.wrong_key, was.wrong_key),
            ("malformed", counts.malformed, was.malformed),
            ("other game", counts.other_game, was.other_game),
        ):
            if worth_saying(now_, then):
                log.warning("remote: dropped messages (%s): %d so far", reason, now_)

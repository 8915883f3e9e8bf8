"""Two pure links and a modelled broker between them, in virtual time.

:class:`Broker` models what the link relies on from an MQTT broker at QoS 1, and no
more: a message published on a topic reaches the other board if it is connected then,
in the order published unless the test reorders it; the newest retained message of each
topic is kept and handed to a board when it connects. Nothing is queued for a board that
is away (the worst case: a session the broker lost, or a broker restarted without
persistence), so every catch-up here is the link's own work. The test may lose,
duplicate and reorder messages in flight, as a broker, a reconnect or QoS 1's
redelivery can. The real broker is :mod:`rigs.mosquitto`'s Mosquitto (tests/remote/test_mqtt.py).
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field, replace

from controller.remote.journal import Journal, Origin
from controller.remote.link import Connection, Link, LinkTiming, Publish, Step
from controller.remote.outcomes import Outcome, Paired
from controller.remote.wire import (
    Envelope,
    JsonObject,
    LinkKeys,
    OtherVersion,
    Refused,
    Side,
    derive_keys,
    open_message,
    seal,
)
from rigs.journal import MemoryJournal

CODE = "5A4L-KPRX-AC7H"
OTHER_CODE = "ABCD-EFGH-JKLV"
TIMING = LinkTiming(resend_s=3.0, resend_max_s=48.0)


def sealed_by(link: Link, topic: str, envelope: Envelope) -> bytes:
    """``envelope`` sealed as ``link``'s board seals it (with the pair key once paired)."""
    assert link.pairing is not None
    mine = replace(envelope, pub=link.pairing.public)
    return seal(link.keys, topic, mine, bytes(12), link.pair or None)


def opened(link: Link, message: Publish) -> Envelope | OtherVersion | Refused:
    """``message`` opened as ``link``'s board opens it."""
    pair = (link.peer_pub, link.pair)
    return open_message(link.keys, message.topic, message.payload, mine=link.pairing, pair=pair)


def link_of(
    board: str,
    name: str,
    side: Side,
    *,
    keys: LinkKeys | None = None,
    journal: Journal | None = None,
    timing: LinkTiming | None = None,
    peer: tuple[str, bytes] | None = None,
) -> Link:
    """A board's link restored at time 0 (from an empty journal by default), its secret
    :func:`secret_of` its id: a stranger's, or one the test drives by hand."""
    return Link.restore(journal if journal is not None else MemoryJournal(),
                        keys=keys if keys is not None else derive_keys(CODE), side=side,
                        board=board, secret=secret_of(board), name=name, now=0.0,
                        timing=timing or LinkTiming(), peer=peer)  # fmt: skip


def secret_of(board: str) -> bytes:
    """A board's own secret for the tests: its id's hash (a real board draws one)."""
    return hashlib.sha256(board.encode()).digest()


@functools.cache
def keys(code: str = CODE) -> LinkKeys:
    """Derived once per code and test run (scrypt takes a third of a second)."""
    return derive_keys(code)


class Board:
    """One board: its store (a :class:`MemoryJournal`) and its link, restored from it."""

    def __init__(self, side: Side, name: str, *, code: str = CODE, now: float = 0.0) -> None:
        self.side = side
        self.name = name
        self.code = code
        self.journal = MemoryJournal()
        self.happened: list[Outcome] = []
        self.peer: tuple[str, bytes] | None = None
        """The other board once paired, kept as the store keeps it."""
        self.link = self._restore(now)

    def _restore(self, now: float) -> Link:
        return Link.restore(
            self.journal,
            keys=keys(self.code),
            side=self.side,
            board=f"{self.name}-board",
            secret=secret_of(f"{self.name}-board"),
            name=self.name,
            now=now,
            timing=TIMING,
            peer=self.peer,
        )

    def carry(self, step: Step) -> list[Publish]:
        """What the Table will do with a step: keep what happened, then publish."""
        self.journal.apply(step.happened)
        self.happened += step.happened
        for outcome in step.happened:
            if isinstance(outcome, Paired):
                self.peer = (outcome.board, outcome.public)
        self.link = step.link
        return list(step.publish)

    def restart(self, now: float) -> None:
        """The process ends and starts again: the link is rebuilt from the store alone."""
        self.link = self._restore(now)

    def events(self, origin: Origin) -> list[JsonObject]:
        return list(self.journal.of(origin))


@dataclass
class Flight:
    to: Board
    message: Publish


@dataclass
class Broker:
    boards: tuple[Board, Board]
    now: float = 0.0
    flight: list[Flight] = field(default_factory=list)
    retained: dict[str, Publish] = field(default_factory=dict)
    sent: list[tuple[str, Publish]] = field(default_factory=list)
    """Every message published, with the name of the board that published it."""

    def other(self, board: Board) -> Board:
        return self.boards[1] if board is self.boards[0] else self.boards[0]

    def publish(self, sender: Board, messages: list[Publish]) -> None:
        receiver = self.other(sender)
        for message in messages:
            self.sent.append((sender.name, message))
            if message.retain:
                self.retained[message.topic] = message
            if receiver.link.connection is Connection.CONNECTED:
                self.flight.append(Flight(receiver, message))

    def carry(self, board: Board, step: Step) -> None:
        self.publish(board, board.carry(step))

    def make(self, board: Board, event: JsonObject) -> None:
        """An event made at ``board``: stored first, then handed to its link."""
        board.journal.made(event)
        self.carry(board, board.link.send(event, self.now))

    def connect(self, board: Board) -> None:
        self.carry(board, board.link.connected(self.now))
        for topic, message in sorted(self.retained.items()):
            if topic in board.link.topics:
                self.flight.append(Flight(board, message))

    def disconnect(self, board: Board) -> None:
        self.carry(board, board.link.disconnected(self.now))
        self.flight = [f for f in self.flight if f.to is not board]

    def restart(self, board: Board) -> None:
        """Killed (the will says offline) and started again, not yet connected."""
        self.disconnect(board)
        self.publish(board, [board.link.will(board.link.conn)])
        board.restart(self.now)

    def deliver(self, index: int = 0) -> None:
        flight = self.flight.pop(index)
        if flight.to.link.connection is Connection.CONNECTED:
            step = flight.to.link.received(flight.message.topic, flight.message.payload, self.now)
            self.carry(flight.to, step)

    def deliver_all(self, limit: int = 10_000) -> None:
        for _ in range(limit):
            if not self.flight:
                return
            self.deliver()
        raise AssertionError(f"still {len(self.flight)} messages in flight after {limit}")

    def advance(self, seconds: float) -> None:
        self.now += seconds
        for board in self.boards:
            self.carry(board, board.link.tick(self.now))

    def settle(self) -> None:
        """Deliver everything, letting time pass for the resend timers, until both links
        have nothing unsent or missing (or fail after a bounded number of rounds)."""
        for _ in range(50):
            self.deliver_all()
            links = [b.link for b in self.boards]
            if all(link.unsent == link.missing == 0 for link in links):
                return
            deadlines = [d for d in (link.next_deadline() for link in links) if d is not None]
            self.advance(max(min(deadlines, default=self.now) - self.now, 0.001))
        raise AssertionError(f"not settled: {[b.link.report() for b in self.boards]}")


def pair(now: float = 0.0) -> tuple[Broker, Board, Board]:
    """Oma's board (it invited) and Tim's (it joined), both connected."""
    oma = Board(Side.INVITER, "Oma", now=now)
    tim = Board(Side.JOINER, "Tim", now=now)
    broker = Broker((oma, tim), now=now)
    broker.connect(oma)
    broker.connect(tim)
    broker.deliver_all()
    return broker, oma, tim


def move(n: int, board: str = "oma") -> JsonObject:
    return {"kind": "move", "data": {"cell": f"c{n}", "by": board}, "n": n}

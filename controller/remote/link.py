"""The link between two boards as a pure state machine, with time passed in.

In the manner of pyserial's ``Protocol`` (and of the referee): a :class:`Link` is one
frozen value; each input — :meth:`~Link.send` an event made here, a message
:meth:`~Link.received` from the broker, :meth:`~Link.connected`,
:meth:`~Link.disconnected`, :meth:`~Link.tick` — returns a :class:`Step`: the next link,
the messages to publish and what happened (:mod:`controller.remote.outcomes`). No
threads, no clock, no I/O; :mod:`controller.remote.mqtt` carries it over paho-mqtt.

How nothing is lost and nothing is applied twice:

- Each board numbers its own events 1, 2, 3 …; the other board applies them in that
  order, each once (:class:`~controller.remote.outcomes.Delivered`). A number already
  applied (MQTT redelivers at QoS 1, and the link resends) is a duplicate, counted and
  dropped; a number ahead of the next is held and the missing ones are asked for.
- Every message, whatever it carries, says how far its sender has applied the other
  board's events (``ack``) and how many it has made itself (``last``), so one message of
  any kind shows a lost acknowledgement or a lost last event.
- Events not acknowledged go out again after ``resend_s``, then after twice as long each
  time up to ``resend_max_s`` (a board that is off for a day is not flooded), at once
  when this board reconnects, and when the other board comes back online.
- Each side publishes its state retained: a board that connects learns at once how far
  the other is and asks for what it lacks. A will says when a board drops off.

>>> from controller.remote.journal import MemoryJournal
>>> from controller.remote.wire import derive_keys
>>> keys = derive_keys("5A4L-KPRX-AC7H")
>>> oma = Link.restore(MemoryJournal(), keys=keys, side=Side.INVITER, board="o1", name="Oma",
...                    now=0.0)
>>> tim = Link.restore(MemoryJournal(), keys=keys, side=Side.JOINER, board="t1", name="Tim",
...                    now=0.0)
>>> oma, tim = oma.connected(1.0).link, tim.connected(1.0).link
>>> step = oma.send({"kind": "move", "cell": "c3"}, now=2.0)
>>> [m.topic.rsplit("/", 2)[1:] for m in step.publish]
[['a', 'event']]
>>> got = tim.received(step.publish[0].topic, step.publish[0].payload, now=2.1)
>>> got.happened
(Delivered(seq=1, event={'kind': 'move', 'cell': 'c3'}),)
>>> again = got.link.received(step.publish[0].topic, step.publish[0].payload, now=2.2)
>>> again.happened, again.link.counts.duplicates
((), 1)
>>> oma = step.link.received(got.publish[0].topic, got.publish[0].payload, now=2.3)
>>> oma.happened, oma.link.report().unsent, oma.link.report().peer_name
((Acknowledged(upto=1),), 0, 'Tim')
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Final

from controller.remote.journal import Journal, JournalError, Origin
from controller.remote.outcomes import Acknowledged, Delivered, Ignored, Outcome
from controller.remote.wire import (
    MAX_EVENT_BYTES,
    NONCE_BYTES,
    Envelope,
    JsonObject,
    Kind,
    LinkKeys,
    OtherVersion,
    Reason,
    Refused,
    Side,
    event_bytes,
    open_message,
    seal,
)

__all__ = ["MAX_BATCH", "MAX_HELD", "Connection", "Counts", "Link", "LinkTiming", "Publish",
           "Report", "Step"]  # fmt: skip

MAX_HELD: Final = 256
"""Events ahead of a gap kept until it is filled; later ones wait to be sent again."""
MAX_BATCH: Final = 256
"""Events sent again at most in one go (a whole game is fewer)."""


@dataclass(frozen=True, slots=True)
class LinkTiming:
    resend_s: float = 3.0
    """Unacknowledged events, and a request for missing ones, go again after this long."""
    resend_max_s: float = 120.0
    """The wait doubles after each unanswered try, up to this."""


class Connection(enum.Enum):
    """The link's way to the broker."""

    CONNECTING = "connecting"
    """Not yet connected since the start."""
    CONNECTED = "connected"
    UNREACHABLE = "unreachable"
    """The broker was lost or refused us; the shell keeps trying."""


@dataclass(frozen=True, slots=True)
class Counts:
    """Messages this link dropped, by reason, and events it sent more than once."""

    duplicates: int = 0
    wrong_key: int = 0
    malformed: int = 0
    other_game: int = 0
    strangers: int = 0
    resent: int = 0

    def of(self, reason: Reason) -> Counts:
        """One more message dropped for ``reason``."""
        if reason is Reason.WRONG_KEY:
            return replace(self, wrong_key=self.wrong_key + 1)
        if reason is Reason.MALFORMED:
            return replace(self, malformed=self.malformed + 1)
        if reason is Reason.OTHER_GAME:
            return replace(self, other_game=self.other_game + 1)
        return replace(self, strangers=self.strangers + 1)


@dataclass(frozen=True, slots=True)
class Publish:
    """One MQTT message to publish at QoS 1."""

    topic: str
    payload: bytes = field(repr=False)
    retain: bool = False


@dataclass(frozen=True, slots=True)
class Report:
    """What the page says about the link."""

    connection: Connection
    since: float
    """When :attr:`connection` began, on the clock the link is fed."""
    peer_name: str | None
    """The other board's name, once a message from it came."""
    peer_online: bool | None
    """Whether the other board is on the broker, as far as its last word says."""
    unsent: int
    """This board's events the other has not acknowledged."""
    missing: int
    """The other board's events known to exist and not yet applied here."""
    other_version: OtherVersion | None
    counts: Counts

    def data(self) -> dict[str, Any]:
        """The report as JSON."""
        return {
            "connection": self.connection.value,
            "since": self.since,
            "peer_name": self.peer_name,
            "peer_online": self.peer_online,
            "unsent": self.unsent,
            "missing": self.missing,
            "other_version": None if self.other_version is None else self.other_version.theirs,
            "counts": {
                "duplicates": self.counts.duplicates,
                "wrong_key": self.counts.wrong_key,
                "malformed": self.counts.malformed,
                "other_game": self.counts.other_game,
                "strangers": self.counts.strangers,
                "resent": self.counts.resent,
            },
        }


@dataclass(frozen=True, slots=True)
class Step:
    link: Link
    publish: tuple[Publish, ...] = ()
    """To publish in this order, after the owner has kept what :attr:`happened`."""
    happened: tuple[Outcome, ...] = ()


Nonces = Callable[[int], bytes]
"""A source of random bytes for the nonces (``os.urandom``; tests may seed one)."""


@dataclass(frozen=True, slots=True)
class Link:
    """One board's end of a linked game. Make it with :meth:`restore`."""

    keys: LinkKeys
    side: Side
    board: str
    """This board's id (random, made once per board and kept)."""
    name: str
    """This board's name, shown at the other board."""
    since: float
    """When :attr:`connection` began."""
    nonces: Nonces = field(default=os.urandom, compare=False, repr=False)
    timing: LinkTiming = LinkTiming()
    mine: tuple[JsonObject, ...] = ()
    """This board's events; number ``i + 1`` is ``mine[i]``."""
    acked: int = 0
    """The other board has applied ``mine`` up to this number."""
    delivered: int = 0
    """The other board's events applied here, up to this number."""
    held: tuple[tuple[int, JsonObject], ...] = ()
    """The other board's events received ahead of a gap, by number."""
    peer_last: int = 0
    peer_board: str | None = None
    peer_name: str | None = None
    peer_online: bool | None = None
    connection: Connection = Connection.CONNECTING
    sent_at: float | None = None
    """When the unacknowledged events last went out (None: none wait, or not connected)."""
    send_wait: float = 0.0
    asked_at: float | None = None
    """When the missing events were last asked for (None: none are missing)."""
    ask_wait: float = 0.0
    answered: tuple[int, float] | None = None
    """The last request for events answered: from which number, and when."""
    other_version: OtherVersion | None = None
    counts: Counts = Counts()

    # -- making one --------------------------------------------------------------------------

    @classmethod
    def restore(
        cls,
        journal: Journal,
        *,
        keys: LinkKeys,
        side: Side,
        board: str,
        name: str,
        now: float,
        nonces: Nonces = os.urandom,
        timing: LinkTiming = LinkTiming(),
    ) -> Link:
        """The link of a game whose events so far are in ``journal`` (none for a new one).

        Raises :class:`JournalError` when the journal's numbers do not run 1, 2, 3 … for
        each origin or it acknowledges more events than were made here.
        """
        for text, what in ((board, "board"), (name, "name")):
            if not text or len(text) > 64:
                raise ValueError(f"the link's {what} must be 1 to 64 characters, not {text!r}")
        mine: list[JsonObject] = []
        theirs = 0
        for entry in journal.logged():
            count = len(mine) if entry.origin is Origin.HERE else theirs
            if entry.seq != count + 1:
                raise JournalError(
                    f"event {entry.seq} made {entry.origin.value} follows {count}: "
                    "the numbers must run 1, 2, 3 …"
                )
            if entry.origin is Origin.HERE:
                mine.append(entry.event)
            else:
                theirs = entry.seq
        acked = journal.acked()
        if not 0 <= acked <= len(mine):
            raise JournalError(f"acknowledged up to {acked}, but {len(mine)} events were made")
        return cls(
            keys=keys,
            side=side,
            board=board,
            name=name,
            since=now,
            nonces=nonces,
            timing=timing,
            mine=tuple(mine),
            acked=acked,
            delivered=theirs,
            peer_last=theirs,
            send_wait=timing.resend_s,
            ask_wait=timing.resend_s,
        )

    # -- what it says ------------------------------------------------------------------------

    @property
    def unsent(self) -> int:
        return len(self.mine) - self.acked

    @property
    def missing(self) -> int:
        ahead = self.held[-1][0] if self.held else 0
        return max(self.peer_last, ahead, self.delivered) - self.delivered

    @property
    def subscription(self) -> str:
        """The MQTT filter this board subscribes to (everything the other side says)."""
        return self.keys.subscription(self.side.other)

    def report(self) -> Report:
        return Report(
            connection=self.connection,
            since=self.since,
            peer_name=self.peer_name,
            peer_online=self.peer_online,
            unsent=self.unsent,
            missing=self.missing,
            other_version=self.other_version,
            counts=self.counts,
        )

    def next_deadline(self) -> float | None:
        """When :meth:`tick` next has work (None: nothing until another input)."""
        if self.connection is not Connection.CONNECTED:
            return None
        times = []
        if self.unsent and self.sent_at is not None:
            times.append(self.sent_at + self.send_wait)
        if self.missing and self.asked_at is not None:
            times.append(self.asked_at + self.ask_wait)
        return min(times, default=None)

    def will(self) -> Publish:
        """The retained state the broker publishes should this board vanish."""
        return self._state(online=False)

    # -- inputs ------------------------------------------------------------------------------

    def send(self, event: JsonObject, now: float) -> Step:
        """An event made here (already stored as number ``len(mine) + 1``).

        ValueError for what is no JSON object or larger than ``MAX_EVENT_BYTES``: the
        caller's mistake, not the other board's.
        """
        size = event_bytes(event)
        if size > MAX_EVENT_BYTES:
            raise ValueError(f"an event of {size} bytes is more than {MAX_EVENT_BYTES}")
        link = replace(self, mine=(*self.mine, event))
        if link.connection is not Connection.CONNECTED:
            return Step(link)
        if link.sent_at is None:
            link = replace(link, sent_at=now, send_wait=self.timing.resend_s)
        return Step(link, (link._event(len(link.mine)),))

    def connected(self, now: float) -> Step:
        """The broker took the connection (the shell has subscribed)."""
        link = replace(self, connection=Connection.CONNECTED, since=now)
        out = [link._state(ask=link.missing > 0)]
        link, resent = link._resend(link.acked + 1, now)
        link = replace(link, asked_at=now if link.missing else None, ask_wait=self.timing.resend_s)
        return Step(link, (*out, *resent))

    def disconnected(self, now: float) -> Step:
        """The connection was lost, or an attempt failed (the shell tries again)."""
        if self.connection is Connection.UNREACHABLE:
            return Step(self)
        return Step(replace(self, connection=Connection.UNREACHABLE, since=now, sent_at=None))

    def closing(self) -> Step:
        """Leaving on purpose: the retained state says this board is offline."""
        if self.connection is not Connection.CONNECTED:
            return Step(self)
        return Step(self, (self._state(online=False),))

    def tick(self, now: float) -> Step:
        """Resend what waits too long for an acknowledgement; ask again for what is missing."""
        link, out = self, list[Publish]()
        if self.connection is not Connection.CONNECTED:
            return Step(self)
        if link.unsent and link.sent_at is not None and now >= link.sent_at + link.send_wait:
            wait = min(link.send_wait * 2, self.timing.resend_max_s)
            link, resent = link._resend(link.acked + 1, now)
            link = replace(link, send_wait=wait)
            out += resent
        if link.missing and link.asked_at is not None and now >= link.asked_at + link.ask_wait:
            wait = min(link.ask_wait * 2, self.timing.resend_max_s)
            link = replace(link, asked_at=now, ask_wait=wait)
            out.append(link._state(ask=True))
        return Step(link, tuple(out))

    def received(self, topic: str, payload: bytes, now: float) -> Step:
        """A message from the broker on one of the other side's topics."""
        kinds = {self.keys.topic(self.side.other, kind): kind for kind in Kind}
        if topic not in kinds:
            return self._ignore(Refused(Reason.MALFORMED, f"not the other board's topic: {topic}"))
        opened = open_message(self.keys, topic, payload)
        if isinstance(opened, Refused):
            return self._ignore(opened)
        if isinstance(opened, OtherVersion):
            if opened == self.other_version:
                return Step(self)
            return Step(replace(self, other_version=opened), happened=(opened,))
        return self._take(opened, kinds[topic], now)

    # -- the parts ---------------------------------------------------------------------------

    def _ignore(self, refused: Refused) -> Step:
        link = replace(self, counts=self.counts.of(refused.reason))
        return Step(link, happened=(Ignored(refused.reason, refused.detail),))

    def _take(self, envelope: Envelope, kind: Kind, now: float) -> Step:
        if envelope.board == self.board or self.peer_board not in (None, envelope.board):
            return self._ignore(
                Refused(Reason.STRANGER, f"from board {envelope.board}, not {self.peer_board}")
            )
        if (envelope.seq is None) != (kind is Kind.STATE):
            where = (
                "no event on the event topic"
                if envelope.seq is None
                else "an event on the state topic"
            )
            return self._ignore(Refused(Reason.MALFORMED, where))
        if envelope.ack > len(self.mine):
            return self._ignore(
                Refused(Reason.MALFORMED, f"acknowledges {envelope.ack} of {len(self.mine)}")
            )
        came_back = envelope.online and self.peer_online is not True
        link = replace(
            self,
            peer_board=envelope.board,
            peer_name=envelope.name,
            peer_online=envelope.online,
            peer_last=max(self.peer_last, envelope.last, envelope.seq or 0),
            other_version=None,
        )
        happened: list[Outcome] = []
        out: list[Publish] = []
        if envelope.ack > link.acked:
            happened.append(Acknowledged(envelope.ack))
            waiting = envelope.ack < len(link.mine)
            sent_at = now if waiting else None
            link = replace(
                link, acked=envelope.ack, sent_at=sent_at, send_wait=self.timing.resend_s
            )
        answer = False
        if envelope.seq is not None and envelope.event is not None:
            link, delivered, answer = link._arrived(envelope.seq, envelope.event)
            happened += delivered
            if delivered and link.missing:
                # Progress: ask again only if nothing more comes for a while.
                link = replace(link, asked_at=now, ask_wait=self.timing.resend_s)
        ask = False
        if link.missing == 0:
            link = replace(link, asked_at=None, ask_wait=self.timing.resend_s)
        elif link.asked_at is None:
            # A gap just came to light; later messages only acknowledge (every request is
            # answered with a whole batch, so asking on each would multiply them).
            link = replace(link, asked_at=now)
            answer = ask = True
        if answer and link.connection is Connection.CONNECTED:
            out.append(link._state(ask=ask))
        if link.connection is Connection.CONNECTED:
            if envelope.resend is not None and link._answers(envelope.resend, now):
                link, resent = link._resend(envelope.resend, now)
                link = replace(link, answered=(envelope.resend, now))
                out += resent
            elif came_back and link.unsent:
                link, resent = link._resend(link.acked + 1, now)
                out += resent
        return Step(link, tuple(out), tuple(happened))

    def _arrived(self, seq: int, event: JsonObject) -> tuple[Link, list[Delivered], bool]:
        """The other board's event ``seq``: the link, what is delivered, whether to answer
        (an acknowledgement, also for a duplicate: the last one may have been lost)."""
        if seq <= self.delivered or any(number == seq for number, _ in self.held):
            counts = replace(self.counts, duplicates=self.counts.duplicates + 1)
            return replace(self, counts=counts), [], True
        if seq > self.delivered + 1:
            if seq > self.delivered + MAX_HELD:
                return self, [], False  # sent again once the gap is filled
            return replace(self, held=tuple(sorted((*self.held, (seq, event))))), [], False
        delivered = [Delivered(seq, event)]
        held = list(self.held)
        while held and held[0][0] == delivered[-1].seq + 1:
            delivered.append(Delivered(*held.pop(0)))
        return replace(self, delivered=delivered[-1].seq, held=tuple(held)), delivered, True

    def _answers(self, first: int, now: float) -> bool:
        """Whether a request for events from ``first`` gets an answer: not when the same or
        more was answered less than ``resend_s`` ago (a request recorded from the broker and
        replayed over and over then costs one batch, not one per copy)."""
        if self.answered is None:
            return True
        since, at = self.answered
        return first < since or now >= at + self.timing.resend_s

    def _resend(self, first: int, now: float) -> tuple[Link, list[Publish]]:
        """This board's events from number ``first`` again (at most ``MAX_BATCH``)."""
        numbers = range(max(first, 1), min(len(self.mine), first + MAX_BATCH - 1) + 1)
        if not numbers:
            return self, []
        counts = replace(self.counts, resent=self.counts.resent + len(numbers))
        link = replace(self, sent_at=now if self.unsent else self.sent_at, counts=counts)
        return link, [link._event(n) for n in numbers]

    def _envelope(
        self, *, seq: int | None = None, resend: int | None = None, online: bool = True
    ) -> Envelope:
        return Envelope(
            game=self.keys.game,
            board=self.board,
            name=self.name,
            ack=self.delivered,
            last=len(self.mine),
            seq=seq,
            event=None if seq is None else self.mine[seq - 1],
            resend=resend,
            online=online,
        )

    def _sealed(self, kind: Kind, envelope: Envelope, retain: bool) -> Publish:
        topic = self.keys.topic(self.side, kind)
        return Publish(topic, seal(self.keys, topic, envelope, self.nonces(NONCE_BYTES)), retain)

    def _event(self, seq: int) -> Publish:
        return self._sealed(Kind.EVENT, self._envelope(seq=seq), retain=False)

    def _state(self, *, ask: bool = False, online: bool = True) -> Publish:
        envelope = self._envelope(resend=self.delivered + 1 if ask else None, online=online)
        return self._sealed(Kind.STATE, envelope, retain=True)

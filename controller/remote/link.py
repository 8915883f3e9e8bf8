"""The link between two boards as a pure state machine, with time passed in.

(Longer than most modules: one frozen :class:`Link` whose every transition reads and
replaces the same fields: the numbering both ways, the held and the set-aside events,
the trust in the other board's run, the resend clock. Split, each part would need all
of it. The sealed format is apart in :mod:`controller.remote.wire`, what happened in
:mod:`controller.remote.outcomes`, the paho shell in :mod:`controller.remote.mqtt`.)

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

One order for both boards (what the two do while apart):

- Each event says what it was made on top of: ``base``, how many of the other board's
  events its board had applied then. Two events crossed when neither board had seen the
  other's: the inviting board's event was made on fewer of the joining board's than the
  joining board's number, and the joining board's on fewer of the inviting board's.
- The inviting board's order stands. It takes the joining board's event only when it
  made nothing since that event's base; otherwise the event is :class:`~controller.
  remote.outcomes.Crossed`: seen and acknowledged, never applied. The joining board, when
  an event of the inviting board comes that was made on fewer of its events than it has,
  undoes those (:class:`~controller.remote.outcomes.Voided`) before it applies it. Both
  sides reach the same verdict from the same numbers, without a word more, and both keep
  the same events in the same order. In a game every pair of crossed events is a
  conflict (only the board of the seat to move can move, only the board of the last
  move can take it back), so nothing is voided that could have stood.

Nothing a stranger replays is believed:

- Every message names its sender's run (``boot``, random per start), its connection in
  that run (``conn``) and its number in the run (``n``; the will, sealed at connect, is
  numbered 0 and ranks after every message of its connection), and the receiver's run it
  last heard from (``seen``). A message from the other board's current run that is no
  newer than the newest one taken, or one from a run that has ended, is stale: counted
  (``counts.stale``), its events still taken each once (they are the same events), but
  its presence and its requests are not believed. A new run of the other board is taken
  only from a message that names this board's own run, so it was sealed after this run
  began: nothing recorded before can pass for it. Until then the other board's presence
  is unknown.
- Replies to a duplicate or to a message not yet believed go out at most once per
  ``resend_s``, and requests for events are answered at most once per ``resend_s``: a
  thousand replayed messages cost a reply or two, not a thousand.

>>> from controller.remote.journal import EmptyJournal
>>> from controller.remote.wire import derive_keys
>>> keys = derive_keys("5A4L-KPRX-AC7H")
>>> oma = Link.restore(EmptyJournal(), keys=keys, side=Side.INVITER, board="o1", name="Oma",
...                    now=0.0, secret=b"o" * 32)
>>> tim = Link.restore(EmptyJournal(), keys=keys, side=Side.JOINER, board="t1", name="Tim",
...                    now=0.0, secret=b"t" * 32)
>>> a, b = oma.connected(1.0), tim.connected(1.0)
>>> t = b.link.received(a.publish[0].topic, a.publish[0].payload, 1.1)  # not yet believed
>>> o = a.link.received(t.publish[0].topic, t.publish[0].payload, 1.2)  # names Oma's run
>>> t = t.link.received(o.publish[0].topic, o.publish[0].payload, 1.3)  # names Tim's run
>>> oma, tim = o.link, t.link
>>> oma.report().peer_online, tim.report().peer_online, oma.report().paired
(True, True, True)
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
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Final

from controller.remote.journal import Journal, JournalError, Origin
from controller.remote.outcomes import (
    Acknowledged,
    Crossed,
    Delivered,
    Differs,
    Ignored,
    Outcome,
    Paired,
    RecordCame,
    RecordWanted,
    RefusedThere,
    Voided,
)
from controller.remote.wire import (
    MAX_EVENT_BYTES,
    NONCE_BYTES,
    Envelope,
    JsonObject,
    Kind,
    LinkKeys,
    OtherVersion,
    Pairing,
    Reason,
    RecordEntry,
    Refused,
    Side,
    event_bytes,
    open_message,
    pair_key,
    pairing,
    seal,
)

__all__ = ["MAX_BATCH", "MAX_HELD", "Connection", "Counts", "Link", "LinkTiming", "Publish",
           "Report", "Step"]  # fmt: skip

MAX_HELD: Final = 256
"""Events ahead of a gap kept until it is filled; later ones wait to be sent again."""
MAX_BATCH: Final = 256
"""Events sent again at most in one go (a whole game is fewer)."""
RETIRED: Final = 8
"""Ended runs of the other board remembered (their messages are stale)."""
MAX_EVENTS: Final = 1024
"""Events the other board can make in one game at most (a game has some fifty; a record
carries at most as many): later numbers are refused, so nobody makes a board store
events without end."""


@dataclass(frozen=True, slots=True)
class LinkTiming:
    resend_s: float = 3.0
    """Unacknowledged events, and a request for missing ones, go again after this long;
    replies to duplicates and to messages not yet believed go at most this often."""
    resend_max_s: float = 120.0
    """The wait doubles after each unanswered try, up to this."""
    answer_s: float = 30.0
    """A board that joined and heard nothing from the inviting board for this long since
    it first connected says that nobody answers the code."""


class Connection(enum.Enum):
    """The link's way to the broker."""

    CONNECTING = "connecting"
    """Not yet connected since the start."""
    CONNECTED = "connected"
    UNREACHABLE = "unreachable"
    """The broker was lost or refused us; the shell keeps trying."""


@dataclass(frozen=True, slots=True)
class Counts:
    """Messages this link dropped or did not believe, by reason, events it sent more than
    once, and events the order of the two boards set aside."""

    duplicates: int = 0
    junk: int = 0
    """Not even shaped like a message of the link: dropped before any decrypt."""
    wrong_key: int = 0
    malformed: int = 0
    other_game: int = 0
    strangers: int = 0
    unpaired: int = 0
    """Sealed with the code alone after the two boards paired."""
    stale: int = 0
    resent: int = 0
    crossed: int = 0
    """The other board's events not applied here: they crossed this board's (inviter)."""
    voided: int = 0
    """This board's events undone: they crossed the other board's (joiner)."""
    differs: int = 0
    """The other board's events that came again unlike the ones taken here."""

    def of(self, reason: Reason) -> Counts:
        """One more message dropped for ``reason``."""
        if reason is Reason.JUNK:
            return replace(self, junk=self.junk + 1)
        if reason is Reason.WRONG_KEY:
            return replace(self, wrong_key=self.wrong_key + 1)
        if reason is Reason.MALFORMED:
            return replace(self, malformed=self.malformed + 1)
        if reason is Reason.OTHER_GAME:
            return replace(self, other_game=self.other_game + 1)
        if reason is Reason.STALE:
            return replace(self, stale=self.stale + 1)
        if reason is Reason.UNPAIRED:
            return replace(self, unpaired=self.unpaired + 1)
        return replace(self, strangers=self.strangers + 1)

    @property
    def dropped(self) -> int:
        """Messages not used or not believed, whatever the reason."""
        return (
            self.duplicates
            + self.junk
            + self.wrong_key
            + self.malformed
            + self.other_game
            + self.strangers
            + self.unpaired
            + self.stale
        )


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
    """Whether the other board is on the broker, as far as its last fresh word says (None:
    no word from its current run believed yet)."""
    unsent: int
    """This board's events the other has not acknowledged."""
    missing: int
    """The other board's events known to exist and not yet applied here."""
    other_version: OtherVersion | None
    counts: Counts
    unanswered: bool = False
    """Joined, and the inviting board has not answered for :attr:`LinkTiming.answer_s`."""
    paired: bool = False
    """The two boards share their pair key: only the other board can speak for it."""

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
            "unanswered": self.unanswered,
            "counts": {
                "duplicates": self.counts.duplicates,
                "junk": self.counts.junk,
                "wrong_key": self.counts.wrong_key,
                "malformed": self.counts.malformed,
                "other_game": self.counts.other_game,
                "strangers": self.counts.strangers,
                "unpaired": self.counts.unpaired,
                "stale": self.counts.stale,
                "resent": self.counts.resent,
                "crossed": self.counts.crossed,
                "voided": self.counts.voided,
                "differs": self.counts.differs,
            },
            "paired": self.paired,
        }


@dataclass(frozen=True, slots=True)
class Step:
    link: Link
    publish: tuple[Publish, ...] = ()
    """To publish in this order, after the owner has kept what :attr:`happened`."""
    happened: tuple[Outcome, ...] = ()


Nonces = Callable[[int], bytes]
"""A source of random bytes for the nonces (``os.urandom``; tests may seed one)."""

_Draft = tuple[Kind, Envelope, bool]
"""A message before it is numbered and sealed: its kind, envelope and ``retain``."""


class _Trust(enum.Enum):
    FRESH = "fresh"
    """Newer than anything from the other board's current run, or a new run that names
    this board's run."""
    UNSURE = "unsure"
    """From a run not yet believed: maybe the other board's new run, maybe a replay."""
    STALE = "stale"


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
    boot: str = ""
    """This run's id: random, new at each :meth:`restore`."""
    nonces: Nonces = field(default=os.urandom, compare=False, repr=False)
    timing: LinkTiming = LinkTiming()
    pairing: Pairing | None = None
    """This board's key for the game (its public half goes out in every message)."""
    peer_pub: bytes = b""
    """The other board's public key, once paired (b"": not yet)."""
    pair: bytes = field(default=b"", repr=False)
    """The key only the two boards share (:func:`~controller.remote.wire.pair_key`): every
    message sealed with it once the boards paired."""
    theirs: tuple[JsonObject | None, ...] = ()
    """The other board's events taken here, by number (None: not known here)."""
    mine: tuple[JsonObject, ...] = ()
    """This board's events; number ``i + 1`` is ``mine[i]``."""
    bases: tuple[int, ...] = ()
    """``bases[i]``: how many of the other board's events were applied when ``mine[i]``
    was made."""
    void: frozenset[int] = frozenset()
    """This board's events undone because they crossed the inviting board's."""
    acked: int = 0
    """The other board has applied ``mine`` up to this number."""
    delivered: int = 0
    """The other board's events taken here (applied or crossed), up to this number."""
    held: tuple[tuple[int, JsonObject, int], ...] = ()
    """The other board's events received ahead of a gap: number, event, base."""
    peer_last: int = 0
    peer_board: str | None = None
    peer_name: str | None = None
    peer_online: bool | None = None
    peer_boot: str | None = None
    """The other board's run whose messages are believed."""
    peer_mark: tuple[int, float] = (0, 0.0)
    """The newest (connection, number) taken from :attr:`peer_boot`."""
    retired: tuple[str, ...] = ()
    """The other board's runs that have ended."""
    heard: str = ""
    """The other board's run this board last heard from (sent as ``seen``)."""
    conn: int = 0
    """This run's connection to the broker, from 1."""
    numbered: int = 0
    """Messages sealed in this run (the will aside)."""
    connection: Connection = Connection.CONNECTING
    sent_at: float | None = None
    """When the unacknowledged events last went out (None: none wait, or not connected)."""
    send_wait: float = 0.0
    asked_at: float | None = None
    """When the missing events were last asked for (None: none are missing)."""
    ask_wait: float = 0.0
    answered: tuple[int, float] | None = None
    """The last request for events answered: from which number, and when."""
    replied_at: float | None = None
    """When a duplicate or a message not yet believed was last answered."""
    waiting_since: float | None = None
    """A joining board: when it first connected, until the inviting board is heard."""
    unanswered: bool = False
    refused: int = 0
    """The inviting board: the last of the joining board's events its game could not
    take (said in every message until the joining board takes this board's record)."""
    refused_there: int = 0
    """The joining board: the last of its events the inviting board's game refused."""
    record_wanted_at: float | None = None
    """The joining board asked for the inviting board's record then (None: not waiting)."""
    record_sent_at: float | None = None
    """The inviting board last sent its record then."""
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
        refused: int = 0,
        secret: bytes,
        peer: tuple[str, bytes] | None = None,
    ) -> Link:
        """The link of a game whose events so far are in ``journal`` (none for a new one);
        ``refused``: the last of the joining board's events the inviting board's game could
        not take, as either board keeps it beside the journal; ``secret``: this board's
        own (random, made once and kept: its key for the game comes from it); ``peer``: the
        other board's id and public key, kept since :class:`~controller.remote.outcomes.
        Paired` said them (None: not paired yet).

        Raises :class:`JournalError` when the journal's numbers do not run 1, 2, 3 … for
        each origin or it acknowledges more events than were made here.
        """
        for text, what in ((board, "board"), (name, "name")):
            if not text or len(text) > 64:
                raise ValueError(f"the link's {what} must be 1 to 64 characters, not {text!r}")
        mine: list[JsonObject] = []
        bases: list[int] = []
        void: set[int] = set()
        theirs = 0
        events: list[JsonObject | None] = []
        for entry in journal.logged():
            count = len(mine) if entry.origin is Origin.HERE else theirs
            if entry.seq != count + 1:
                raise JournalError(
                    f"event {entry.seq} made {entry.origin.value} follows {count}: "
                    "the numbers must run 1, 2, 3 …"
                )
            if entry.origin is Origin.HERE:
                mine.append(entry.event)
                bases.append(theirs if entry.base is None else entry.base)
                if entry.void:
                    void.add(entry.seq)
            else:
                theirs = entry.seq
                events.append(entry.event)
        acked = journal.acked()
        if not 0 <= acked <= len(mine):
            raise JournalError(f"acknowledged up to {acked}, but {len(mine)} events were made")
        mine_key = pairing(secret, keys)
        pair = pair_key(keys, mine_key, side, peer[1]) if peer is not None else b""
        return cls(
            keys=keys,
            side=side,
            board=board,
            name=name,
            pairing=mine_key,
            peer_board=peer[0] if peer is not None else None,
            peer_pub=peer[1] if peer is not None else b"",
            pair=pair,
            theirs=tuple(events),
            since=now,
            boot=nonces(8).hex(),
            nonces=nonces,
            timing=timing,
            mine=tuple(mine),
            bases=tuple(bases),
            void=frozenset(void),
            acked=acked,
            delivered=theirs,
            peer_last=theirs,
            send_wait=timing.resend_s,
            ask_wait=timing.resend_s,
            refused=refused if side is Side.INVITER else 0,
            refused_there=refused if side is Side.JOINER else 0,
        )

    # -- what it says ------------------------------------------------------------------------

    @property
    def unsent(self) -> int:
        """This board's events (not undone) the other board has not acknowledged."""
        return sum(1 for n in range(self.acked + 1, len(self.mine) + 1) if n not in self.void)

    @property
    def missing(self) -> int:
        ahead = self.held[-1][0] if self.held else 0
        return max(self.peer_last, ahead, self.delivered) - self.delivered

    @property
    def topics(self) -> tuple[str, ...]:
        """The topics this board subscribes to, exactly: the other side's two."""
        return self.keys.topics(self.side.other)

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
            unanswered=self.unanswered,
            paired=bool(self.pair),
        )

    def next_deadline(self) -> float | None:
        """When :meth:`tick` next has work (None: nothing until another input)."""
        if self.connection is not Connection.CONNECTED:
            return None
        times = []
        if len(self.mine) > self.acked and self.sent_at is not None:
            times.append(self.sent_at + self.send_wait)
        if self.missing and self.asked_at is not None:
            times.append(self.asked_at + self.ask_wait)
        if self.waiting_since is not None and not self.unanswered:
            times.append(self.waiting_since + self.timing.answer_s)
        if self._unsure:
            times.append((self.replied_at or 0.0) + self.timing.resend_s)
        if self.record_wanted_at is not None:
            times.append(self.record_wanted_at + self.timing.resend_s)
        return min(times, default=None)

    @property
    def _unsure(self) -> bool:
        """A run of the other board was heard that is not believed yet: this board tells
        it again which run it speaks to, once per ``resend_s``, until it answers."""
        return bool(self.heard) and self.heard != self.peer_boot

    def will(self, conn: int | None = None) -> Publish:
        """The retained state the broker publishes should this board vanish during
        connection ``conn`` (the next one, by default; the shell sets it before each)."""
        number = self.conn + 1 if conn is None else conn
        envelope = replace(self._envelope(online=False), conn=number, n=0)
        return self._seal(Kind.STATE, envelope, retain=True)

    # -- inputs ------------------------------------------------------------------------------

    def send(self, event: JsonObject, now: float) -> Step:
        """An event made here (already stored as number ``len(mine) + 1``).

        ValueError for what is no JSON object or larger than ``MAX_EVENT_BYTES``: the
        caller's mistake, not the other board's.
        """
        size = event_bytes(event)
        if size > MAX_EVENT_BYTES:
            raise ValueError(f"an event of {size} bytes is more than {MAX_EVENT_BYTES}")
        link = replace(self, mine=(*self.mine, event), bases=(*self.bases, self.delivered))
        if link.connection is not Connection.CONNECTED:
            return Step(link)
        if link.sent_at is None:
            link = replace(link, sent_at=now, send_wait=self.timing.resend_s)
        return link._out([link._event(len(link.mine))])

    def connected(self, now: float, conn: int | None = None) -> Step:
        """The broker took connection ``conn`` (the next, by default; the shell has
        subscribed)."""
        link = replace(
            self,
            connection=Connection.CONNECTED,
            since=now,
            conn=self.conn + 1 if conn is None else conn,
        )
        if link.side is Side.JOINER and link.peer_board is None and link.waiting_since is None:
            link = replace(link, waiting_since=now)
        out = [link._state(ask=link.missing > 0)]
        link, resent = link._resend(link.acked + 1, now)
        link = replace(link, asked_at=now if link.missing else None, ask_wait=self.timing.resend_s)
        return link._out([*out, *resent])

    def disconnected(self, now: float) -> Step:
        """The connection was lost, or an attempt failed (the shell tries again)."""
        if self.connection is Connection.UNREACHABLE:
            return Step(self)
        return Step(replace(self, connection=Connection.UNREACHABLE, since=now, sent_at=None))

    def closing(self) -> Step:
        """Leaving on purpose: the retained state says this board is offline."""
        if self.connection is not Connection.CONNECTED:
            return Step(self)
        return self._out([self._state(online=False)])

    def tick(self, now: float) -> Step:
        """Resend what waits too long for an acknowledgement; ask again for what is
        missing; say when a code is not answered."""
        link, out = self, list[_Draft]()
        if self.connection is not Connection.CONNECTED:
            return Step(self)
        waiting = len(link.mine) > link.acked
        if waiting and link.sent_at is not None and now >= link.sent_at + link.send_wait:
            wait = min(link.send_wait * 2, self.timing.resend_max_s)
            link, resent = link._resend(link.acked + 1, now)
            link = replace(link, send_wait=wait)
            out += resent
        if link.missing and link.asked_at is not None and now >= link.asked_at + link.ask_wait:
            wait = min(link.ask_wait * 2, self.timing.resend_max_s)
            link = replace(link, asked_at=now, ask_wait=wait)
            out.append(link._state(ask=True))
        if (
            link.waiting_since is not None
            and not link.unanswered
            and now >= link.waiting_since + self.timing.answer_s
        ):
            link = replace(link, unanswered=True)
        if link._unsure and now >= (link.replied_at or 0.0) + self.timing.resend_s:
            link = replace(link, replied_at=now)
            out.append(link._state())
        wanted = link.record_wanted_at
        if wanted is not None and now >= wanted + self.timing.resend_s:
            link = replace(link, record_wanted_at=now)
            out.append(link._state(want_record=True))
        return link._out(out)

    def refuse(self, seq: int, now: float) -> Step:
        """The inviting board: its game could not take the joining board's event ``seq``
        (delivered and kept as set aside). Every message says so from now on."""
        if self.side is not Side.INVITER:
            raise ValueError("only the inviting board's order stands: it alone refuses")
        link = replace(self, refused=max(self.refused, seq))
        if link.connection is not Connection.CONNECTED:
            return Step(link)
        return link._out([link._state()])

    def want_record(self, now: float) -> Step:
        """The joining board asks for the inviting board's record (again every
        ``resend_s`` until it comes)."""
        if self.side is not Side.JOINER:
            raise ValueError("the joining board takes the inviting board's record")
        link = replace(self, record_wanted_at=now)
        if link.connection is not Connection.CONNECTED:
            return Step(link)
        return link._out([link._state(want_record=True)])

    def send_record(self, entries: tuple[RecordEntry, ...], now: float) -> Step:
        """The inviting board's record, as asked (ValueError: too large to send)."""
        size = event_bytes({"record": [list(e) for e in entries]})
        if size > MAX_EVENT_BYTES:
            raise ValueError(f"a record of {size} bytes is more than {MAX_EVENT_BYTES}")
        link = replace(self, record_sent_at=now)
        if link.connection is not Connection.CONNECTED:
            return Step(link)
        return link._out([link._state(record=entries)])

    def received(self, topic: str, payload: bytes, now: float) -> Step:
        """A message from the broker on one of the other side's topics."""
        kinds = {self.keys.topic(self.side.other, kind): kind for kind in Kind}
        if topic not in kinds:
            return self._ignore(Refused(Reason.MALFORMED, f"not the other board's topic: {topic}"))
        opened = open_message(
            self.keys, topic, payload, mine=self.pairing, pair=(self.peer_pub, self.pair)
        )
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

    def _trust(self, envelope: Envelope) -> _Trust:
        if envelope.boot in self.retired:
            return _Trust.STALE
        if envelope.boot == self.peer_boot:
            rank = (envelope.conn, envelope.n or math.inf)
            return _Trust.FRESH if rank > self.peer_mark else _Trust.STALE
        return _Trust.FRESH if envelope.seen == self.boot else _Trust.UNSURE

    def _believe(self, envelope: Envelope) -> Link:
        """Take ``envelope`` (fresh) as the other board's newest word."""
        link = self
        if envelope.boot != self.peer_boot and self.peer_boot is not None:
            link = replace(link, retired=(*self.retired, self.peer_boot)[-RETIRED:])
        return replace(
            link,
            peer_boot=envelope.boot,
            peer_mark=(envelope.conn, envelope.n or math.inf),
            peer_online=envelope.online,
        )

    def _take(self, envelope: Envelope, kind: Kind, now: float) -> Step:
        if envelope.board == self.board or self.peer_board not in (None, envelope.board):
            return self._ignore(
                Refused(Reason.STRANGER, f"from board {envelope.board}, not {self.peer_board}")
            )
        if self.pair and not envelope.paired:
            return self._ignore(
                Refused(Reason.UNPAIRED, "sealed with the code alone after the boards paired")
            )
        if not self.pair and not envelope.pub:
            return self._ignore(Refused(Reason.MALFORMED, "no public key"))
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
        link, bound = self, not self.pair
        if bound:  # the first word of the other board: from now on only its key counts
            try:
                pair = pair_key(self.keys, self._own(), self.side, envelope.pub)
            except ValueError:
                return self._ignore(Refused(Reason.MALFORMED, "no public key"))
            link = replace(self, peer_board=envelope.board, peer_pub=envelope.pub, pair=pair)
        step = link._taken(envelope, kind, now, bound=bound)
        if bound:
            return Step(step.link, step.publish, (Paired(envelope.board, envelope.pub),
                                                  *step.happened))  # fmt: skip
        return step

    def _own(self) -> Pairing:
        if self.pairing is None:
            raise ValueError("this link has no key of its own")
        return self.pairing

    def _taken(self, envelope: Envelope, kind: Kind, now: float, *, bound: bool) -> Step:
        trust = self._trust(envelope)
        new_run = trust is _Trust.FRESH and envelope.boot != self.peer_boot
        came_back = (
            trust is _Trust.FRESH and envelope.online and (self.peer_online is not True or new_run)
        )
        link = replace(
            self,
            peer_board=envelope.board,
            peer_name=envelope.name,
            peer_last=max(self.peer_last, envelope.last, envelope.seq or 0),
            other_version=None,
        )
        if trust is _Trust.FRESH:
            link = replace(link._believe(envelope), waiting_since=None, unanswered=False)
        elif trust is _Trust.STALE:
            link = replace(link, counts=link.counts.of(Reason.STALE))
        if trust is not _Trust.STALE:
            link = replace(link, heard=envelope.boot)
        happened: list[Outcome] = []
        out: list[_Draft] = []
        if trust is _Trust.FRESH:
            link, said = link._disagreement(envelope, now)
            happened += said
        if envelope.ack > link.acked:
            happened.append(Acknowledged(envelope.ack))
            waiting = envelope.ack < len(link.mine)
            sent_at = now if waiting else None
            link = replace(
                link, acked=envelope.ack, sent_at=sent_at, send_wait=self.timing.resend_s
            )
        answer = polite = False
        # A board that has not joined yet takes nothing from a board that does not answer
        # it: with a code another board already joined, it hears the inviting board's
        # messages but is never answered, and says so instead of playing along.
        unheard = trust is _Trust.UNSURE and self.side is Side.JOINER and self.peer_boot is None
        if envelope.seq is not None and envelope.event is not None and not unheard:
            base = envelope.base or 0
            link, took, answer = link._arrived(envelope.seq, envelope.event, base)
            happened += took
            if any(isinstance(o, Delivered | Crossed) for o in took) and link.missing:
                # Progress: ask again only if nothing more comes for a while.
                link = replace(link, asked_at=now, ask_wait=self.timing.resend_s)
            polite = answer and not took  # a duplicate: acknowledged again, not too often
        ask = False
        if link.missing == 0:
            link = replace(link, asked_at=None, ask_wait=self.timing.resend_s)
        elif link.asked_at is None:
            # A gap just came to light; later messages only acknowledge (every request is
            # answered with a whole batch, so asking on each would multiply them).
            link = replace(link, asked_at=now)
            answer = ask = True
            polite = False
        if trust is _Trust.UNSURE and not answer:
            answer = polite = True  # tell that run which run of this board it speaks to
        if new_run or bound:
            answer, polite = True, False  # so that the other board believes this one
        if answer and polite:
            if link.replied_at is not None and now < link.replied_at + self.timing.resend_s:
                answer = False
            else:
                link = replace(link, replied_at=now)
        if answer and link.connection is Connection.CONNECTED:
            out.append(link._state(ask=ask))
        if link.connection is Connection.CONNECTED and trust is _Trust.FRESH:
            if envelope.resend is not None and link._answers(envelope.resend, now):
                link, resent = link._resend(envelope.resend, now)
                link = replace(link, answered=(envelope.resend, now))
                out += resent
            elif (came_back or bound) and link.unsent:
                # Back, or just paired: what it sent before may have been sealed with the
                # code alone, which it refuses now.
                link, resent = link._resend(link.acked + 1, now)
                out += resent
        step = link._out(out)
        return Step(step.link, step.publish, tuple(happened))

    def _disagreement(self, envelope: Envelope, now: float) -> tuple[Link, list[Outcome]]:
        """What a fresh message says of a disagreement: the inviting board refused events
        of this board, wants its record, or sends it."""
        link, said = self, list[Outcome]()
        if self.side is Side.JOINER and envelope.refused > self.refused_there:
            link = replace(link, refused_there=envelope.refused)
            said.append(RefusedThere(envelope.refused))
        wanted = link.record_wanted_at is not None
        if self.side is Side.JOINER and envelope.record is not None and wanted:
            link = replace(link, record_wanted_at=None)
            said.append(RecordCame(envelope.record, envelope.ack))
        if self.side is Side.INVITER and envelope.want_record:
            sent = link.record_sent_at
            if sent is None or now >= sent + self.timing.resend_s:
                link = replace(link, record_sent_at=now)
                said.append(RecordWanted())
        return link, said

    def _arrived(self, seq: int, event: JsonObject, base: int) -> tuple[Link, list[Outcome], bool]:
        """The other board's event ``seq`` made on ``base`` of this board's: the link, what
        is taken (in order; a duplicate gives nothing), whether to answer (an
        acknowledgement, also for a duplicate: the last one may have been lost)."""
        if seq <= self.delivered or any(number == seq for number, _, _ in self.held):
            taken = self.theirs[seq - 1] if seq <= min(self.delivered, len(self.theirs)) else None
            taken = next((e for n, e, _ in self.held if n == seq), taken)
            if taken is not None and taken != event:
                counts = replace(self.counts, differs=self.counts.differs + 1)
                return replace(self, counts=counts), [Differs(seq, event)], False
            counts = replace(self.counts, duplicates=self.counts.duplicates + 1)
            return replace(self, counts=counts), [], True
        if seq > MAX_EVENTS:
            counts = self.counts.of(Reason.MALFORMED)
            return replace(self, counts=counts), [], False
        if seq > self.delivered + 1:
            if seq > self.delivered + MAX_HELD:
                return self, [], False  # sent again once the gap is filled
            ahead = tuple(sorted((*self.held, (seq, event, base)), key=lambda h: h[0]))
            return replace(self, held=ahead), [], False
        link, took = self, list[Outcome]()
        pending = [(seq, event, base)]
        held = list(self.held)
        while pending:
            number, what, made_on = pending.pop()
            link, outcomes = link._order(number, what, made_on)
            took += outcomes
            if held and held[0][0] == number + 1:
                pending.append(held.pop(0))
        return replace(link, held=tuple(held)), took, True

    def _order(self, seq: int, event: JsonObject, base: int) -> tuple[Link, list[Outcome]]:
        """The other board's next event, in the one order of both boards."""
        known = (*self.theirs, *(None,) * (seq - 1 - len(self.theirs)))[: seq - 1]
        link = replace(self, delivered=seq, theirs=(*known, event))
        if base > len(self.mine):
            # It claims to be made on events this board never made: no board with the code
            # does that; take it as it stands (the game refuses what does not fit).
            base = len(self.mine)
        if self.side is Side.INVITER:
            if base < len(self.mine):  # made while this board made events it had not seen
                counts = replace(self.counts, crossed=self.counts.crossed + 1)
                return replace(link, counts=counts), [Crossed(seq, event, len(self.mine))]
            return link, [Delivered(seq, event, len(self.mine))]
        undone = tuple(n for n in range(base + 1, len(self.mine) + 1) if n not in self.void)
        if not undone:
            return link, [Delivered(seq, event)]
        counts = replace(self.counts, voided=self.counts.voided + len(undone))
        link = replace(link, void=self.void | frozenset(undone), counts=counts)
        bases = tuple(self.bases[n - 1] for n in undone)
        events = tuple(self.mine[n - 1] for n in undone)
        return link, [Voided(undone, bases, events), Delivered(seq, event)]

    def _answers(self, first: int, now: float) -> bool:
        """Whether a request for events from ``first`` gets an answer: not when the same or
        more was answered less than ``resend_s`` ago (a request recorded from the broker and
        replayed over and over then costs one batch, not one per copy)."""
        if self.answered is None:
            return True
        since, at = self.answered
        return first < since or now >= at + self.timing.resend_s

    def _resend(self, first: int, now: float) -> tuple[Link, list[_Draft]]:
        """This board's events from number ``first`` again (at most ``MAX_BATCH``)."""
        numbers = range(max(first, 1), min(len(self.mine), first + MAX_BATCH - 1) + 1)
        if not numbers:
            return self, []
        counts = replace(self.counts, resent=self.counts.resent + len(numbers))
        waiting = len(self.mine) > self.acked
        link = replace(self, sent_at=now if waiting else self.sent_at, counts=counts)
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
            base=None if seq is None else self.bases[seq - 1],
            boot=self.boot,
            conn=self.conn,
            seen=self.heard,
            refused=self.refused,
        )

    def _seal(self, kind: Kind, envelope: Envelope, retain: bool) -> Publish:
        """Sealed with the pair key once the boards paired, with the code's before (its
        public key inside, so the other board can pair)."""
        topic = self.keys.topic(self.side, kind)
        envelope = replace(envelope, pub=self.pairing.public if self.pairing else b"")
        payload = seal(self.keys, topic, envelope, self.nonces(NONCE_BYTES), self.pair or None)
        return Publish(topic, payload, retain)

    def _out(self, drafts: list[_Draft]) -> Step:
        """The drafts numbered in this run and sealed, in order."""
        link, out = self, []
        for kind, envelope, retain in drafts:
            link = replace(link, numbered=link.numbered + 1)
            out.append(link._seal(kind, replace(envelope, n=link.numbered), retain))
        return Step(link, tuple(out))

    def _event(self, seq: int) -> _Draft:
        return Kind.EVENT, self._envelope(seq=seq), False

    def _state(
        self,
        *,
        ask: bool = False,
        online: bool = True,
        want_record: bool = False,
        record: tuple[RecordEntry, ...] | None = None,
    ) -> _Draft:
        envelope = self._envelope(resend=self.delivered + 1 if ask else None, online=online)
        envelope = replace(envelope, want_record=want_record, record=record)
        # A state with a record is not kept by the broker: only the one who asked needs it.
        return Kind.STATE, envelope, record is None

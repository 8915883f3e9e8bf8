"""Seats on another board: the Table's games carried over a :class:`RemoteLink`.

(Longer than most modules: every way a linked game starts, goes on and stops at this
board, from the Table's side, in one place; the link's rules are
:mod:`controller.remote.link`'s, what is kept in the store :mod:`controller.remote.stored`.)

The glue between the Table (:mod:`controller.table`, whose :class:`~controller.table.
Linker` this is) and the link (:mod:`controller.remote.mqtt`). The seats never hold the
Table: they reach it through its inbox (:class:`TableDoor`, a
:class:`~controller.table.Inbox`), which the composition root makes and hands to both.

- **Inviting.** A new game with seats marked remote gets an invitation code; its first
  event across is the game's setup (``{"kind": "setup", …}``: the game, names, colours,
  options and the seats that play here), so the other board can create the same game.
- **Joining.** :meth:`RemoteSeats.join` connects with a code; when the setup arrives the
  joining board starts the game with the seats of the inviting board as its remote ones.
- **Outbound.** After the Table has stored a step made here, its shared events (a move,
  a take-back, an abort: :func:`controller.referee.shared_kinds`) are sent, in that order.
- **Inbound.** On the link's thread, each delivered event is handed to
  :meth:`~controller.table.Inbox.arrive`, which returns once it is stored; only then is
  it acknowledged (an exception drops the link's step and the event comes again). An
  event the game refuses stops the game's link and says so.
- **The journal** (:class:`~controller.remote.stored.StoreJournal`) is the store's own
  events of the game, read again, beside one setting per linked game
  (:class:`~controller.remote.stored.LinkRecord`): :mod:`controller.remote.stored`.
  Bonus pearls acknowledged stay local and unnumbered.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final, Protocol

from controller.referee import (
    Aborted,
    Event,
    GameKind,
    Message,
    NewGame,
    RefereeState,
    Reply,
    Step,
    english,
    shared,
)
from controller.referee.events import EventError
from controller.referee.session import Session
from controller.remote.backoff import Backoff
from controller.remote.invitation import new_code, parse_code
from controller.remote.journal import EmptyJournal, Journal, Origin
from controller.remote.link import Link, LinkTiming, Report
from controller.remote.mqtt import RECONNECT_S, RemoteLink
from controller.remote.outcomes import (
    Acknowledged,
    Crossed,
    Delivered,
    Differs,
    OtherVersion,
    Outcome,
    Paired,
    RecordCame,
    RecordWanted,
    RefusedThere,
    Voided,
)
from controller.remote.stored import (
    SETUP,
    LinkRecord,
    StoreJournal,
    event_json,
    event_of,
    joined_game,
    record_key,
    setup_of,
)
from controller.remote.wire import JsonObject, RecordEntry, Side, derive_keys
from controller.store import Store

if TYPE_CHECKING:
    from controller.config_schema import RemoteConfig

__all__ = ["RemoteSeats", "TableDoor"]

log = logging.getLogger("controller.remote")

_TIMING: Final = LinkTiming()
_BOARD_KEY: Final = "remote.board"
_SECRET_KEY: Final = "remote.secret"
"""This board's own secret (32 random bytes in hex, made once): its key for each linked
game comes from it (:func:`controller.remote.wire.pairing`)."""
_JOINING_KEY: Final = "remote.joining"


class TableDoor(Protocol):
    """What the seats need of the Table: its queue's door (a
    :class:`~controller.table.Inbox`; each call returns once the Table's thread answered)."""

    def submit(self, command: NewGame, timeout: float = 5.0) -> Reply: ...

    def arrive(self, event: Event, timeout: float = 5.0) -> Reply: ...

    def rewind(
        self,
        game_id: int,
        first: int,
        settings: Mapping[str, str | None],
        note: Message,
        timeout: float = 5.0,
        events: Sequence[Event] = (),
    ) -> Reply: ...

    def republish(self) -> None: ...


class RemoteSeats:
    """The Table's :class:`~controller.table.Linker`: one link at a time, for the game
    on the table (or the one being joined)."""

    def __init__(
        self,
        door: TableDoor,
        store: Store,
        config: RemoteConfig,
        *,
        games: Mapping[str, GameKind],
        reconnect: Backoff = RECONNECT_S,
        timing: LinkTiming = _TIMING,
    ) -> None:
        self._door, self._store, self._config = door, store, config
        self._games = games
        self._reconnect = reconnect
        self._timing = timing
        self._lock = threading.Lock()
        self._remote: RemoteLink | None = None
        self._game_id: int | None = None
        self._record: LinkRecord | None = None
        self._joining: str | None = None
        self._stopped: str | None = None
        self._setup: JsonObject = {}
        """The setup being joined, once it arrived."""
        self._creating = False
        """The joined game is being created (a game started here meanwhile is not it)."""
        self._rebuilding = False
        """The link is being made again from the other board's record."""
        board = store.get_setting(_BOARD_KEY)
        if board is None:
            board = secrets.token_hex(8)
            store.set_setting(_BOARD_KEY, board)
        self.board = board
        secret = store.get_setting(_SECRET_KEY)
        if secret is None:
            secret = secrets.token_hex(32)
            store.set_setting(_SECRET_KEY, secret)
        self._secret = bytes.fromhex(secret)
        self._peer: tuple[str, bytes] | None = None
        """The board a game being joined paired with (kept with its record once made)."""

    # -- the Table's thread -------------------------------------------------------------------
    def _kind_of(self, record: LinkRecord | None) -> GameKind:
        """The game a linked game is of (its setup names it)."""
        name = record.setup.get("game") if record is not None else None
        kind = self._games.get(name) if isinstance(name, str) else None
        if kind is None:
            raise EventError(f"the linked game is of {name!r}, which this board does not play")
        return kind

    def remote_of(self, game_id: int) -> frozenset[int]:
        record = self._read(game_id)
        return frozenset(record.remote) if record is not None else frozenset()

    def carried(self, step: Step, state: RefereeState, *, arrived: bool) -> None:
        session = state.session
        commit = step.commit
        if not arrived and commit is not None and commit.game_id == self._game_id:
            for event in shared(self._kind_of(self._record), commit):
                self._send(event_json(event))
        if step.create is None or session is None:
            return
        if not session.linked:
            self._close()
            return
        if self._creating:
            self._bound(session)
        else:
            self._invite(session)

    def view(self) -> dict[str, object] | None:
        with self._lock:
            remote, record = self._remote, self._record
            joining, stopped = self._joining, self._stopped
        if remote is None:
            return None
        data: dict[str, object] = dict(remote.report().data())
        data["game_id"] = self._game_id
        data["side"] = record.side.value if record is not None else Side.JOINER.value
        data["code"] = record.code if record is not None else joining
        data["joining"] = record is None and joining is not None
        data["broker"] = self._config.broker
        data["stopped"] = stopped
        # The way back from a disagreement: the joining board takes the inviting board's
        # record (its order stands).
        data["can_take_record"] = (
            stopped is not None and record is not None and record.side is Side.JOINER
        )
        return data

    # -- any thread ---------------------------------------------------------------------------
    def resumed(self, game_id: int | None) -> None:
        """At the start: the link of the game on the table, or the join under way."""
        record = self._read(game_id) if game_id is not None else None
        if record is not None and game_id is not None:
            self._start(game_id, record)
            return
        code = self._store.get_setting(_JOINING_KEY)
        if code is not None:
            self.join(code)

    def join(self, text: str) -> str:
        """Join the game of the code in ``text`` (:class:`InvitationError` for a bad one);
        the code, in its one spelling."""
        code = parse_code(text)
        self._close()
        self._store.set_setting(_JOINING_KEY, code)
        log.info("remote: joining the game of an invitation code")
        link = self._link(code, Side.JOINER, EmptyJournal())
        with self._lock:
            self._joining, self._game_id, self._record, self._stopped = code, None, None, None
            self._peer = None
        self._open(link)
        return code

    def take_record(self) -> bool:
        """The joining board of a stopped link asks for the inviting board's record, to
        go on with its game (False: nothing to take: not stopped, or this board
        invited)."""
        with self._lock:
            remote, record, stopped = self._remote, self._record, self._stopped
        if remote is None or record is None or record.side is not Side.JOINER or not stopped:
            return False
        log.info("remote: asking the other board for its record of the game")
        remote.want_record()
        return True

    def cancel_join(self) -> None:
        """Stop joining: the code is forgotten and the link closed (a game already made
        from it is not touched)."""
        with self._lock:
            joining = self._joining is not None and self._record is None
        if not joining:
            return
        log.info("remote: joining cancelled")
        self._close()
        self._store.set_setting(_JOINING_KEY, None)
        self._door.republish()

    def close(self) -> None:
        """Close the link (at shutdown, before the store closes)."""
        self._close()

    # -- inside --------------------------------------------------------------------------------
    def _invite(self, session: Session) -> None:
        self._close()
        record = LinkRecord(
            new_code(),
            Side.INVITER,
            setup_of(session),
            tuple(p.number for p in session.players if p.remote),
        )
        self._store.set_setting(record_key(session.game_id), record.json())
        log.info("remote: game %d invites another board (a code was made)", session.game_id)
        self._start(session.game_id, record)

    def _bound(self, session: Session) -> None:
        """The joined game was created here: keep it as linked under the code."""
        assert self._joining is not None
        record = LinkRecord(
            self._joining,
            Side.JOINER,
            self._setup,
            tuple(p.number for p in session.players if p.remote),
            peer=self._peer,
        )
        self._store.set_setting(record_key(session.game_id), record.json())
        self._store.set_setting(_JOINING_KEY, None)
        log.info("remote: joined: game %d is played with the other board", session.game_id)
        with self._lock:
            self._game_id, self._record, self._joining = session.game_id, record, None

    def _start(self, game_id: int, record: LinkRecord) -> None:
        journal = StoreJournal(self._store, game_id, record, self._kind_of(record))
        link = self._link(
            record.code, record.side, journal, refused=record.refused, peer=record.peer
        )
        with self._lock:
            self._game_id, self._record, self._joining, self._stopped = game_id, record, None, None
            self._peer = record.peer
        self._open(link)

    def _link(
        self,
        code: str,
        side: Side,
        journal: Journal,
        refused: int = 0,
        peer: tuple[str, bytes] | None = None,
    ) -> Link:
        return Link.restore(
            journal,
            keys=derive_keys(code),
            side=side,
            board=self.board,
            name=self._config.name,
            now=time.monotonic(),
            timing=self._timing,
            refused=refused,
            secret=self._secret,
            peer=peer,
        )

    def _open(self, link: Link) -> None:
        """Connect; :meth:`Link.restore` holds what the other board has not acknowledged
        and sends it again."""
        remote = RemoteLink(self._config, link, self._on_step, reconnect=self._reconnect)
        with self._lock:
            self._remote = remote
        remote.start()

    def _send(self, event: JsonObject) -> None:
        if self._remote is not None and self._stopped is None:
            self._remote.send(event)

    def _close(self) -> None:
        with self._lock:
            remote, self._remote = self._remote, None
        if remote is not None:
            remote.close()
        with self._lock:
            self._record = None
            self._game_id = None
            self._joining = None

    def _read(self, game_id: int) -> LinkRecord | None:
        text = self._store.get_setting(record_key(game_id))
        return LinkRecord.read(text) if text is not None else None

    # -- the link's thread ----------------------------------------------------------------------
    def _on_step(self, happened: tuple[Outcome, ...], report: Report) -> None:
        for outcome in happened:
            if isinstance(outcome, Voided):
                self._voided(outcome, report)
            elif isinstance(outcome, Crossed):
                self._crossed(outcome)
            elif isinstance(outcome, Delivered):
                self._delivered(outcome)
            elif isinstance(outcome, Acknowledged):
                record = self._record
                if record is not None and self._game_id is not None and outcome.upto > record.acked:
                    record = dataclasses.replace(record, acked=outcome.upto)
                    self._store.set_setting(record_key(self._game_id), record.json())
                    with self._lock:
                        self._record = record
            elif isinstance(outcome, OtherVersion):
                log.warning("remote: %s", outcome.message)
            elif isinstance(outcome, RefusedThere):
                self._refused_there(outcome)
            elif isinstance(outcome, RecordWanted):
                self._send_record()
            elif isinstance(outcome, RecordCame):
                self._take_record(outcome, report)
            elif isinstance(outcome, Paired):
                self._paired(outcome)
            elif isinstance(outcome, Differs):
                self._differs(outcome)
        self._door.republish()

    def _paired(self, outcome: Paired) -> None:
        """The other board is known: kept, so a restart believes it alone."""
        peer = (outcome.board, outcome.public)
        record, game_id = self._record, self._game_id
        if record is not None and game_id is not None and record.peer != peer:
            record = dataclasses.replace(record, peer=peer)
            self._store.set_setting(record_key(game_id), record.json())
        log.info("remote: paired with the other board (%s)", outcome.board)
        with self._lock:
            self._peer = peer
            if record is not None:
                self._record = record

    def _differs(self, outcome: Differs) -> None:
        """The other board's event ``seq`` came again unlike the one taken here: the boards
        disagree. The inviting board says so as for a refused event (its order stands);
        the joining board stops and offers to take the inviting board's record."""
        record, game_id, remote = self._record, self._game_id, self._remote
        why = f"the other board's event {outcome.seq} differs from the one taken here"
        if record is None or game_id is None or remote is None:
            self._stop(why)
            return
        if record.side is Side.JOINER:
            self._stop(why)
            return
        log.error("remote: game %d: %s", game_id, why)
        if outcome.seq > record.refused:
            record = dataclasses.replace(record, refused=outcome.seq)
            self._store.set_setting(record_key(game_id), record.json())
            with self._lock:
                self._record = record
            remote.refuse(outcome.seq)

    def _refused_there(self, outcome: RefusedThere) -> None:
        record = self._record
        if record is not None and self._game_id is not None:
            record = dataclasses.replace(record, refused=outcome.upto)
            self._store.set_setting(record_key(self._game_id), record.json())
            with self._lock:
                self._record = record
        self._stop(f"the other board's game could not take this board's event {outcome.upto}")

    def _refuse(self, outcome: Delivered, why: str) -> None:
        """The inviting board's game could not take the joining board's event: its order
        stands, the event is kept as set aside, and the other board is told (it can take
        this board's record)."""
        record, game_id, remote = self._record, self._game_id, self._remote
        if record is None or game_id is None or remote is None:
            raise RuntimeError(why)
        log.error("remote: game %d: the other board's event %d refused: %s",
                  game_id, outcome.seq, why)  # fmt: skip
        void = (*record.void_there, (outcome.seq, outcome.made, outcome.event))
        record = dataclasses.replace(record, void_there=void, refused=outcome.seq)
        self._store.set_setting(record_key(game_id), record.json())
        with self._lock:
            self._record = record
        remote.refuse(outcome.seq)

    def _send_record(self) -> None:
        """The joining board asked for this (inviting) board's record: the game's events
        in the order applied here, each with its side, number and whether it was set
        aside."""
        record, game_id, remote = self._record, self._game_id, self._remote
        if record is None or game_id is None or remote is None or record.side is not Side.INVITER:
            return
        journal = StoreJournal(self._store, game_id, record, self._kind_of(record))
        entries: tuple[RecordEntry, ...] = tuple(
            (
                Side.INVITER.value if logged.origin is Origin.HERE else Side.JOINER.value,
                logged.seq,
                logged.void,
                logged.event,
            )
            for logged in journal.logged()
        )
        log.info("remote: sending this board's record of game %d (%d events)",
                 game_id, len(entries))  # fmt: skip
        remote.send_record(entries)

    def _take_record(self, outcome: RecordCame, report: Report) -> None:
        """This (joining) board takes the inviting board's record: the game's events in
        its order, this board's own that it set aside undone, those it has not seen yet
        after them (undone too if made on fewer of its events than it has now). Stored in
        one transaction with the record of the numbers, read back as after a restart (the
        board shows what to put back or take off), and the link made again from it."""
        record, game_id, remote = self._record, self._game_id, self._remote
        if record is None or game_id is None or remote is None or record.side is not Side.JOINER:
            return
        kind = self._kind_of(record)
        link = remote.link
        entries = outcome.entries
        if not entries or entries[0][:2] != (Side.INVITER.value, 1):
            raise RuntimeError("the other board's record does not begin with its setup")
        theirs = sum(1 for side, _, _, _ in entries if side == Side.INVITER.value)
        seen = {seq: void for side, seq, void, _ in entries if side == Side.JOINER.value}
        events: list[Event] = [
            event_of(kind, event) for _, _, void, event in entries[1:] if not void
        ]
        void_here: list[tuple[int, int, JsonObject]] = []
        for number, (event, base) in enumerate(zip(link.mine, link.bases, strict=True), 1):
            if number in seen:
                if seen[number]:
                    void_here.append((number, base, event))
            elif number in link.void or base < theirs:
                void_here.append((number, base, event))
            else:  # made on all of the record: it follows it, as it will there
                events.append(event_of(kind, event))
        taken = dataclasses.replace(record, void_here=tuple(void_here), void_there=(),
                      acked=max(record.acked, outcome.acked))  # fmt: skip
        note = Message.of("remote_took_record", name=report.peer_name or "")
        with self._lock:
            self._rebuilding = True
        reply = self._door.rewind(
            game_id, 1, {record_key(game_id): taken.json()}, note, events=events
        )
        if not reply.ok:
            with self._lock:
                self._rebuilding = False
            raise RuntimeError(f"game {game_id} could not take the other board's record")
        log.warning("remote: game %d: this board took the other board's record", game_id)
        # The link is made again from the store (its numbers changed); not on the link's
        # own thread, which must end first.
        threading.Thread(
            target=self._again, args=(game_id, taken), name="pyramid-remote-again", daemon=True
        ).start()

    def _again(self, game_id: int, record: LinkRecord) -> None:
        self._close()
        with self._lock:
            self._rebuilding = False
        self._start(game_id, record)
        self._door.republish()

    def _crossed(self, outcome: Crossed) -> None:
        """The other board's event crossed this (inviting) board's: kept as seen, never
        applied (its board undoes it)."""
        record, game_id = self._record, self._game_id
        if record is None or game_id is None:
            raise RuntimeError("an event crossed before the game was linked")
        if any(seq == outcome.seq for seq, _, _ in record.void_there):
            return
        void = (*record.void_there, (outcome.seq, outcome.made, outcome.event))
        record = dataclasses.replace(record, void_there=void)
        self._store.set_setting(record_key(game_id), record.json())
        with self._lock:
            self._record = record

    def _voided(self, outcome: Voided, report: Report) -> None:
        """This (joining) board's events crossed the inviting board's: undone in the store
        and on the table (the family puts back or takes off what the board shows), with
        the record of their numbers in the same transaction."""
        record, game_id = self._record, self._game_id
        if record is None or game_id is None:
            raise RuntimeError("events were undone before the game was linked")
        known = {seq for seq, _, _ in record.void_here}
        new = [
            (seq, base, event)
            for seq, base, event in zip(outcome.seqs, outcome.bases, outcome.events, strict=True)
            if seq not in known
        ]
        if not new:
            return
        entries = StoreJournal(self._store, game_id, record, self._kind_of(record)).entries()
        first = min(seq for seq, _, _ in new)
        at = [
            store_seq
            for logged, store_seq in entries
            if logged.origin is Origin.HERE and logged.seq >= first and store_seq is not None
        ]
        record = dataclasses.replace(record, void_here=(*record.void_here, *new))
        settings = {record_key(game_id): record.json()}
        note = Message.of("remote_crossed", name=report.peer_name or "")
        if at:
            reply = self._door.rewind(game_id, min(at), settings, note)
            if not reply.ok:
                raise RuntimeError(f"game {game_id} could not be rewound")
        else:
            self._store.set_setting(record_key(game_id), record.json())
        log.warning("remote: game %d: events %s made here are undone", game_id, outcome.seqs)
        with self._lock:
            self._record = record

    def _delivered(self, outcome: Delivered) -> None:
        if self._stopped is not None:
            raise RuntimeError(f"the link of this game is stopped: {self._stopped}")
        if self._rebuilding:
            raise RuntimeError("the link is made again from the other board's record")
        event = outcome.event
        if event.get("kind") == SETUP:
            if self._joining is None:
                raise RuntimeError("a setup arrived for a game already linked")
            self._setup = event
            try:
                command = joined_game(event)
            except (KeyError, TypeError) as exc:
                self._stop(f"the other board's game cannot be read ({exc})")
                raise
            self._creating = True
            try:
                reply = self._door.submit(command)
            finally:
                self._creating = False
            if not reply.ok:
                said = english(reply.message) if reply.message else "refused"
                self._stop(f"the other board's game cannot be played here: {said}")
                raise RuntimeError(said)
            return
        inviting = self._record is not None and self._record.side is Side.INVITER
        try:
            played = event_of(self._kind_of(self._record), event)
        except EventError as exc:
            if inviting:
                self._refuse(outcome, str(exc))
                return
            self._stop(str(exc))
            raise
        if isinstance(played, Aborted) and self._record is not None and self._game_id:
            record = dataclasses.replace(self._record, aborted_there=True)
            self._store.set_setting(record_key(self._game_id), record.json())
            self._record = record
        reply = self._door.arrive(played)
        if not reply.ok:
            said = english(reply.message) if reply.message else "refused"
            if inviting:
                self._refuse(outcome, said)
                return
            self._stop(said)
            raise RuntimeError(said)

    def _stop(self, why: str) -> None:
        log.error("remote: the link of this game is stopped: %s", why)
        with self._lock:
            self._stopped = why

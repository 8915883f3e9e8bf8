"""The Table: the thread that carries the referee (:mod:`controller.referee`).

(Longer than most modules: the one owner thread, the items its queue carries and the
order it carries a step out in, which must be read together. The refereeing is the
referee's, the store's rule for a step is :func:`store_first`, the seats on another
board are :mod:`controller.remote.seats`.)

All the refereeing is pure functions over a frozen value; the Table only moves things in
and out. One owner thread takes sensor frames (from the board adapter's thread),
commands (:meth:`Table.submit`, from the page and nowhere else) and the computer's
answers from one queue, hands each to the referee with the time, and carries out the
step it gets back, always in this order: **commit** the events to the store, **show** the
LED picture, **publish** the snapshot, then **reply**. It sleeps until the referee's next
deadline, read from its :class:`Clock`, so a test's virtual clock drives it.

>>> import pathlib, tempfile
>>> from controller.games.registry import GAMES
>>> from controller.referee.commands import NewGame
>>> from controller.hardware.channels import ChannelMap
>>> from controller.hardware.sim import SimBoard
>>> from controller.store import Store
>>> cmap = ChannelMap.default()
>>> board = SimBoard(cmap.channel_count, cmap.led_count)
>>> store = Store(pathlib.Path(tempfile.mkdtemp()) / "games.sqlite3")
>>> table = Table(board, cmap, store, TableSettings(games=GAMES))
>>> table.start()
>>> table.submit(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"))).ok
True
>>> frame = board.set_channel(cmap.channel("c3"), True)   # Anna places a pearl on c3
>>> snap = table.handled(frame.seq, timeout=2)
>>> snap.last_move, snap.players[snap.to_move].name
('c3', 'Ben')
>>> table.stop(); store.close()
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import logging
import queue
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from controller import guidance, referee
from controller.clock import Clock, SystemClock
from controller.computer_thread import ComputerPlayer, Thinker
from controller.hardware.channels import ChannelMap
from controller.hardware.port import (
    Board,
    BoardStatus,
    LedFrame,
    SensorFrame,
    SensorLevels,
    Touchable,
)
from controller.referee import (
    Abort,
    Aborted,
    Act,
    Announcement,
    AskComputer,
    CancelSearches,
    Command,
    Event,
    EventError,
    GameCommand,
    GameKind,
    LedTest,
    Message,
    NewGame,
    PlayAgain,
    Player,
    PlaySound,
    Purpose,
    RefereeConfig,
    RefereeState,
    Reply,
    Result,
    Snapshot,
    Step,
    Undo,
    english,
    picture,
    resume,
    snapshot_of,
)
from controller.referee.fold import kept_record
from controller.referee.state import BoardCheck
from controller.rules.records import OptionError
from controller.settings import Settings
from controller.store import PlayerRecord, Store, StoreError, StoreWriteError, write_fault
from controller.store.history import History
from controller.store.values import StoredGame
from controller.subscription import Publisher, Subscription

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TableSettings:
    """How the Table runs; the defaults are what ``pyramid run`` uses."""

    rules: RefereeConfig = field(default_factory=RefereeConfig)
    """How the referee behaves (the games, the board's own facts and the computer's levels
    are filled in)."""
    games: Mapping[str, GameKind] = field(kw_only=True)
    """The games the referee runs: the composition root's list
    (:mod:`controller.games.registry`, which nothing below the root imports)."""
    computers: Mapping[str, ComputerPlayer] | None = None
    """The computer player of each game that has one, by game; None: each game's own
    (:meth:`~controller.referee.game.GameKind.computer`) with the budgets below."""
    computer_budget_s: float | None = None
    """Seconds a computer seat may think; None: its level's own budget."""
    hint_budget_s: float = 1.0
    clock: Clock = field(default_factory=SystemClock)


class TableBusy(TimeoutError):
    """The Table did not answer a command in time."""


@dataclass(frozen=True, slots=True)
class _Frame:
    frame: SensorFrame


@dataclass(frozen=True, slots=True)
class _Status:
    status: BoardStatus


@dataclass(frozen=True, slots=True)
class _Request:
    command: Command
    future: concurrent.futures.Future[Reply]


@dataclass(frozen=True, slots=True)
class _Arrival:
    event: Event
    future: concurrent.futures.Future[Reply]


@dataclass(frozen=True, slots=True)
class _Rewind:
    game_id: int
    first: int
    settings: Mapping[str, str | None]
    note: Message
    events: tuple[Event, ...]
    future: concurrent.futures.Future[Reply]


@dataclass(frozen=True, slots=True)
class _Republish:
    """The link's state changed: publish the snapshot again."""


@dataclass(frozen=True, slots=True)
class _Answer:
    purpose: Purpose
    token: tuple[int, int]
    cell: str | None
    why: object


class Inbox:
    """The Table's queue: the one way in for every other thread (the board's, the page's,
    the computer player's, the link's). The Table reads it on its owner thread; what
    carries a game to another board (:mod:`controller.remote.seats`) holds only this
    door, never the Table, so that the two need not know each other: the composition
    root makes the inbox, hands it to the seats and both to the Table.
    """

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._owner: threading.Thread | None = None
        self._open = False

    # -- the Table's side ----------------------------------------------------------------
    def opened(self, owner: threading.Thread) -> None:
        """``owner`` reads the queue from now on."""
        self._owner, self._open = owner, True

    def closed(self) -> None:
        """Nothing more is taken (commands that come get a "not running" reply)."""
        self._open = False

    @property
    def open(self) -> bool:
        return self._open

    def put(self, item: object) -> None:
        self._queue.put(item)

    def get(self, timeout: float | None) -> object:
        """The next item (:class:`queue.Empty` after ``timeout`` seconds)."""
        return self._queue.get(timeout=timeout)

    def get_nowait(self) -> object:
        return self._queue.get_nowait()

    # -- any other thread ----------------------------------------------------------------
    def submit(self, command: Command, timeout: float = 5.0) -> Reply:
        """Hand ``command`` to the owner thread and wait for its reply (thread-safe).

        Raises :class:`TableBusy` when no reply came within ``timeout`` seconds.
        """
        if not isinstance(command, COMMANDS):
            raise TypeError(f"not a Table command: {command!r}")
        return self._asked(command, timeout, type(command).__name__)

    def arrive(self, event: Event, timeout: float = 5.0) -> Reply:
        """The other board's ``event`` of a linked game: played here and stored when this
        returns (refused: the reply says why; :class:`TableBusy` after ``timeout``)."""
        return self._asked(event, timeout, event.kind)

    def rewind(
        self,
        game_id: int,
        first: int,
        settings: Mapping[str, str | None],
        note: Message,
        timeout: float = 5.0,
        events: Sequence[Event] = (),
    ) -> Reply:
        """Game ``game_id`` of a linked game without its events from number ``first`` on,
        and with ``events`` after them (stored with ``settings`` in one transaction): the
        other board's order stood over what was done here meanwhile, or this board takes
        the other board's record. The game is read back from the store as after a restart,
        ``note`` says why, and the board must match it again (what to put back or take
        off is the board's usual mismatch, in words and lights). Returns once it is
        stored and shown."""
        future = self._waiting()
        if isinstance(future, Reply):
            return future
        self._queue.put(_Rewind(game_id, first, dict(settings), note, tuple(events), future))
        return self._answer(future, timeout, "a rewind")

    def republish(self) -> None:
        """Publish the snapshot again (the link's state, which the referee does not hold,
        changed)."""
        self._queue.put(_Republish())

    def _waiting(self) -> concurrent.futures.Future[Reply] | Reply:
        if threading.current_thread() is self._owner:
            raise RuntimeError("the Table's own thread would wait for itself")
        if not self._open:
            return Reply(False, Message.of("not_running"))
        return concurrent.futures.Future()

    def _asked(self, what: Command | Event, timeout: float, name: str) -> Reply:
        future = self._waiting()
        if isinstance(future, Reply):
            return future
        if isinstance(what, COMMANDS):
            self._queue.put(_Request(what, future))
        else:
            self._queue.put(_Arrival(what, future))
        return self._answer(future, timeout, name)

    @staticmethod
    def _answer(future: concurrent.futures.Future[Reply], timeout: float, name: str) -> Reply:
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            raise TableBusy(f"no reply to {name} in {timeout} s") from None


class Linker(Protocol):
    """A game played with another board (:class:`controller.remote.seats.RemoteSeats`):
    what the Table tells it and asks it, on the Table's thread."""

    def remote_of(self, game_id: int) -> frozenset[int]:
        """The players of stored game ``game_id`` who play on the other board."""
        ...

    def carried(self, step: Step, state: RefereeState, *, arrived: bool) -> None:
        """``step`` was stored and ``state`` adopted (``arrived``: it came from there)."""
        ...

    def view(self) -> dict[str, object] | None:
        """The snapshot's ``remote``, or None."""
        ...

    def join(self, text: str) -> str:
        """Join the game of the invitation code in ``text`` (ValueError for a bad one)."""
        ...

    def cancel_join(self) -> None:
        """Stop joining (nobody answered the code); nothing when no join is under way."""
        ...

    def take_record(self) -> bool:
        """Take the other board's record of a game whose link stopped (False: none)."""
        ...

    def resumed(self, game_id: int | None) -> None:
        """The Table has started with game ``game_id`` on the table: link it again."""
        ...

    def close(self) -> None:
        """Close the link (before the store closes)."""
        ...


_WAKE: Final = object()
LEVELS_EVERY_S: Final = 0.2
"""However many pages watch the levels, the board is asked at most this often."""
_STOP: Final = object()
COMMANDS: Final = (NewGame, PlayAgain, Undo, Abort, LedTest, Act, GameCommand)
"""What :meth:`Table.submit` takes."""


class Table:
    """The referee's thread. Build it with a board, its channel map, a store and its
    settings (the games among them); a Table whose games may have seats on another board
    gets their ``linker`` and the ``inbox`` that linker was given."""

    def __init__(
        self,
        board: Board,
        channel_map: ChannelMap,
        store: Store,
        settings: TableSettings,
        *,
        inbox: Inbox | None = None,
        linker: Linker | None = None,
    ) -> None:
        if channel_map.led_count > board.leds:
            raise ValueError(
                f"the channel map names {channel_map.led_count} LEDs, the board has {board.leds}"
            )
        self.board, self.channel_map, self.store = board, channel_map, store
        self.settings = settings
        self.household = Settings(store)
        """The household's settings (PIN, volume, language): the page's and the sounds'."""
        self._clock = self.settings.clock
        computers = self.settings.computers
        if computers is None:
            budgets = (self.settings.computer_budget_s, self.settings.hint_budget_s)
            made = {name: kind.computer(*budgets) for name, kind in self.settings.games.items()}
            computers = {name: player for name, player in made.items() if player is not None}
        leds = sorted(channel_map.led_by_name, key=channel_map.led_by_name.__getitem__)
        first = next(iter(computers.values()), None)
        rules = dataclasses.replace(
            self.settings.rules,
            games=self.settings.games,
            sensors=frozenset(channel_map.channel_by_name),
            leds=tuple(leds),
            levels=first.levels if first is not None else (),
        )
        self._state = RefereeState(config=rules)
        self._queue = inbox if inbox is not None else Inbox()
        self._thread: threading.Thread | None = None
        self._version = 0
        self._published = Publisher(snapshot_of(self._state, version=0, at=time.time()))
        self._shown: LedFrame | None = None
        self._thinker = Thinker(computers, self._on_answer)
        self._replies: list[tuple[concurrent.futures.Future[Reply], Reply]] = []
        self._rewound: Message | None = None
        """What a rewind said, kept for the other board's event that follows it."""
        self._unreadable: tuple[str, ...] = ()
        """The cells the board last said it cannot read, by name (for the snapshot)."""
        self._levels_asked = float("-inf")
        self._linker = linker

    @property
    def linker(self) -> Linker | None:
        """The games with a seat on another board (None: this board plays alone)."""
        return self._linker

    # -- any thread ------------------------------------------------------------------------
    @property
    def snapshot(self) -> Snapshot:
        return self._published.latest

    @property
    def running(self) -> bool:
        return self._queue.open

    @property
    def games(self) -> Mapping[str, GameKind]:
        """The games the referee plays, by name."""
        return self.settings.games

    @property
    def levels(self) -> tuple[str, ...]:
        """The computer player's levels, weakest first (empty: no computer player)."""
        return self._state.config.levels

    @property
    def history(self) -> History:
        """The games played, for reading (the page's history, replays and leaderboard),
        each whole game with its record."""
        return self.store.history.with_records(self._record_of)

    def _record_of(self, game: StoredGame) -> Mapping[str, Any]:
        """The record of a kept game, folded by its game's rules (``{}`` when this version
        cannot read it: the game stays visible, without a record)."""
        try:
            return kept_record(self.settings.games, game)
        except (EventError, OptionError) as exc:
            log.warning("game %d: no record (%s)", game.id, exc)
            return {}

    @property
    def touchable(self) -> Touchable | None:
        """The board as a hand touches it through the page (the simulated board), or
        None when it has real sensors."""
        return self.board.touchable()

    @property
    def has_buzzer(self) -> bool:
        return self.board.has_buzzer

    def sensor_levels(self) -> SensorLevels | None:
        """Every sensor's last reading, for the Diagnostics page (None: the board cannot
        say them); asks the board for fresh ones, at most every ``LEVELS_EVERY_S``."""
        now = time.monotonic()
        if now - self._levels_asked >= LEVELS_EVERY_S:
            self._levels_asked = now
            self.board.ask_levels()
        return self.board.levels()

    def start(self) -> None:
        """Resume an unfinished game from the store, start the owner thread and the board."""
        if self._thread is not None:
            raise RuntimeError("the table is already started")
        kept = self.store.on_the_table()
        remote = self._linker.remote_of(kept.id) if self._linker and kept else frozenset()
        self._carry(resume(self._state, kept, self._clock.now(), remote))
        for message in self._state.note.messages:
            log.info("%s", english(message))
        self._thread = threading.Thread(target=self._run, name="pyramid-table", daemon=True)
        self._queue.opened(self._thread)
        self._thinker.start()
        self._thread.start()
        self.board.start(self._on_frame, self._on_status)
        # The frame the board holds now is the first thing the referee compares with.
        self._queue.put(_Frame(self.board.read()))
        self._queue.put(_Status(self.board.status()))
        if self._linker is not None:
            self._linker.resumed(self._state.session.game_id if self._state.session else None)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the owner thread and blank the LEDs (the board and store stay open)."""
        thread = self._thread
        if thread is None:
            return
        self._queue.closed()
        self._thinker.stop()
        self._queue.put(_STOP)
        if thread is not threading.current_thread():
            thread.join(timeout)
        while True:  # commands that came too late get an answer rather than a wait
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, _Request) and item.future.set_running_or_notify_cancel():
                item.future.set_result(Reply(False, Message.of("not_running")))
        try:
            self.board.show(LedFrame.blank(self.board.leds))
        except Exception:  # a closed board cannot be blanked; nothing more to do
            log.exception("could not blank the LEDs")
        self._published.close()

    def submit(self, command: Command, timeout: float = 5.0) -> Reply:
        """Hand ``command`` to the owner thread and wait for its reply (thread-safe;
        :meth:`Inbox.submit`). The other board's events come through the inbox itself
        (:meth:`Inbox.arrive`, :meth:`Inbox.rewind`), which the remote seats hold."""
        return self._queue.submit(command, timeout)

    def subscribe(self) -> Subscription:
        """A subscription whose first :meth:`~Subscription.get` returns the current snapshot."""
        return self._published.subscribe()

    def handled(self, seq: int, timeout: float) -> Snapshot | None:
        """The first snapshot that shows sensor frame ``seq`` handled, or None after
        ``timeout`` seconds (the virtual board answers only once its touch counted)."""
        return self._published.wait(lambda snap: snap.sensor_seq >= seq, timeout)

    def wake(self) -> None:
        """Look at the clock again now (a virtual clock moved on)."""
        self._queue.put(_WAKE)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything queued so far has been handled (False: not in time)."""
        if not self.running or threading.current_thread() is self._thread:
            return False
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    # -- the board's thread: only queue --------------------------------------------------------
    def _on_frame(self, frame: SensorFrame) -> None:
        if self.running:
            self._queue.put(_Frame(frame))

    def _on_status(self, status: BoardStatus) -> None:
        if self.running:
            self._queue.put(_Status(status))

    def _on_answer(
        self, purpose: Purpose, token: tuple[int, int], cell: str | None, why: object
    ) -> None:
        if self.running:
            self._queue.put(_Answer(purpose, token, cell, why))

    # -- the owner thread ------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            try:
                item = self._queue.get(self._clock.timeout(referee.next_deadline(self._state)))
            except queue.Empty:
                item = _WAKE
            if item is _STOP:
                return
            if isinstance(item, threading.Event):  # flush(): everything before it is done
                item.set()
                continue
            before = self._state
            if isinstance(item, _Republish):
                self._publish()
                continue
            try:
                if not self._handle(item):  # nothing carried: only what fell due, if anything
                    self._carry(Step(self._state))
            except Exception:  # the referee must keep refereeing
                log.exception("table: error while handling %r", item)
                note = Announcement((Message.of("internal_error"),), fault=True)
                self._state = dataclasses.replace(self._state, note=note)
            try:
                self._render()
            except Exception:
                log.exception("table: could not show the LEDs")
            if self._state is not before:
                self._publish()
            # Replies go out once the snapshot shows their effect.
            replies, self._replies = self._replies, []
            for future, reply in replies:
                future.set_result(reply)

    def _handle(self, item: object) -> bool:
        """Hand ``item`` to the referee and carry out its step; False: nothing to carry."""
        now = self._clock.now()
        state = self._state
        if isinstance(item, _Frame):
            frame = item.frame
            names = self.channel_map.names_of(frame.active)
            # A cell the board cannot read keeps its last state in ``active`` (the board
            # says no change for it); the page says which it is and why, beside the game.
            self._unreadable = tuple(sorted(self.channel_map.names_of(frame.unreadable)))
            status = self.board.status()  # toggle counts change with every frame
            toggles = {
                self.channel_map.name_by_channel.get(c, f"channel {c}"): n
                for c, n in status.toggles.items()
            }
            self._carry(
                referee.sensed(state, names, seq=frame.seq, now=now, link=status, toggles=toggles)
            )
        elif isinstance(item, _Status):
            self._carry(referee.linked(state, item.status))
        elif isinstance(item, _Answer):
            self._carry(referee.answered(state, item.purpose, item.token, item.cell, now, item.why))
        elif isinstance(item, _Arrival) and item.future.set_running_or_notify_cancel():
            reply = self._carry(referee.arrived(state, item.event, now), arrived=True)
            self._replies.append((item.future, reply or Reply(True)))
            said, self._rewound = self._rewound, None
            if said is not None and reply is not None and reply.ok:
                # The rewind's word first: why this board's move or take-back is gone.
                messages = (said, *self._state.note.messages)
                self._state = dataclasses.replace(self._state, note=Announcement(messages))
        elif isinstance(item, _Rewind) and item.future.set_running_or_notify_cancel():
            self._replies.append((item.future, self._rewind(item, now)))
        elif isinstance(item, _Request) and item.future.set_running_or_notify_cancel():
            try:
                reply = self._carry(referee.command(state, item.command, now))
            except Exception:
                log.exception("table: command %r failed", item.command)
                reply = Reply(False, Message.of("internal_error"))
            self._replies.append((item.future, reply or Reply(True)))
        else:
            return False
        return True

    def _rewind(self, item: _Rewind, now: float) -> Reply:
        try:
            self.store.rewind(item.game_id, item.first, item.settings, item.events)
        except (StoreError, ValueError) as exc:
            log.error("could not rewind game %d: %s", item.game_id, exc)
            return Reply(False, Message.of("internal_error"))
        kept = self.store.game(item.game_id)
        remote = self._linker.remote_of(item.game_id) if self._linker else frozenset()
        fresh = RefereeState(config=self._state.config, reading=self._state.reading)
        self._carry(resume(fresh, kept, now, remote), arrived=True)
        # Not a restart: the wood is as it was a moment ago, and whatever differs from the
        # game now is to be put back or taken off, never a move made while away.
        self._state = dataclasses.replace(
            self._state, comparison=BoardCheck(armed=False), note=Announcement((item.note,))
        )
        self._queue.put(_Frame(self.board.read()))
        # A rewind for crossed events is followed by the other board's event that caused
        # it, whose note comes after this one; a record taken is not.
        self._rewound = None if item.events else item.note
        log.info("game %d rewound to before its event %d: %s", item.game_id, item.first,
                 english(item.note))  # fmt: skip
        return Reply(True, item.note)

    def _carry(self, step: Step, *, arrived: bool = False) -> Reply | None:
        """Carry out ``step``, then whatever timer fell due (:func:`carried`): store first;
        only what was stored is adopted. The reply is the step's own."""
        reply = None
        for number, (asked, adopted) in enumerate(
            carried(self._state, step, self.store, self._clock.now())
        ):
            self._state = adopted.state
            if self._linker is not None and adopted.state.fault is None:
                self._linker.carried(asked, adopted.state, arrived=arrived and number == 0)
            for effect in adopted.effects:
                self._effect(effect)
            if number == 0:
                reply = adopted.reply
        return reply

    def _effect(self, effect: object) -> None:
        if isinstance(effect, CancelSearches):
            self._thinker.cancel()  # a search still running for an old position may stop early
        elif isinstance(effect, AskComputer):
            self._thinker.ask(effect)
        elif isinstance(effect, PlaySound):
            volume = self.household.volume
            if volume <= 0:
                return  # muted in Settings
            try:
                self.board.sound(effect.sound, volume / 100)
            except Exception:  # a buzzer fault must not stop the game
                log.exception("could not play %s", effect.sound.value)

    def _render(self) -> None:
        frame = guidance.to_frame(picture(self._state), self.channel_map, self.board.leds)
        if frame != self._shown:
            self.board.show(frame)
            self._shown = frame

    def _publish(self) -> None:
        snap = snapshot_of(self._state, version=self._version + 1, at=time.time())
        if self._linker is not None:
            snap = dataclasses.replace(snap, remote=self._linker.view())
        if self._unreadable:
            snap = dataclasses.replace(snap, unreadable=self._unreadable)
        old = self._published.latest
        if dataclasses.replace(snap, version=old.version, at=old.at) == old:
            return  # an animation stepped (the sweep, the LED walk): nothing a page shows
        self._version += 1
        self._published.publish(snap)


# -- store first, then adopt ---------------------------------------------------------------


class Ledger(Protocol):
    """What the Table needs of a store (:class:`~controller.store.Store`; the referee's
    tests use a ledger in memory)."""

    def create_game(
        self,
        game: str,
        players: Sequence[PlayerRecord],
        options: dict[str, str | int],
        *,
        children_help: bool,
    ) -> int: ...

    def append(
        self, game_id: int, events: Sequence[Event], *, result: Result | None = None
    ) -> object: ...


def carried(
    state: RefereeState, step: Step, ledger: Ledger, now: float
) -> tuple[tuple[Step, Step], ...]:
    """The Table's carrying step, pure: ``step`` (made from ``state`` by one thing that
    happened), then the referee's timer if one fell due by ``now``; each as asked and as
    adopted (:func:`store_first`), in the order the Table adopts them. The Table and the
    referee's tests (``tests/support/referee.py``) both carry every step through it."""
    first = store_first(state, step, ledger, now)
    out = [(step, first)]
    deadline = referee.next_deadline(first.state)
    if deadline is not None and now >= deadline:
        timed = referee.timer(first.state, now)
        out.append((timed, store_first(first.state, timed, ledger, now)))
    return tuple(out)


def store_first(before: RefereeState, step: Step, ledger: Ledger, now: float) -> Step:
    """``step`` as it may be adopted: what it stored (or why nothing was).

    A step's events are written (then a new game created) before its state is adopted,
    so nothing is shown that is not on disk; when the store cannot write, the referee
    keeps the state it had and says so (:func:`controller.referee.referee.failed`).
    """
    commit = step.commit
    if commit is not None:
        try:
            ledger.append(commit.game_id, commit.events, result=commit.result)
        except StoreError as exc:
            log.error("could not store %s: %s", [e.kind for e in commit.events], exc)
            return referee.failed(before, step, _fault(exc), now)
        for event in commit.events:
            if isinstance(event, Aborted):
                log.info("game %d ended: %s", commit.game_id, event.reason)
    if step.create is None:
        if commit is None:
            return step
        return Step(referee.stored(step.state), commit, step.effects, step.reply)
    setup = step.create
    if commit is not None:  # the game it replaces has ended in the store
        before = referee.closed(before, Message.of("replaced", number=commit.game_id))
    try:
        game_id = ledger.create_game(
            setup.kind.name,
            [_record(p) for p in setup.players],
            setup.options.to_dict(),
            children_help=setup.children_help,
        )
    except StoreError as exc:
        log.error("could not start a game: %s", exc)
        return referee.failed(before, step, _fault(exc), now)
    started = referee.stored(step.state)
    return store_first(started, referee.begin(started, setup, game_id, now), ledger, now)


def _record(player: Player) -> PlayerRecord:
    c = player.colour
    return PlayerRecord(player.number, player.seat, player.name, c.name, c.hex, player.computer)


def _fault(exc: StoreError) -> str:
    return exc.fault if isinstance(exc, StoreWriteError) else write_fault(exc)

"""The Table: the referee between the physical board and the game.

One thread owns the game. Sensor frames from the Board, commands from the web page and
the board's buttons, and answers from the computer player all reach it through one queue;
after every change it commits the events to the store, shows the LED picture and
publishes an immutable :class:`Snapshot`.

>>> from controller.hardware.channels import ChannelMap
>>> from controller.hardware.sim import SimBoard
>>> from controller.store import Store
>>> import tempfile, pathlib
>>> cmap = ChannelMap.default()
>>> board = SimBoard(cmap.channel_count, cmap.led_count)
>>> store = Store(pathlib.Path(tempfile.mkdtemp()) / "games.sqlite3")
>>> table = Table(board, cmap, store)
>>> table.start()
>>> table.submit(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"))).ok
True
>>> sub = table.subscribe()
>>> board.set_channel(cmap.channel("c3"), True) is not None   # Anna places a pearl on c3
True
>>> snap = sub.get(timeout=2)
>>> while snap.moves < 1: snap = sub.get(timeout=2)
>>> snap.to_dict()["pearls"], snap.players[snap.to_move].name
([{'pos': '1:c3', 'colour': 0}], 'Ben')
>>> table.stop(); store.close()

How the Table reads the board (reconciliation). It always knows which base cells should
hold a pearl (or which targets a ball). Comparing that with the sensors:

- exactly one new pearl on a legal cell, nothing missing, while the board matched the
  game just before: the mover's move (it also acknowledges every bonus pearl still
  waiting: players who go on have placed them);
- the most recent base pearl lifted (it earned no bonus, so nothing rests on it) and kept
  off for ``settle_s``: that move is taken back; put on another legal cell instead, the
  move is taken back and made there;
- anything else (a pearl on an illegal cell, several new pearls, one placed too soon after
  the last move, a pearl missing): a mismatch, shown on the LEDs and the page. Nothing is
  played until the board matches the game again, so a bumped board never makes a move.

Pyramidos: a target going active is a landing for the seat to move (the top only once it
is open: before, it is a mismatch); a target going inactive and staying so for
``settle_s`` is a knocked-off ball; ``button:end_turn`` or the page ends a turn.

Buttons act on their rising edge: ``button:confirm`` acknowledges the first waiting bonus
pearl, ``button:end_turn`` ends a Pyramidos turn, ``button:undo`` takes back the last move
(the board must then match again: the pearl to remove blinks until lifted).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Final

from controller import guidance
from controller.guidance import GuidanceOptions, Light, Mismatch, MismatchKind
from controller.hardware.channels import CELLS, TARGETS, ChannelMap
from controller.hardware.port import Board, BoardStatus, Colour, LedFrame, SensorFrame
from controller.palette import PALETTE, PaletteColour, PaletteError, by_name, check_distinct
from controller.rules import perlen, pyramidos
from controller.rules.notation import NotationError, Position, parse_cell
from controller.rules.records import PERLEN, PYRAMIDOS
from controller.store import PlayerRecord, Store, StoredEvent, StoreError

log = logging.getLogger(__name__)

GAMES: Final = (PERLEN, PYRAMIDOS)
COMPUTER_LEVELS: Final = ("gentle", "easy", "medium", "strong", "strongest")
"""The levels of controller.bot (CONTRACTS.md); checked against bot.LEVELS when present."""
MAX_NAME = 30
_CELL_SET: Final = frozenset(CELLS)
_TARGET_SET: Final = frozenset(TARGETS)


# -- commands ------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewGame:
    """Start a game (an unfinished one is aborted and kept in the history).

    ``players`` are names by physical seat (0, 1, 2 …): three for Perlen-Pyramide, two to
    four for Pyramidos. ``options`` as the rules name them (``first_seat`` says which seat
    starts). ``computer`` maps a seat to a computer level (Perlen-Pyramide only); a
    computer seat's name may be empty. ``colours`` are palette names by seat (default:
    the configured seat colours).
    """

    game: str
    players: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    children_help: bool = False
    computer: Mapping[int, str] = field(default_factory=dict)
    colours: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ConfirmBonus:
    """The first waiting bonus pearl has been placed."""

    source: str = "page"


@dataclass(frozen=True)
class EndTurn:
    """Pyramidos: the turn ended without a landing (earth square or net)."""

    source: str = "page"


@dataclass(frozen=True)
class Undo:
    """Take back the last move (Perlen-Pyramide) or event (Pyramidos)."""

    source: str = "page"


@dataclass(frozen=True)
class Abort:
    """Stop the game without a result (it stays in the history as aborted)."""


@dataclass(frozen=True)
class Hint:
    """Ask the computer player for a good cell for the person to move."""


@dataclass(frozen=True)
class LedTest:
    """Light ``led`` in ``colour``; ``led`` None walks every LED in turn; ``colour`` None stops."""

    led: str | None = None
    colour: Colour | None = None


Command = NewGame | ConfirmBonus | EndTurn | Undo | Abort | Hint | LedTest
COMMANDS: Final = (NewGame, ConfirmBonus, EndTurn, Undo, Abort, Hint, LedTest)


@dataclass(frozen=True, slots=True)
class Reply:
    ok: bool
    message: str


class GameError(ValueError):
    """A command or event the game cannot take now; the message says why, for people."""


# -- players and games (pure values) -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Player:
    """A player of the current game."""

    number: int
    """Colour number (Perlen-Pyramide: turn order) or seat (Pyramidos): the index the
    game's states and the snapshot use."""
    seat: int
    """The physical seat, whose LED ``seat:N`` lights on this player's turn."""
    name: str
    colour: PaletteColour
    computer: str | None = None
    """The level of a computer seat, None for a person."""

    @property
    def light(self) -> Light:
        return Light(self.seat, self.colour.rgb)

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "seat": self.seat,
            "name": self.name,
            "colour": self.colour.hex,
            "colour_name": self.colour.name,
            "letter": self.colour.letter,
            "pattern": self.colour.pattern_id,
            "computer": self.computer,
        }

    def record(self) -> PlayerRecord:
        return PlayerRecord(
            self.number, self.seat, self.name, self.colour.name, self.colour.hex, self.computer
        )


@dataclass(frozen=True, slots=True)
class PerlenStep:
    """One base pearl played: what it was, and the state to go back to."""

    cell: str
    colour: int
    before: perlen.PerlenState
    bonuses: tuple[perlen.Bonus, ...]


@dataclass(frozen=True, slots=True)
class PerlenGame:
    """A game of Perlen-Pyramide as the Table keeps it: the state, the bonus pearls still
    to be placed, and the moves that can be taken back.

    >>> g = PerlenGame.new(perlen.PerlenOptions())
    >>> for cell in ("c3", "d4", "d3", "c4"):
    ...     g = g.acknowledge_all().move(cell)
    >>> [str(b.position) for b in g.pending], sorted(g.expected)
    (['2:c3'], ['c3', 'c4', 'd3', 'd4'])
    >>> g.undo().pending, g.undo().state.to_move
    ((), 0)
    """

    state: perlen.PerlenState
    pending: tuple[perlen.Bonus, ...] = ()
    steps: tuple[PerlenStep, ...] = ()

    @classmethod
    def new(cls, options: perlen.PerlenOptions) -> PerlenGame:
        return cls(perlen.new_game(options))

    @property
    def finished(self) -> bool:
        """The pyramid is complete and every bonus pearl placed."""
        return self.state.over and not self.pending

    @property
    def expected(self) -> frozenset[str]:
        """Base cells that hold a pearl."""
        occupied = self.state.occupied
        return frozenset(CELLS[i] for i in range(len(CELLS)) if occupied >> i & 1)

    @property
    def can_take_back_by_lifting(self) -> bool:
        """The last pearl earned no bonus, so nothing rests on it and it can be lifted."""
        return bool(self.steps) and not self.steps[-1].bonuses and not self.finished

    def move(self, cell: str) -> PerlenGame:
        """Play ``cell`` for the mover; every waiting bonus must have been acknowledged."""
        if self.pending:
            raise GameError("bonus pearls are still waiting to be placed")
        mover = self.state.to_move
        if mover is None:
            raise GameError("the pyramid is complete")
        try:
            state, bonuses = perlen.play(self.state, cell)
        except perlen.IllegalMoveError as exc:
            raise GameError(str(exc)) from None
        step = PerlenStep(cell, mover, self.state, bonuses)
        return PerlenGame(state, bonuses, (*self.steps, step))

    def acknowledge(self) -> PerlenGame:
        """The first waiting bonus pearl is placed."""
        if not self.pending:
            raise GameError("no bonus pearl is waiting")
        return PerlenGame(self.state, self.pending[1:], self.steps)

    def acknowledge_all(self) -> PerlenGame:
        return PerlenGame(self.state, (), self.steps)

    def undo(self) -> PerlenGame:
        """Take back the last base pearl and the bonus pearls it earned."""
        if not self.steps:
            raise GameError("there is no move to take back")
        # Bonuses of earlier moves were all acknowledged before the last move was made.
        return PerlenGame(self.steps[-1].before, (), self.steps[:-1])

    def apply(self, kind: str, data: Mapping[str, Any]) -> PerlenGame:
        """Replay one stored event (resume); :class:`GameError` when it does not fit."""
        if kind == "move":
            if self.pending:
                raise GameError("a move while bonus pearls wait (they are acknowledged first)")
            if data.get("colour") != self.state.to_move:
                raise GameError(
                    f"move by colour {data.get('colour')}, expected {self.state.to_move}"
                )
            return self.move(str(data["cell"]))
        if kind == "bonus":
            if not self.pending or str(self.pending[0].position) != data.get("pos"):
                raise GameError(f"bonus {data.get('pos')} is not the one waiting")
            return self.acknowledge()
        if kind == "undo":
            return self.undo()
        raise GameError(f"{kind!r} is not a Perlen-Pyramide event")


@dataclass(frozen=True, slots=True)
class PyramidosGame:
    """A game of Pyramidos as the Table keeps it, with its events for taking back.

    >>> g = PyramidosGame.new(pyramidos.PyramidosOptions(seats=2))
    >>> g = g.event("land t1").event("end")
    >>> sorted(g.expected), g.state.to_move, g.undo().state.to_move
    (['t1'], 0, 1)
    """

    state: pyramidos.PyramidosState
    history: tuple[tuple[str, pyramidos.PyramidosState], ...] = ()

    @classmethod
    def new(cls, options: pyramidos.PyramidosOptions) -> PyramidosGame:
        return cls(pyramidos.new_game(options=options))

    @property
    def finished(self) -> bool:
        return self.state.over

    @property
    def expected(self) -> frozenset[str]:
        """Targets that hold a ball."""
        return frozenset(name for name, owner in self.state.targets().items() if owner is not None)

    @property
    def steps(self) -> tuple[tuple[str, pyramidos.PyramidosState], ...]:
        return self.history

    def event(self, text: str) -> PyramidosGame:
        try:
            state = pyramidos.apply(self.state, pyramidos.parse_event(text))
        except (NotationError, pyramidos.ImpossibleEventError) as exc:
            raise GameError(str(exc)) from None
        return PyramidosGame(state, (*self.history, (text, self.state)))

    def undo(self) -> PyramidosGame:
        if not self.history:
            raise GameError("there is nothing to take back")
        return PyramidosGame(self.history[-1][1], self.history[:-1])

    def apply(self, kind: str, data: Mapping[str, Any]) -> PyramidosGame:
        if kind in ("land", "leave"):
            return self.event(f"{kind} {data['target']}")
        if kind == "end":
            return self.event("end")
        if kind == "undo":
            return self.undo()
        raise GameError(f"{kind!r} is not a Pyramidos event")


Game = PerlenGame | PyramidosGame


@dataclass(frozen=True, slots=True)
class Session:
    """The game on the table: who plays, with which options, and where it stands."""

    game_id: int
    kind: str
    players: tuple[Player, ...]
    options: Mapping[str, Any]
    children_help: bool
    game: Game

    def with_game(self, game: Game) -> Session:
        return dataclasses.replace(self, game=game)


def replay_events(game: Game, events: Sequence[StoredEvent]) -> Game:
    """Fold stored events onto ``game`` (resume after a restart)."""
    for event in events:
        try:
            game = game.apply(event.kind, event.data)
        except (GameError, KeyError) as exc:
            raise GameError(f"event {event.seq} ({event.kind} {dict(event.data)}): {exc}") from None
    return game


# -- snapshots and subscriptions -----------------------------------------------------------


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Snapshot:
    """Everything the page shows, at one moment; never changes once published."""

    version: int
    """Counts up by one with every snapshot the Table publishes."""
    game: str | None
    game_id: int | None
    status: str
    """``idle``, ``playing``, ``bonus`` (bonus pearls wait), ``mismatch`` or ``over``."""
    players: tuple[Player, ...]
    to_move: int | None
    """Index into :attr:`players` of the player to move (None: no game, or over)."""
    pearls: tuple[tuple[str, int], ...]
    """(position ``L:xy``, player index) of every pearl that should be on the board."""
    pending: tuple[perlen.Bonus, ...]
    mismatches: tuple[Mismatch, ...]
    scores: Mapping[str, tuple[int, ...]]
    pools_left: tuple[int | None, ...] | None
    targets: Mapping[str, int | None]
    top_open: bool
    over: bool
    winners: tuple[int, ...]
    legal: tuple[str, ...]
    hint: str | None
    computer_move: str | None
    thinking: bool
    message: str
    sensors: tuple[str, ...]
    link: BoardStatus | None
    toggles: Mapping[str, int]
    moves: int
    options: Mapping[str, Any]
    children_help: bool
    can_undo: bool
    last_move: str | None
    """The last base cell played (Perlen-Pyramide) or target landed on (Pyramidos)."""
    led_test: Mapping[str, Any] | None
    """``{"led", "colour"}`` while an LED test runs (``led`` None: walking every LED)."""
    sensor_seq: int
    """``seq`` of the last sensor frame the Table has handled (tests and benchmarks wait
    for it)."""
    at: float
    """``time.time()`` when published."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; the keys CONTRACTS.md lists (the web page renders only from these)."""
        link = self.link
        return {
            "version": self.version,
            "game": self.game,
            "game_id": self.game_id,
            "status": self.status,
            "players": [p.to_dict() for p in self.players],
            "to_move": self.to_move,
            "pearls": [{"pos": pos, "colour": colour} for pos, colour in self.pearls],
            "pending": [
                {
                    "pos": str(b.position),
                    "colour": b.colour,
                    "reason": b.reason.value,
                    "footprint": list(b.position.footprint),
                }
                for b in self.pending
            ],
            "mismatches": [
                {"cell": m.cell, "kind": m.kind.value, "colour": m.colour} for m in self.mismatches
            ],
            "scores": {k: list(v) for k, v in self.scores.items()},
            "pools_left": None if self.pools_left is None else list(self.pools_left),
            "targets": dict(self.targets),
            "top_open": self.top_open,
            "over": self.over,
            "winners": list(self.winners),
            "legal": list(self.legal),
            "hint": self.hint,
            "computer_move": self.computer_move,
            "thinking": self.thinking,
            "message": self.message,
            "sensors": list(self.sensors),
            "link": None
            if link is None
            else {
                "adapter": link.adapter,
                "state": link.link.value,
                "since": link.since,
                "detail": link.detail,
                "counters": dict(link.counters),
            },
            "toggles": dict(self.toggles),
            "moves": self.moves,
            "options": dict(self.options),
            "children_help": self.children_help,
            "can_undo": self.can_undo,
            "last_move": self.last_move,
            "led_test": None if self.led_test is None else dict(self.led_test),
            "sensor_seq": self.sensor_seq,
            "at": self.at,
        }

    @cached_property
    def json(self) -> str:
        """:meth:`to_dict` as JSON text, made once (each page's event stream sends it)."""
        return json.dumps(self.to_dict(), separators=(",", ":"))


def idle_snapshot(version: int = 0, message: str = "") -> Snapshot:
    return Snapshot(
        version=version,
        game=None,
        game_id=None,
        status="idle",
        players=(),
        to_move=None,
        pearls=(),
        pending=(),
        mismatches=(),
        scores=_frozen({}),
        pools_left=None,
        targets=_frozen({}),
        top_open=False,
        over=False,
        winners=(),
        legal=(),
        hint=None,
        computer_move=None,
        thinking=False,
        message=message,
        sensors=(),
        link=None,
        toggles=_frozen({}),
        moves=0,
        options=_frozen({}),
        children_help=False,
        can_undo=False,
        last_move=None,
        led_test=None,
        sensor_seq=0,
        at=time.time(),
    )


class Subscription:
    """Latest-wins delivery of snapshots to one reader (a page's event stream).

    The Table only swaps in the newest snapshot and notifies: a slow reader misses
    intermediate snapshots, never holds up the Table.
    """

    def __init__(self, table: Table, first: Snapshot) -> None:
        self._table = table
        self._cond = threading.Condition()
        self._latest = first
        self._seen = -1
        self._closed = False

    def _offer(self, snapshot: Snapshot) -> None:
        with self._cond:
            self._latest = snapshot
            self._cond.notify_all()

    def get(self, timeout: float | None = None) -> Snapshot | None:
        """The newest snapshot not yet returned (the current one first); None on timeout
        or once closed."""
        with self._cond:
            ready = self._cond.wait_for(
                lambda: self._closed or self._latest.version != self._seen, timeout
            )
            if self._closed or not ready:
                return None
            self._seen = self._latest.version
            return self._latest

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._table._unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- settings ------------------------------------------------------------------------------

Chooser = Callable[[perlen.PerlenState, str, int | None], Position | str]
"""(state, level, seed) -> the computer seat's cell."""
Hinter = Callable[[perlen.PerlenState], Position | str]
"""state -> a good cell for the person to move."""


@dataclass(frozen=True)
class TableSettings:
    """How the Table behaves; the defaults are what ``pyramid run`` uses."""

    seat_colours: tuple[PaletteColour, ...] = PALETTE[:4]
    """The colour of each physical seat unless a new game chooses others."""
    settle_s: float = 0.5
    """How long a lifted last pearl (or an emptied Pyramidos target) must stay so before it
    counts as taken back (knocked off): a bump lifts readings only for a moment."""
    together_s: float = 0.25
    """A second new pearl or ball this soon after a move is "placed together" with it: a
    mismatch, not the next player's move."""
    sweep_step_s: float = 0.12
    sweep_s: float = 30.0
    """How long the winner's sweep runs before a calm picture (and no more CPU)."""
    led_walk_step_s: float = 0.3
    led_test_s: float = 300.0
    """An LED test stops by itself after this long."""
    computer_budget_s: float | None = None
    """Seconds a computer seat may think; None: its level's own budget."""
    hint_budget_s: float = 1.0
    chooser: Chooser | None = None
    """The computer seat's chooser; None uses ``controller.bot.choose_move``."""
    hinter: Hinter | None = None
    """The hint finder; None uses ``controller.bot.hint``."""
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        for name in ("settle_s", "together_s", "sweep_s", "led_test_s"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        for name in ("sweep_step_s", "led_walk_step_s", "computer_budget_s", "hint_budget_s"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive")
        if len(self.seat_colours) < 4:
            raise ValueError("seat_colours needs a colour for each of the four seats")
        check_distinct(self.seat_colours)


# -- owner-thread messages -----------------------------------------------------------------


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
class _Answer:
    """A computer move or hint, tagged with the position it was computed for."""

    kind: str  # "computer" or "hint"
    token: tuple[int, int]
    cell: str | None
    error: str | None


_STOP: Final = object()


@dataclass(frozen=True, slots=True)
class _Hold:
    """A decision that waits for the board to stay as it is for ``settle_s``."""

    action: str  # "takeback", "shift" or "leave"
    key: frozenset[str]
    deadline: float
    cell: str | None = None
    """The new cell of a shifted pearl."""


@dataclass(slots=True)
class _LedTestState:
    led: str | None
    colour: Colour
    step: int
    next_step: float | None
    until: float


_Setup = tuple[
    str, tuple[Player, ...], perlen.PerlenOptions | pyramidos.PyramidosOptions, dict[str, Any]
]
"""What a checked NewGame gives: game, players, options, options as stored."""


def _lazy_bot() -> Any:
    """``controller.bot`` when it is installed, else None (imported only when needed)."""
    try:
        from controller import bot
    except ModuleNotFoundError as exc:
        if exc.name != "controller.bot":
            raise
        return None
    # The package may be there before its entry points are (it is being written).
    return bot if hasattr(bot, "choose_move") and hasattr(bot, "hint") else None


def _join(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# -- the Table -----------------------------------------------------------------------------


class Table:
    """The referee. Build it with a board, its channel map and a store; :meth:`start` it."""

    def __init__(
        self,
        board: Board,
        channel_map: ChannelMap,
        store: Store,
        settings: TableSettings | None = None,
    ) -> None:
        if channel_map.led_count > board.leds:
            raise ValueError(
                f"the channel map names {channel_map.led_count} LEDs, the board has {board.leds}"
            )
        self.board = board
        self.channel_map = channel_map
        self.store = store
        self.settings = settings or TableSettings()
        self._clock = self.settings.clock
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._running = False
        self._subs_lock = threading.Lock()
        self._subs: list[Subscription] = []
        self._snapshot = idle_snapshot()
        self._worker: concurrent.futures.ThreadPoolExecutor | None = None
        # Owner-thread state (touched only by the Table's thread once started).
        self._session: Session | None = None
        self._names: frozenset[str] = frozenset()
        self._armed = False
        self._mismatches: tuple[Mismatch, ...] = ()
        self._hold: _Hold | None = None
        self._last_move_at = float("-inf")
        self._message = ""
        self._refusal = ""
        self._version = 0
        self._link: BoardStatus | None = None
        self._position = 0
        self._cancel = threading.Event()
        """Counts positions the game has been in; tags computer answers and hints."""
        self._computer_token: tuple[int, int] | None = None
        self._computer_move: str | None = None
        self._computer_failed = False
        self._thinking = False
        self._hint_token: tuple[int, int] | None = None
        self._hint: str | None = None
        self._sweep_frame: int | None = None
        self._sweep_next: float | None = None
        self._sweep_until = 0.0
        self._led_test: _LedTestState | None = None
        self._shown: LedFrame | None = None
        self._dirty = False
        self._replies: list[tuple[concurrent.futures.Future[Reply], Reply]] = []
        self._sensor_seq = 0

    # -- public API (any thread) -----------------------------------------------------------
    @property
    def snapshot(self) -> Snapshot:
        """The latest published snapshot."""
        return self._snapshot

    @property
    def running(self) -> bool:
        return self._running

    def start(self) -> None:
        """Resume an unfinished game from the store, start the owner thread and the board."""
        if self._thread is not None:
            raise RuntimeError("the table is already started")
        self._resume()
        self._running = True
        self._worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="pyramid-bot")
        self._thread = threading.Thread(target=self._run, name="pyramid-table", daemon=True)
        self._thread.start()
        self.board.start(self._on_board_frame, self._on_board_status)
        # The frame the board holds now is the first thing the Table compares with.
        self._queue.put(_Frame(self.board.read()))
        self._queue.put(_Status(self.board.status()))

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the owner thread and blank the LEDs (the board and store stay open)."""
        thread = self._thread
        if thread is None:
            return
        self._running = False
        self._cancel.set()
        self._queue.put(_STOP)
        if thread is not threading.current_thread():
            thread.join(timeout)
        # Commands that arrived too late get an answer rather than a wait for the timeout.
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, _Request) and item.future.set_running_or_notify_cancel():
                item.future.set_result(Reply(False, "The table is not running."))
        if self._worker is not None:
            self._worker.shutdown(wait=False, cancel_futures=True)
        try:
            self.board.show(LedFrame.blank(self.board.leds))
        except Exception:  # a closed board cannot be blanked; nothing more to do
            log.exception("could not blank the LEDs")
        with self._subs_lock:
            subs = list(self._subs)
        for sub in subs:
            sub.close()

    def submit(self, command: Command, timeout: float = 5.0) -> Reply:
        """Hand ``command`` to the owner thread and wait for its reply (thread-safe)."""
        if not isinstance(command, COMMANDS):
            raise TypeError(f"not a Table command: {command!r}")
        if threading.current_thread() is self._thread:
            raise RuntimeError("submit() from the Table's own thread would wait for itself")
        if not self._running:
            return Reply(False, "The table is not running.")
        future: concurrent.futures.Future[Reply] = concurrent.futures.Future()
        self._queue.put(_Request(command, future))
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            return Reply(False, "The table did not answer in time.")

    def subscribe(self) -> Subscription:
        """A subscription whose first :meth:`~Subscription.get` returns the current snapshot."""
        sub = Subscription(self, self._snapshot)
        with self._subs_lock:
            self._subs.append(sub)
            # A snapshot published between creating and registering must not be missed.
            sub._offer(self._snapshot)
        return sub

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._subs_lock:
            if sub in self._subs:
                self._subs.remove(sub)

    # -- board callbacks (the adapter's thread: only queue) ---------------------------------
    def _on_board_frame(self, frame: SensorFrame) -> None:
        if self._running:
            self._queue.put(_Frame(frame))

    def _on_board_status(self, status: BoardStatus) -> None:
        if self._running:
            self._queue.put(_Status(status))

    # -- the owner thread ------------------------------------------------------------------
    def _run(self) -> None:
        self._dirty = True
        while True:
            deadline = self._next_deadline()
            try:
                if deadline is None:
                    item = self._queue.get()
                else:
                    item = self._queue.get(timeout=max(0.0, deadline - self._clock()))
            except queue.Empty:
                item = None
            if item is _STOP:
                return
            try:
                if item is not None:
                    self._handle(item)
                self._run_timers()
            except Exception as exc:  # the referee must keep refereeing
                log.exception("table: error while handling %r", item)
                self._message = f"Internal error: {exc}"
                self._dirty = True
            try:
                self._render()
            except Exception:
                log.exception("table: could not show the LEDs")
            if self._dirty:
                self._dirty = False
                self._publish()
            # Replies go out once the snapshot shows their effect, so a page that posts a
            # command and then reads the snapshot sees what it did.
            replies, self._replies = self._replies, []
            for future, reply in replies:
                future.set_result(reply)

    def _handle(self, item: object) -> None:
        if isinstance(item, _Frame):
            self._on_frame(item.frame)
        elif isinstance(item, _Request):
            if item.future.set_running_or_notify_cancel():
                try:
                    reply = self._command(item.command)
                except Exception as exc:
                    log.exception("table: command %r failed", item.command)
                    reply = Reply(False, f"Internal error: {exc}")
                self._replies.append((item.future, reply))
        elif isinstance(item, _Status):
            self._link = item.status
            self._dirty = True
        elif isinstance(item, _Answer):
            self._on_answer(item)

    def _next_deadline(self) -> float | None:
        times = []
        if self._hold is not None:
            times.append(self._hold.deadline)
        if self._sweep_next is not None:
            times.append(self._sweep_next)
        if self._led_test is not None:
            times.append(self._led_test.until)
            if self._led_test.next_step is not None:
                times.append(self._led_test.next_step)
        return min(times) if times else None

    def _run_timers(self) -> None:
        now = self._clock()
        if self._hold is not None and now >= self._hold.deadline:
            self._reconcile()
        if self._sweep_next is not None and now >= self._sweep_next:
            if now >= self._sweep_until:
                self._sweep_frame, self._sweep_next = None, None
            else:
                self._sweep_frame = (self._sweep_frame or 0) + 1
                self._sweep_next = now + self.settings.sweep_step_s
        test = self._led_test
        if test is not None:
            if now >= test.until:
                self._led_test = None
                self._dirty = True
            elif test.next_step is not None and now >= test.next_step:
                test.step += 1
                test.next_step = now + self.settings.led_walk_step_s

    # -- resume ----------------------------------------------------------------------------
    def _resume(self) -> None:
        stored = self.store.unfinished()
        if stored is None:
            return
        try:
            session = self._session_from_store(
                stored.id, stored.game, stored.players, stored.options, stored.children_help
            )
            game = replay_events(session.game, stored.events)
        except (GameError, PaletteError, perlen.OptionError, pyramidos.SetupError,
                ValueError) as exc:  # fmt: skip
            log.error("game %d cannot be resumed: %s", stored.id, exc)
            self.store.abort(stored.id, f"could not be resumed: {exc}")
            self._message = f"Game {stored.id} could not be resumed ({exc}); it was set aside."
            return
        self._session = session.with_game(game)
        self._armed = False  # the board must match the stored game before play goes on
        n = len(game.steps)
        self._message = (
            f"Game {stored.id} resumed after {n} move{'s' if n != 1 else ''}. "
            "Play goes on once the board matches."
        )
        log.info("resumed game %d (%d moves)", stored.id, n)

    def _session_from_store(
        self,
        game_id: int,
        kind: str,
        players: Sequence[PlayerRecord],
        options: Mapping[str, Any],
        children_help: bool,
    ) -> Session:
        people = []
        for p in players:
            try:
                colour = by_name(p.colour)
            except PaletteError:
                rgb = (int(p.hex[1:3], 16), int(p.hex[3:5], 16), int(p.hex[5:7], 16))
                colour = PaletteColour(p.colour, str(p.seat + 1), rgb, f"seat{p.seat + 1}")
            if colour.hex != p.hex:  # a configured colour that shares a palette name
                colour = dataclasses.replace(
                    colour, rgb=(int(p.hex[1:3], 16), int(p.hex[3:5], 16), int(p.hex[5:7], 16))
                )
            people.append(Player(p.number, p.seat, p.name, colour, p.computer))
        game: Game
        if kind == PERLEN:
            game = PerlenGame.new(perlen.PerlenOptions.from_dict(options))
        else:
            game = PyramidosGame.new(pyramidos.PyramidosOptions.from_dict(len(people), options))
        return Session(game_id, kind, tuple(people), _frozen(options), children_help, game)

    # -- sensors ---------------------------------------------------------------------------
    def _on_frame(self, frame: SensorFrame) -> None:
        self._sensor_seq = frame.seq
        # Toggle counts change with every frame; an adapter reports only link changes.
        self._link = self.board.status()
        names = self.channel_map.names_of(frame.active)
        rising = names - self._names
        self._names = names
        self._dirty = True
        self._reconcile()
        for button, command in (
            ("button:confirm", ConfirmBonus("button")),
            ("button:end_turn", EndTurn("button")),
            ("button:undo", Undo("button")),
        ):
            if button in rising:
                reply = self._command(command)
                if not reply.ok:
                    self._message = reply.message

    def _reconcile(self) -> None:
        """Compare the board with the game; play what the board says, or show a mismatch."""
        self._dirty = True
        session = self._session
        if session is None or session.game.finished:
            self._mismatches, self._hold, self._refusal = (), None, ""
            return
        if isinstance(session.game, PerlenGame):
            self._reconcile_perlen(session, session.game)
        else:
            self._reconcile_pyramidos(session, session.game)

    def _set_hold(self, action: str, key: frozenset[str], cell: str | None = None) -> None:
        hold = self._hold
        if hold is None or hold.action != action or hold.key != key or hold.cell != cell:
            self._hold = _Hold(action, key, self._clock() + self.settings.settle_s, cell)

    def _hold_due(self, action: str, key: frozenset[str], cell: str | None = None) -> bool:
        """True once the same held decision has waited ``settle_s`` (else it is (re)set)."""
        self._set_hold(action, key, cell)
        assert self._hold is not None
        return self._clock() >= self._hold.deadline

    def _reconcile_perlen(self, session: Session, game: PerlenGame) -> None:
        cells = self._names & _CELL_SET
        expected = game.expected
        extra = cells - expected
        missing = expected - cells
        self._refusal = ""
        if not extra and not missing:
            self._armed, self._mismatches, self._hold = True, (), None
            return
        if self._armed and not missing and len(extra) == 1:
            (cell,) = extra
            refusal = self._perlen_refusal(session, game, cell)
            if refusal is None:
                self._hold = None
                if self._play_perlen(session, game, cell):
                    return
                refusal = self._refusal
            self._refusal = refusal
        elif self._armed and game.can_take_back_by_lifting and missing == {game.steps[-1].cell}:
            last = game.steps[-1]
            if not extra:
                if self._hold_due("takeback", cells):
                    self._hold = None
                    self._take_back(session, game, "lift")
                    return
                self._show_mismatch(session, game, extra, missing, keep_armed=True)
                return
            if len(extra) == 1:
                (cell,) = extra
                if self._shift_allowed(session, last, cell):
                    if self._hold_due("shift", cells, cell):
                        self._hold = None
                        self._shift(session, game, cell)
                        return
                    self._show_mismatch(session, game, extra, missing, keep_armed=True)
                    return
        self._hold = None
        self._show_mismatch(session, game, extra, missing, keep_armed=False)

    def _show_mismatch(
        self,
        session: Session,
        game: PerlenGame | PyramidosGame,
        extra: frozenset[str],
        missing: frozenset[str],
        *,
        keep_armed: bool,
    ) -> None:
        if not keep_armed:
            self._armed = False
        owners = self._owners(game)
        wrong = [Mismatch(c, MismatchKind.EXTRA) for c in sorted(extra)]
        wrong += [Mismatch(c, MismatchKind.MISSING, owners.get(c)) for c in sorted(missing)]
        self._mismatches = tuple(wrong)

    @staticmethod
    def _owners(game: PerlenGame | PyramidosGame) -> dict[str, int | None]:
        if isinstance(game, PerlenGame):
            return {pos.short: colour for pos, colour in game.state.pearls() if pos.layer == 1}
        return dict(game.state.targets())

    def _perlen_refusal(self, session: Session, game: PerlenGame, cell: str) -> str | None:
        """Why a single new pearl on ``cell`` is not the mover's move, or None if it is."""
        state = game.state
        mover = state.to_move
        if mover is None:
            return "The pyramid is complete: no more pearls go on the base."
        if self._clock() - self._last_move_at < self.settings.together_s:
            return f"Two pearls at once: take the pearl off {cell} and place one at a time."
        if cell not in {p.short for p in perlen.legal_moves(state)}:
            try:
                perlen.play(state, cell)
            except perlen.IllegalMoveError as exc:
                return f"{cell} is not a legal cell: {exc}."
            return f"{cell} is not a legal cell."
        player = session.players[mover]
        if player.computer is not None and not self._computer_failed:
            if self._computer_move is None:
                return f"{player.name} (computer) is still choosing: wait for its cell to blink."
            if cell != self._computer_move:
                return f"{player.name} (computer) chose {self._computer_move}: put its pearl there."
        return None

    def _shift_allowed(self, session: Session, last: PerlenStep, cell: str) -> bool:
        if session.players[last.colour].computer is not None:
            return False  # the computer chose that cell; moving its pearl is a mismatch
        return cell in {p.short for p in perlen.legal_moves(last.before)}

    def _reconcile_pyramidos(self, session: Session, game: PyramidosGame) -> None:
        targets = self._names & _TARGET_SET
        expected = game.expected
        extra = targets - expected
        missing = expected - targets
        self._refusal = ""
        if not extra and not missing:
            self._armed, self._mismatches, self._hold = True, (), None
            return
        if not self._armed:
            self._hold = None
            self._show_mismatch(session, game, extra, missing, keep_armed=False)
            return
        if extra:
            refusal = self._landing_refusal(game, extra)
            if refusal is not None:
                self._refusal = refusal
                self._hold = None
                self._show_mismatch(session, game, extra, missing, keep_armed=False)
                return
            (target,) = extra
            if not self._commit_pyramidos(session, game, [f"land {target}"], "pearl"):
                self._hold = None
                self._show_mismatch(session, game, extra, missing, keep_armed=False)
                return
            self._last_move_at = self._clock()
            session = self._session_or_fail()
            assert isinstance(session.game, PyramidosGame)
            game = session.game
            if game.finished:
                self._mismatches, self._hold = (), None
                return
            missing = game.expected - targets
            if not missing:
                self._mismatches, self._hold = (), None
                return
        # Balls gone from their targets: knocked off, once they stay gone for settle_s.
        if self._hold_due("leave", missing):
            self._hold = None
            events = [f"leave {t}" for t in sorted(missing, key=TARGETS.index)]
            if self._commit_pyramidos(session, game, events, "pearl"):
                self._mismatches = ()
                return
        self._show_mismatch(session, game, frozenset(), missing, keep_armed=True)

    def _landing_refusal(self, game: PyramidosGame, extra: frozenset[str]) -> str | None:
        if len(extra) > 1:
            return f"Balls on {_join(sorted(extra))} at once: take off all but one."
        (target,) = extra
        if target == "top" and not game.state.top_open:
            return "The top opens only when all four base targets hold a ball: take the ball off."
        if self._clock() - self._last_move_at < self.settings.together_s:
            return f"Two balls at once: take the ball off {target}."
        return None

    def _session_or_fail(self) -> Session:
        if self._session is None:
            raise GameError("there is no game")
        return self._session

    # -- making changes (store first, then show) -------------------------------------------
    def _commit(
        self,
        session: Session,
        game: Game,
        events: list[tuple[str, dict[str, Any]]],
    ) -> bool:
        """Store ``events`` (and the result if ``game`` is finished), then adopt ``game``."""
        result: dict[str, Any] | None = None
        points: Sequence[int] = ()
        winners: Sequence[int] = ()
        if game.finished:
            result, points, winners = self._result(session, game)
        try:
            self.store.append(
                session.game_id, events, result=result, points=points, winners=winners
            )
        except (StoreError, OSError, sqlite3.Error) as exc:
            log.exception("could not store %s", events)
            self._refusal = f"Could not save ({exc}); the board waits."
            self._message = self._refusal
            return False
        self._session = session.with_game(game)
        self._new_position()
        if game.finished:
            self._finish_message(session, game)
            now = self._clock()
            self._sweep_frame, self._sweep_next = 0, now + self.settings.sweep_step_s
            self._sweep_until = now + self.settings.sweep_s
        return True

    def _result(
        self, session: Session, game: Game
    ) -> tuple[dict[str, Any], Sequence[int], Sequence[int]]:
        names = [p.name for p in session.players]
        if isinstance(game, PerlenGame):
            out = perlen.outcome(game.state)
            return (
                {
                    "visible": list(out.visible),
                    "totals": list(out.totals),
                    "scores": list(out.scores),
                    "winners": list(out.winners),
                    "winner_names": [names[w] for w in out.winners],
                },
                out.scores,
                out.winners,
            )
        pout = pyramidos.outcome(game.state)
        return (
            {
                "points": list(pout.points),
                "winners": list(pout.winners),
                "winner_names": [names[w] for w in pout.winners],
            },
            pout.points,
            pout.winners,
        )

    def _finish_message(self, session: Session, game: Game) -> None:
        _, points, winners = self._result(session, game)
        names = [session.players[w].name for w in winners]
        unit = "visible pearls" if isinstance(game, PerlenGame) else "points"
        if isinstance(game, PerlenGame) and session.options.get("score") == "all":
            unit = "pearls"
        best = points[winners[0]] if winners else 0
        if len(names) == 1:
            self._message = f"Game over: {names[0]} wins with {best} {unit}!"
        else:
            self._message = f"Game over: a shared win for {_join(names)} with {best} {unit}!"

    def _new_position(self) -> None:
        """The game moved on: old hints and computer answers no longer apply."""
        self._hint = None
        self._hint_token = None
        self._position += 1  # answers computed for earlier positions are now stale
        self._cancel.set()  # and a search still running for one may stop early
        self._cancel = threading.Event()
        self._consider_computer()

    def _play_perlen(self, session: Session, game: PerlenGame, cell: str) -> bool:
        mover = game.state.to_move
        assert mover is not None
        events: list[tuple[str, dict[str, Any]]] = [
            ("bonus", {"pos": str(b.position), "colour": b.colour, "by": "pearl"})
            for b in game.pending
        ]
        new = game.acknowledge_all().move(cell)
        events.append(("move", {"cell": cell, "colour": mover}))
        if not self._commit(session, new, events):
            return False
        self._last_move_at = self._clock()
        self._mismatches = ()
        if not new.finished:
            self._message = self._perlen_message(session, new, f"{session.players[mover].name} "
                                                 f"played {cell}.")  # fmt: skip
        return True

    def _perlen_message(self, session: Session, game: PerlenGame, lead: str) -> str:
        parts = [lead]
        if game.pending:
            b = game.pending[0]
            more = len(game.pending) - 1
            owner = session.players[b.colour]
            parts.append(
                f"Bonus pearl: {owner.name}'s {owner.colour.name} on {b.position} "
                f"(over {b.position.footprint_name})" + (f", then {more} more." if more else ".")
            )
        mover = game.state.to_move
        if mover is not None:
            parts.append(f"{session.players[mover].name} to move.")
        return " ".join(parts)

    def _take_back(self, session: Session, game: PerlenGame, by: str) -> bool:
        last = game.steps[-1]
        if not self._commit(session, game.undo(), [("undo", {"by": by, "what": last.cell})]):
            return False
        self._mismatches = ()
        name = session.players[last.colour].name
        self._message = f"Took back {name}'s pearl on {last.cell}. {name} to move."
        return True

    def _shift(self, session: Session, game: PerlenGame, cell: str) -> None:
        last = game.steps[-1]
        back = game.undo()
        new = back.move(cell)
        events: list[tuple[str, dict[str, Any]]] = [
            ("undo", {"by": "lift", "what": last.cell}),
            ("move", {"cell": cell, "colour": last.colour}),
        ]
        if self._commit(session, new, events):
            self._last_move_at = self._clock()
            self._mismatches = ()
            name = session.players[last.colour].name
            self._message = self._perlen_message(
                session, new, f"{name} moved the pearl from {last.cell} to {cell}."
            )

    def _commit_pyramidos(
        self, session: Session, game: PyramidosGame, texts: Sequence[str], by: str
    ) -> bool:
        events: list[tuple[str, dict[str, Any]]] = []
        new = game
        lines = []
        for text in texts:
            seat = new.state.to_move
            state = new.state
            new = new.event(text)
            words = text.split()
            name = session.players[seat].name
            if words[0] == "land":
                events.append(("land", {"target": words[1], "seat": seat}))
                lines.append(f"{name} landed on {words[1]}.")
            elif words[0] == "leave":
                owner = state.targets()[words[1]]
                events.append(("leave", {"target": words[1], "seat": owner}))
                lines.append(f"The ball on {words[1]} was knocked off.")
            else:
                events.append(("end", {"seat": seat, "by": by}))
                lines.append(f"{name} ended the turn.")
        if not self._commit(session, new, events):
            return False
        if not new.finished:
            nxt = session.players[new.state.to_move].name
            top = " The top is open!" if new.state.top_open and not game.state.top_open else ""
            self._message = " ".join(lines) + top + f" {nxt} to move."
        return True

    # -- computer player and hints ---------------------------------------------------------
    def _consider_computer(self) -> None:
        session = self._session
        self._thinking = False
        if session is None or not isinstance(session.game, PerlenGame):
            self._computer_token, self._computer_move = None, None
            return
        game = session.game
        mover = game.state.to_move
        token = (session.game_id, self._position)
        if game.finished or mover is None or session.players[mover].computer is None:
            self._computer_token, self._computer_move = None, None
            return
        if self._computer_token == token:
            self._thinking = self._computer_move is None and not self._computer_failed
            return
        self._computer_token, self._computer_move, self._computer_failed = token, None, False
        self._thinking = True
        level = session.players[mover].computer
        assert level is not None
        chooser = self._chooser()
        state = game.state
        seed = session.game_id * 1000 + len(game.steps)
        if chooser is None:
            self._computer_failed, self._thinking = True, False
            self._message = "The computer player is not installed: place its pearl yourself."
            return
        self._ask("computer", token, lambda: chooser(state, level, seed), state)

    def _chooser(self) -> Chooser | None:
        if self.settings.chooser is not None:
            return self.settings.chooser
        bot = _lazy_bot()
        if bot is None:
            return None
        budget = self.settings.computer_budget_s
        cancel = self._cancel

        def choose(state: perlen.PerlenState, level: str, seed: int | None) -> Position | str:
            cell: Position | str = bot.choose_move(
                state, level, seed=seed, budget=budget, cancel=cancel
            )
            return cell

        return choose

    def _hinter(self) -> Hinter | None:
        if self.settings.hinter is not None:
            return self.settings.hinter
        bot = _lazy_bot()
        if bot is None:
            return None
        budget = self.settings.hint_budget_s
        cancel = self._cancel

        def hint(state: perlen.PerlenState) -> Position | str:
            cell: Position | str = bot.hint(state, budget=budget, cancel=cancel)
            return cell

        return hint

    def _ask(
        self,
        kind: str,
        token: tuple[int, int],
        job: Callable[[], Position | str],
        state: perlen.PerlenState,
    ) -> None:
        worker = self._worker
        if worker is None:
            return

        def work() -> None:
            cell: str | None = None
            error: str | None = None
            try:
                answer = job()
                cell = answer.short if isinstance(answer, Position) else parse_cell(answer).short
                if cell not in {p.short for p in perlen.legal_moves(state)}:
                    error, cell = f"it chose {cell}, which is not a legal cell", None
            except Exception as exc:  # the computer's failure is reported, not fatal
                log.exception("computer player (%s) failed", kind)
                error = f"{type(exc).__name__}: {exc}"
            if self._running:
                self._queue.put(_Answer(kind, token, cell, error))

        with contextlib.suppress(RuntimeError):  # shut down while stopping
            worker.submit(work)

    def _on_answer(self, answer: _Answer) -> None:
        if answer.kind == "computer":
            if answer.token != self._computer_token:
                return  # computed for a position that has gone: dropped
            self._thinking = False
            if answer.cell is None:
                self._computer_failed = True
                self._message = (
                    f"The computer could not choose ({answer.error}): place its pearl on any "
                    "legal cell."
                )
            else:
                self._computer_move = answer.cell
                session = self._session_or_fail()
                assert isinstance(session.game, PerlenGame)
                mover = session.game.state.to_move
                if mover is not None:
                    name = session.players[mover].name
                    self._message = f"{name} (computer) chose {answer.cell}: put its pearl there."
        else:
            if answer.token != self._hint_token:
                return
            if answer.cell is None:
                self._hint_token = None
                self._message = f"No hint this time ({answer.error})."
            else:
                self._hint = answer.cell
                self._message = f"Hint: {answer.cell}."
        self._dirty = True
        self._reconcile()

    # -- commands --------------------------------------------------------------------------
    def _command(self, command: Command) -> Reply:
        self._dirty = True
        try:
            if isinstance(command, NewGame):
                reply = self._new_game(command)
            elif isinstance(command, ConfirmBonus):
                reply = self._confirm(command)
            elif isinstance(command, EndTurn):
                reply = self._end_turn(command)
            elif isinstance(command, Undo):
                reply = self._undo(command)
            elif isinstance(command, Abort):
                reply = self._abort()
            elif isinstance(command, Hint):
                reply = self._ask_hint()
            else:
                reply = self._led_test_command(command)
        except GameError as exc:
            reply = Reply(False, str(exc))
        if reply.ok:
            self._message = reply.message
        return reply

    def _new_game(self, command: NewGame) -> Reply:
        kind, players, options, opts_dict = self._check_new_game(command)
        game_id = self.store.create_game(
            kind, [p.record() for p in players], opts_dict, children_help=command.children_help
        )
        game: Game
        if isinstance(options, perlen.PerlenOptions):
            game = PerlenGame.new(options)
        else:
            game = PyramidosGame.new(options)
        old = self._session
        self._session = Session(
            game_id, kind, players, _frozen(opts_dict), bool(command.children_help), game
        )
        self._armed = False
        self._hold = None
        self._sweep_frame = self._sweep_next = None
        self._last_move_at = float("-inf")
        self._computer_token = None
        self._new_position()
        self._reconcile()
        first = players[game.state.to_move] if game.state.to_move is not None else players[0]
        aborted = f"Game {old.game_id} was aborted. " if old and not old.game.finished else ""
        who = _join([p.name for p in players])
        clear = " Clear the board first." if self._mismatches else ""
        return Reply(
            True,
            f"{aborted}Game {game_id}: {who}. {first.name} ({first.colour.name}) begins.{clear}",
        )

    def _check_new_game(self, command: NewGame) -> _Setup:
        kind = command.game
        if kind not in GAMES:
            raise GameError(f"Choose a game: {PERLEN!r} or {PYRAMIDOS!r}, not {kind!r}.")
        if kind == PERLEN and not self.channel_map.has_cells:
            raise GameError("This board has no cell sensors: it can only referee Pyramidos.")
        if kind == PYRAMIDOS and not self.channel_map.has_targets:
            raise GameError("This board has no target sensors: it cannot referee Pyramidos.")
        raw_names = command.players
        if not isinstance(raw_names, Sequence) or isinstance(raw_names, str):
            raise GameError("players must be a list of names, one per seat.")
        seats = len(raw_names)
        if kind == PERLEN and seats != perlen.COLOURS:
            raise GameError(f"Perlen-Pyramide is for exactly three players, not {seats}.")
        if kind == PYRAMIDOS and not pyramidos.MIN_SEATS <= seats <= pyramidos.MAX_SEATS:
            raise GameError(f"Pyramidos is for 2 to 4 players, not {seats}.")
        computer = self._check_computer(kind, command.computer, seats)
        names: list[str] = []
        for seat, raw in enumerate(raw_names):
            if not isinstance(raw, str):
                raise GameError(f"The name for seat {seat + 1} must be text.")
            name = " ".join(raw.split())
            if not name and seat in computer:
                name = f"Computer ({computer[seat]})"
            if not 1 <= len(name) <= MAX_NAME:
                raise GameError(f"The name for seat {seat + 1} must be 1 to {MAX_NAME} characters.")
            if name.casefold() in (n.casefold() for n in names):
                raise GameError(f"Two players are called {name!r}: names must differ.")
            names.append(name)
        if command.colours is None:
            colours = list(self.settings.seat_colours[:seats])
        else:
            if len(command.colours) != seats:
                raise GameError(
                    f"Give one colour per player ({seats}), not {len(command.colours)}."
                )
            try:
                colours = [by_name(c) for c in command.colours]
            except PaletteError as exc:
                raise GameError(str(exc)) from None
        try:
            check_distinct(colours)
        except PaletteError as exc:
            raise GameError(f"{exc}.") from None
        if not isinstance(command.options, Mapping):
            raise GameError("options must be an object of option names and values.")
        options: perlen.PerlenOptions | pyramidos.PyramidosOptions
        try:
            if kind == PERLEN:
                options = perlen.PerlenOptions.from_dict(command.options)
            else:
                options = pyramidos.PyramidosOptions.from_dict(seats, command.options)
        except (perlen.OptionError, pyramidos.SetupError) as exc:
            raise GameError(f"{exc}.") from None
        players: list[Player] = []
        if isinstance(options, perlen.PerlenOptions):
            for colour in range(perlen.COLOURS):
                seat = options.seat_of(colour)
                players.append(Player(colour, seat, names[seat], colours[seat], computer.get(seat)))
        else:
            for seat in range(seats):
                players.append(Player(seat, seat, names[seat], colours[seat]))
        return kind, tuple(players), options, options.to_dict()

    def _check_computer(self, kind: str, raw: Mapping[Any, Any], seats: int) -> dict[int, str]:
        if not isinstance(raw, Mapping):
            raise GameError("computer must map seats to computer levels.")
        if not raw:
            return {}
        if kind != PERLEN:
            raise GameError("Computer players play Perlen-Pyramide only.")
        levels: tuple[str, ...] = COMPUTER_LEVELS
        if self.settings.chooser is None:
            bot = _lazy_bot()
            if bot is None:
                raise GameError("Computer players are not installed (controller/bot.py).")
            levels = tuple(getattr(bot, "LEVELS", COMPUTER_LEVELS))
        out: dict[int, str] = {}
        for key, level in raw.items():
            seat = int(key) if isinstance(key, str) and key.isdigit() else key
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
                raise GameError(f"Computer seat {key!r} is not a seat (0 to {seats - 1}).")
            if level not in levels:
                raise GameError(
                    f"Computer level must be one of {', '.join(levels)}, not {level!r}."
                )
            out[seat] = level
        if len(out) == seats:
            raise GameError("At least one player must be a person to place the pearls.")
        return out

    def _confirm(self, command: ConfirmBonus) -> Reply:
        session = self._session_or_fail()
        game = session.game
        if not isinstance(game, PerlenGame) or not game.pending:
            raise GameError("No bonus pearl is waiting.")
        bonus = game.pending[0]
        event = (
            "bonus",
            {"pos": str(bonus.position), "colour": bonus.colour, "by": command.source},
        )
        new = game.acknowledge()
        if not self._commit(session, new, [event]):
            return Reply(False, self._refusal)
        self._reconcile()
        if new.finished:
            return Reply(True, self._message)
        return Reply(True, self._perlen_message(session, new, f"Bonus pearl on {bonus.position} "
                                                "placed."))  # fmt: skip

    def _end_turn(self, command: EndTurn) -> Reply:
        session = self._session_or_fail()
        game = session.game
        if not isinstance(game, PyramidosGame):
            raise GameError("Ending a turn is for Pyramidos; in Perlen-Pyramide place a pearl.")
        if game.finished:
            raise GameError("The game is over.")
        texts = []
        hold = self._hold
        if hold is not None and hold.action == "leave":
            # A deliberate press says the board has settled: the knocked-off balls count now.
            texts += [f"leave {t}" for t in sorted(hold.key, key=TARGETS.index)]
            self._hold = None
        elif self._mismatches:
            raise GameError("Fix the board first: " + self._mismatch_sentence(session) + ".")
        texts.append("end")
        if not self._commit_pyramidos(session, game, texts, command.source):
            return Reply(False, self._refusal)
        self._reconcile()
        return Reply(True, self._message)

    def _undo(self, command: Undo) -> Reply:
        session = self._session_or_fail()
        game = session.game
        if game.finished:
            raise GameError("The game is over; start a new one.")
        if not game.steps:
            raise GameError("There is nothing to take back.")
        self._hold = None
        if isinstance(game, PerlenGame):
            last = game.steps[-1]
            if not self._commit(
                session, game.undo(), [("undo", {"by": command.source, "what": last.cell})]
            ):
                return Reply(False, self._refusal)
            name = session.players[last.colour].name
            placed = [str(b.position) for b in last.bonuses]
            message = f"Took back {name}'s pearl on {last.cell}"
            if placed:
                message += f" and its bonus pearls ({_join(placed)}): take them off"
            message += f". {name} to move."
        else:
            text, before = game.history[-1]
            if not self._commit(
                session, game.undo(), [("undo", {"by": command.source, "what": text})]
            ):
                return Reply(False, self._refusal)
            message = f"Took back “{text}”. {session.players[before.to_move].name} to move."
        # The board still shows the move taken back: it must match again before play goes on.
        self._armed = False
        self._reconcile()
        return Reply(True, message)

    def _abort(self) -> Reply:
        session = self._session_or_fail()
        if not session.game.finished:
            self.store.abort(session.game_id, "aborted from the table")
        self._session = None
        self._mismatches, self._hold, self._refusal = (), None, ""
        self._sweep_frame = self._sweep_next = None
        self._new_position()
        if session.game.finished:
            return Reply(True, "Ready for a new game.")
        return Reply(True, f"Game {session.game_id} ended without a result.")

    def _ask_hint(self) -> Reply:
        session = self._session_or_fail()
        game = session.game
        if not isinstance(game, PerlenGame):
            raise GameError("Hints are for Perlen-Pyramide.")
        mover = game.state.to_move
        if game.finished or mover is None:
            raise GameError("The game is over.")
        if session.players[mover].computer is not None:
            raise GameError("It is the computer's turn.")
        hinter = self._hinter()
        if hinter is None:
            raise GameError("Hints need the computer player, which is not installed.")
        token = (session.game_id, self._position)
        if self._hint_token == token:
            return Reply(True, f"Hint: {self._hint}." if self._hint else "Still thinking…")
        self._hint_token, self._hint = token, None
        state = game.state
        self._ask("hint", token, lambda: hinter(state), state)
        return Reply(True, "Looking for a good cell…")

    def _led_test_command(self, command: LedTest) -> Reply:
        if command.colour is None:
            self._led_test = None
            return Reply(True, "LED test stopped.")
        colour = command.colour
        if (
            not isinstance(colour, Sequence)
            or len(colour) != 3
            or not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255
                       for c in colour)
        ):  # fmt: skip
            raise GameError("An LED colour is three whole numbers from 0 to 255.")
        rgb: Colour = (colour[0], colour[1], colour[2])
        now = self._clock()
        until = now + self.settings.led_test_s
        if command.led is None:
            self._led_test = _LedTestState(None, rgb, 0, now + self.settings.led_walk_step_s, until)
            return Reply(True, "LED test: every LED in turn.")
        if self.channel_map.led(command.led) is None:
            raise GameError(f"This board has no LED named {command.led!r}.")
        self._led_test = _LedTestState(command.led, rgb, 0, None, until)
        return Reply(True, f"LED test: {command.led}.")

    # -- output ----------------------------------------------------------------------------
    def _mismatch_sentence(self, session: Session) -> str:
        thing = "pearl" if session.kind == PERLEN else "ball"
        extra = [m.cell for m in self._mismatches if m.kind is MismatchKind.EXTRA]
        missing = [m for m in self._mismatches if m.kind is MismatchKind.MISSING]
        parts = []
        if extra:
            parts.append(f"take the {thing}{'s' if len(extra) > 1 else ''} off {_join(extra)}")
        for m in missing:
            if m.colour is not None:
                p = session.players[m.colour]
                parts.append(f"put {p.name}'s {p.colour.name} {thing} back on {m.cell}")
            else:
                parts.append(f"put the {thing} back on {m.cell}")
        return "; ".join(parts)

    def _hold_sentence(self, session: Session) -> str:
        """What the board is waiting to decide, while a lifted pearl or ball stays off."""
        hold = self._hold
        game = session.game
        if hold is None or not game.steps:
            return ""
        if isinstance(game, PerlenGame):
            last = game.steps[-1]
            name = session.players[last.colour].name
            if hold.action == "takeback":
                return (
                    f"Keep the pearl off {last.cell} to take back {name}'s move, "
                    "or put it back to keep it."
                )
            if hold.action == "shift":
                return f"Moving {name}'s pearl from {last.cell} to {hold.cell}…"
            return ""
        gone = _join(sorted(hold.key, key=TARGETS.index))
        return (
            f"No ball on {gone} any more: it counts as knocked off in a moment "
            "(put it back if it only wobbled)."
        )

    def _status(self) -> str:
        session = self._session
        if session is None:
            return "idle"
        game = session.game
        if game.finished:
            return "over"
        if self._mismatches:
            return "mismatch"
        if isinstance(game, PerlenGame) and game.pending:
            return "bonus"
        return "playing"

    def _picture(self) -> guidance.Picture:
        test = self._led_test
        if test is not None:
            names = sorted(
                self.channel_map.led_by_name, key=self.channel_map.led_by_name.__getitem__
            )
            if test.led is not None:
                return guidance.led_test([test.led], test.colour)
            return guidance.led_test(names, test.colour, step=test.step)
        session = self._session
        if session is None:
            return {}
        game = session.game
        lights = [p.light for p in session.players]
        options = GuidanceOptions(
            children_help=session.children_help,
            hint=self._hint,
            computer_move=self._computer_move,
            thinking=self._thinking,
            sweep_frame=self._sweep_frame,
        )
        if isinstance(game, PerlenGame):
            return guidance.guide(game.state, lights, game.pending, self._mismatches, options)
        return guidance.guide(game.state, lights, (), self._mismatches, options)

    def _render(self) -> None:
        frame = guidance.to_frame(self._picture(), self.channel_map, self.board.leds)
        if frame != self._shown:
            self.board.show(frame)
            self._shown = frame

    def _publish(self) -> None:
        self._version += 1
        snap = self._build_snapshot()
        self._snapshot = snap
        with self._subs_lock:
            subs = list(self._subs)
        for sub in subs:
            sub._offer(snap)

    def _build_snapshot(self) -> Snapshot:
        session = self._session
        link = self._link
        toggles = {}
        if link is not None:
            for channel, count in link.toggles.items():
                toggles[self.channel_map.name_by_channel.get(channel, f"channel {channel}")] = count
        test = self._led_test
        led_test = None if test is None else {
            "led": test.led,
            "colour": "#{:02x}{:02x}{:02x}".format(*test.colour),
        }  # fmt: skip
        status = self._status()
        message = self._message
        if status == "mismatch" and session is not None:
            held = self._hold_sentence(session)
            if held:
                message = held
            else:
                sentence = self._mismatch_sentence(session)
                message = (self._refusal + " " if self._refusal else "") + (
                    sentence[:1].upper() + sentence[1:] + "." if sentence else ""
                )
        base = idle_snapshot(self._version, message)
        common: dict[str, Any] = {
            "sensors": tuple(sorted(self._names)),
            "link": link,
            "toggles": _frozen(toggles),
            "led_test": led_test,
            "sensor_seq": self._sensor_seq,
            "at": time.time(),
        }
        if session is None:
            return dataclasses.replace(base, **common)
        game = session.game
        if isinstance(game, PerlenGame):
            state = game.state
            pending = {str(b.position) for b in game.pending}
            out = perlen.outcome(state)
            playing = status in ("playing", "bonus") and state.to_move is not None
            specific: dict[str, Any] = {
                "to_move": state.to_move,
                "pearls": tuple(
                    (str(pos), colour) for pos, colour in state.pearls() if str(pos) not in pending
                ),
                "pending": game.pending,
                "scores": _frozen(
                    {"visible": out.visible, "totals": out.totals, "scores": out.scores}
                ),
                "pools_left": state.pools_left(),
                "over": out.over,
                "winners": out.winners if game.finished else (),
                "legal": tuple(p.short for p in perlen.legal_moves(state)) if playing else (),
                "last_move": game.steps[-1].cell if game.steps else None,
            }
        else:
            pstate = game.state
            pout = pyramidos.outcome(pstate)
            specific = {
                "to_move": None if pstate.over else pstate.to_move,
                "scores": _frozen({"points": pout.points}),
                "targets": _frozen(pstate.targets()),
                "top_open": pstate.top_open,
                "over": pout.over,
                "winners": pout.winners,
                "last_move": next(
                    (t.split()[1] for t, _ in reversed(game.history) if t.startswith("land")),
                    None,
                ),
            }
        return dataclasses.replace(
            base,
            game=session.kind,
            game_id=session.game_id,
            status=status,
            players=session.players,
            mismatches=self._mismatches,
            hint=self._hint,
            computer_move=self._computer_move,
            thinking=self._thinking,
            moves=len(game.steps),
            options=session.options,
            children_help=session.children_help,
            can_undo=bool(game.steps) and not game.finished,
            **common,
            **specific,
        )


__all__ = [
    "COMPUTER_LEVELS",
    "Abort",
    "ConfirmBonus",
    "EndTurn",
    "GameError",
    "Hint",
    "LedTest",
    "NewGame",
    "PerlenGame",
    "Player",
    "PyramidosGame",
    "Reply",
    "Snapshot",
    "Subscription",
    "Table",
    "TableSettings",
    "Undo",
]

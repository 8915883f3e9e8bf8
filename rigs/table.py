"""A real Table on a SimBoard and a real SQLite store, driven as players and a page would.

The Table runs on its own thread, as in ``pyramid run``; only time is the test's: with
a :class:`VirtualClock` (the default) the Table's timers (take-back holds, the sweep,
the LED walk) move only when :meth:`Harness.settle` moves the clock, so nothing sleeps
for them. ``clock=SystemClock()`` runs on real time (the SIGKILL test's process does).
The one thing these tests wait for is the Table's thread, through :func:`wait_until`.
"""

from __future__ import annotations

import abc
import dataclasses
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Self, TypeVar

from controller.clock import Clock, SystemClock
from controller.games.registry import GAMES
from controller.hardware.channels import ChannelMap
from controller.hardware.port import Board, Led
from controller.hardware.sim import SimBoard
from controller.referee.commands import Command
from controller.referee.messages import english
from controller.referee.snapshot import Snapshot
from controller.referee.state import RefereeConfig, Reply
from controller.store import Store
from controller.table import Table, TableSettings
from rigs.contacts import ContactBank
from rigs.pins import mock_pins
from rigs.poll import wait_until

if TYPE_CHECKING:
    from controller.hardware.gpio import GpioBoard


class VirtualClock:
    """Time that moves only when a test moves it; the Table sleeps until it is woken."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._lock = threading.Lock()
        self.tables: list[Table] = []

    def now(self) -> float:
        with self._lock:
            return self._now

    def timeout(self, deadline: float | None) -> float | None:
        return None  # the Table waits for its queue; advance() wakes it

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds
        for table in self.tables:
            table.wake()


BoardT = TypeVar("BoardT", bound=Board)


class BoardHarness(abc.ABC, Generic[BoardT]):
    """A board made by :meth:`_make_board`, a store at ``path`` and a Table over them;
    :class:`Harness` on a SimBoard, :class:`GpioHarness` on the gpio adapter."""

    def __init__(
        self,
        path: Path,
        settings: TableSettings | None = None,
        channel_map: ChannelMap | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.cmap = channel_map or ChannelMap.default()
        self.board = self._make_board()
        self.path = path
        self.store = Store(path)
        self.clock = clock or VirtualClock()
        settings = dataclasses.replace(settings or TableSettings(games=GAMES), clock=self.clock)
        self.table = Table(self.board, self.cmap, self.store, settings)
        if isinstance(self.clock, VirtualClock):
            self.clock.tables.append(self.table)

    @abc.abstractmethod
    def _make_board(self) -> BoardT: ...

    def start(self) -> Self:
        self.table.start()
        self.wait(lambda s: s.link is not None and s.sensor_seq >= self.board.read().seq)
        return self

    def stop(self) -> None:
        self.table.stop()
        self.store.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what the table shows ---------------------------------------------------------------
    @property
    def snap(self) -> Snapshot:
        return self.table.snapshot

    def wait(self, predicate: Callable[[Snapshot], bool], timeout: float = 5.0) -> Snapshot:
        """The first published snapshot that satisfies ``predicate``."""
        return wait_until(
            lambda: self.snap if predicate(self.snap) else None,
            timeout,
            what=lambda: self.snap.to_json(),
        )

    def said(self) -> str:
        snap = self.snap
        return " ".join(english(m) for m in (*snap.note, *snap.prompt))

    @property
    def lit(self) -> dict[str, Led]:
        """The lit LEDs of the board's current frame, by name."""
        frame = self.board.led_frame
        return {
            name: frame.leds[index]
            for name, index in self.cmap.led_by_name.items()
            if index < len(frame) and frame.leds[index].lit
        }

    # -- what players do --------------------------------------------------------------------
    @abc.abstractmethod
    def set_names(self, names: Iterable[str]) -> Snapshot:
        """Make exactly ``names`` active and wait until the Table has handled the frame."""

    @abc.abstractmethod
    def active(self) -> set[str]:
        """The names of the sensors that are active now."""

    def put(self, *names: str) -> Snapshot:
        return self.set_names(self.active() | set(names))

    def lift(self, *names: str) -> Snapshot:
        return self.set_names(self.active() - set(names))

    def press(self, button: str) -> Snapshot:
        self.put(button)
        return self.lift(button)

    def do(self, command: Command) -> Reply:
        return self.table.submit(command)

    submit = do

    @property
    def rules(self) -> RefereeConfig:
        return self.table.settings.rules

    def settle(self, seconds: float) -> Snapshot:
        """Let ``seconds`` pass with the board as it is (virtual: at once)."""
        if isinstance(self.clock, VirtualClock):
            self.clock.advance(seconds)
        else:
            threading.Event().wait(seconds)
        self.table.flush()
        if not isinstance(self.clock, VirtualClock):
            # A decision made on the Table's own timer: wait for it to be published.
            self.table.flush()
        return self.snap


class Harness(BoardHarness[SimBoard]):
    """A SimBoard, a store at ``path`` and a Table over them."""

    def _make_board(self) -> SimBoard:
        return SimBoard(self.cmap.channel_count, self.cmap.led_count)

    def set_names(self, names: Iterable[str]) -> Snapshot:
        frame = self.board.set_active(self.cmap.channel(n) for n in names)
        seq = self.board.read().seq if frame is None else frame.seq
        return self.wait(lambda s: s.sensor_seq >= seq)

    def active(self) -> set[str]:
        return set(self.cmap.names_of(self.board.read().active))


def fast_rules(settle_s: float = 0.05, together_s: float = 0.0) -> TableSettings:
    """Settings for a Table on real time with short holds (the logic is the same)."""
    rules = RefereeConfig(settle_s=settle_s, together_s=together_s, sweep_s=0.3, sweep_step_s=0.05)
    return TableSettings(rules=rules, clock=SystemClock(), games=GAMES)


class GpioHarness(BoardHarness["GpioBoard"]):
    """The same on the gpio adapter: a diode matrix of reed switches on gpiozero mock pins
    (the default 6×6 wiring) and an APA102 chain on SPI that decodes what the Pi sends.

    Sensors change by closing switches; the board's own scan thread debounces them, on
    real time (the scan thread reads the real clock), so the Table runs on real time too.
    """

    def __init__(
        self, path: Path, settings: TableSettings | None = None, contacts: ContactBank | None = None
    ) -> None:
        self._contacts = contacts
        super().__init__(path, settings or fast_rules(), clock=SystemClock())

    def _make_board(self) -> GpioBoard:
        # The gpio adapter and the wiring rigs, imported only when a gpio harness is made.
        from controller.config import GpioConfig, LedConfig
        from controller.hardware.gpio import GpioBoard
        from rigs.circuits import Apa102Strip, DiodeMatrix

        gpio = GpioConfig()
        # gpiozero's SPI (software, on mock pins) asks Device.pin_factory: set it, and put
        # it back when the harness stops.
        self._pins = mock_pins()
        self.factory = self._pins.__enter__()
        self.matrix = DiodeMatrix(self.factory, gpio.rows, gpio.cols, contacts=self._contacts)
        self.strip = Apa102Strip(self.factory, self.cmap.led_count)
        leds = LedConfig(brightness=1.0)
        return GpioBoard(gpio, leds, self.cmap.led_count, pin_factory=self.factory)

    def stop(self) -> None:
        try:
            super().stop()
            self.board.close()
        finally:
            self._pins.__exit__(None, None, None)

    def set_names(self, names: Iterable[str]) -> Snapshot:
        want = tuple(sorted(set(names)))
        self.matrix.switches.set_closed(self.cmap.channel(n) for n in want)
        return self.wait(lambda s: s.sensors == want)

    def active(self) -> set[str]:
        return set(self.cmap.names_of(self.matrix.contacts.closed_set()))

    def strip_lit(self) -> dict[str, tuple[int, int, int]]:
        """What the LED chain shows now (steady LEDs; blinking ones may be dark), by name."""
        colours = self.strip.colours()
        return {n: colours[i] for n, i in self.cmap.led_by_name.items() if any(colours[i])}

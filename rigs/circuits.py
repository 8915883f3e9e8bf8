"""Circuits for gpiozero's ``MockFactory`` and the lgpio model: lines that behave like wires.

(Longer than most modules: four circuits, each short, that share the wiring to either
factory (:class:`_Circuit`); the contact banks they read are already apart in
:mod:`rigs.contacts`.)

Each circuit reads its sensors from a contact bank (:mod:`~rigs.
contacts`, re-exported here):

- :class:`Switches` — contacts that open and close when a test says so, instantly;
- :class:`BouncingContacts` — contacts over a clock (real or :class:`VirtualClock`) whose
  every edge chatters for a few milliseconds, with optional short glitches.

Circuits are wired either to gpiozero's ``MockFactory`` (they make the pins they drive,
so build them before the board asks for its pins) or to the
:class:`~rigs.lgpio_model.LgpioModel` under gpiozero's real
``LGPIOFactory`` (they are attached to its lines): the same circuit, the same faults.

- :class:`DiodeMatrix` — reed switches at row/column crossings, each with a diode from the
  column to the row. A column pin reads low when a closed switch joins it to a row that
  is pulled low, or when closed switches to released rows that are pulled *down* drag
  it under the input-high threshold (the reset pulls of a Pi's GPIO 9–27). A switch
  listed in ``missing_diodes`` conducts both ways, so current can flow backwards through
  it and ghost cells appear, as on a real board; a row driven high that meets a low one
  through such a switch is recorded in ``shorts``; a switch in ``reversed_diodes`` never
  reads (its sneak path has three diode drops, about 0.8–0.9 V, at the Pi's input-low
  limit: taken as not reading); a column in ``cut_columns`` has its wire cut at the
  header.
- :class:`MuxBank` — CD74HC4067 multiplexers: the select lines choose which sensor drives
  each signal pin; EN high disconnects them all.
- :class:`DirectWiring` — one sensor per pin; edges fire the pin's ``when_changed``.
- :class:`Apa102Strip` — an SPI device that decodes APA102/SK9822 bytes back into LEDs.

>>> from gpiozero.pins.mock import MockFactory
>>> factory = MockFactory()
>>> matrix = DiodeMatrix(factory, rows=(4, 17), cols=(13, 19))
>>> matrix.switches.press(matrix.switch(1, 0))     # row 1, column 0
>>> row, col = factory.pin(17), factory.pin(13)
>>> col.input_with_pull("up"); row.output_with_state(False)
>>> col.state
False
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from gpiozero.pins import PinInfo
from gpiozero.pins.mock import (
    MockFactory,
    MockPin,
    MockSPIClockPin,
    MockSPIDevice,
    MockSPISelectPin,
)

from controller.hardware.apa102 import LEVELS, ORDERS
from controller.hardware.port import Colour
from hardware.electrical import BCM2711, Pads, Pull, column_volts
from rigs.contacts import (
    BouncingContacts,
    ContactBank,
    ContactListener,
    Switches,
    VirtualClock,
)
from rigs.lgpio_model import LgpioModel

__all__ = [
    "HISTORY",
    "Apa102Strip",
    "BouncingContacts",
    "CircuitPin",
    "ContactBank",
    "ContactListener",
    "DiodeMatrix",
    "DirectWiring",
    "Header",
    "MuxBank",
    "Pixel",
    "QuietPin",
    "Switches",
    "VirtualClock",
    "Wires",
    "on_model",
]

HISTORY = 256
"""State changes each mock pin remembers: enough to assert on, bounded for long runs."""


class _BoundedHistory(MockPin):
    """A MockPin that keeps only its last :data:`HISTORY` state changes."""

    def clear_states(self) -> None:
        super().clear_states()
        history = deque(self.states, maxlen=HISTORY)
        # gpiozero's list (mock.py:156) is only appended to (:86) and iterated: a bounded
        # deque serves as well, and a long run cannot grow it.
        self.states = history  # type: ignore[assignment]


class QuietPin(_BoundedHistory):
    """A plain mock pin with bounded history (SPI data lines, mux select lines)."""


# -- wires: how a circuit sees the Pi's lines --------------------------------------------------


class Wires(Protocol):
    """What a circuit asks of the header it is wired to."""

    def drive(self, gpio: int) -> bool | None:
        """The level the Pi drives on ``gpio``; None for an input or a released open drain."""
        ...

    def changed(self) -> None:
        """The circuit's outputs may have changed: inputs re-read, edges fire."""
        ...

    def pull(self, gpio: int) -> Pull:
        """The pull the Pi's pad puts on ``gpio`` now."""
        ...

    @property
    def pads(self) -> Pads:
        """The Pi's pads: thresholds and pull resistors."""
        ...


Header = MockFactory | LgpioModel
"""Where a circuit is wired: gpiozero's ``MockFactory`` (the circuit makes the pins it
drives) or the :class:`~rigs.lgpio_model.LgpioModel` under gpiozero's real
``LGPIOFactory`` (the circuit is attached to the model's lines)."""


class CircuitPin(_BoundedHistory):
    """A mock pin that, as an input, reads what its circuit drives (else its pull)."""

    def __init__(self, factory: MockFactory, info: PinInfo, circuit: _Circuit) -> None:
        super().__init__(factory, info)
        self.circuit = circuit

    def _get_state(self) -> bool:
        if self._function != "input":
            return bool(self._state)
        level = self.circuit.level(self._number)
        if level is None:  # nothing drives it: the pull decides (floating: as it last was)
            return (
                True if self._pull == "up" else False if self._pull == "down" else bool(self._state)
            )
        return level

    def refresh(self) -> None:
        """The circuit moved: record the new level and fire ``when_changed`` as lgpio would."""
        if self._function != "input":
            return
        level = self._get_state()
        if self._change_state(level):
            edges = ("both", "rising") if level else ("both", "falling")
            if self._edges in edges and self._when_changed is not None:
                self._call_when_changed()


class _MockWires:
    def __init__(self, pins: dict[int, MockPin]) -> None:
        self.pins = pins

    def drive(self, gpio: int) -> bool | None:
        pin = self.pins[gpio]
        return bool(pin._state) if pin._function == "output" else None

    def pull(self, gpio: int) -> Pull:
        pull = self.pins[gpio]._pull
        return "up" if pull == "up" else "down" if pull == "down" else "none"

    @property
    def pads(self) -> Pads:
        return BCM2711  # MockFactory's default board is a Pi 3B, whose pads are alike

    def changed(self) -> None:
        for pin in self.pins.values():
            if isinstance(pin, CircuitPin):
                pin.refresh()


class _Circuit:
    """Base of the circuits: wires itself to a :data:`Header`."""

    def _wire(self, on: Header, driven: Iterable[int], read: Iterable[int]) -> Wires:
        if isinstance(on, LgpioModel):
            on.attach(self)
            return on_model(on)
        pins: dict[int, MockPin] = {g: on.pin(g, pin_class=QuietPin) for g in driven}
        pins.update({g: on.pin(g, pin_class=CircuitPin, circuit=self) for g in read})
        for gpio, pin in pins.items():
            wanted = CircuitPin if gpio in set(read) else QuietPin
            if type(pin) is not wanted:
                raise ValueError(f"{pin!r} was made before the circuit; build circuits first")
        return _MockWires(pins)

    def level(self, gpio: int) -> bool | None:
        """The level this circuit drives on ``gpio`` (None: it leaves the line alone)."""
        raise NotImplementedError


class _ModelWires:
    def __init__(self, model: LgpioModel) -> None:
        self.model = model

    def drive(self, gpio: int) -> bool | None:
        return self.model.drive(gpio)

    def changed(self) -> None:
        self.model.inputs_changed()

    def pull(self, gpio: int) -> Pull:
        return self.model.pull(gpio)

    @property
    def pads(self) -> Pads:
        return self.model.board.pads


def on_model(model: LgpioModel) -> Wires:
    """The :class:`Wires` of an lgpio model's header."""
    return _ModelWires(model)


# -- the diode matrix -------------------------------------------------------------------------


class DiodeMatrix(_Circuit):
    """Reed switches with diodes at the crossings of ``rows`` and ``cols`` (BCM numbers).

    Each switch is in series with a diode whose cathode (band) faces the row, so current
    flows from a pulled-up column through a closed switch into a row held low. Switch
    ``r * len(cols) + c`` sits at row r, column c, in the order of the *wires* given
    here; a board configured with the rows in another order reads the wrong cells.
    A switch in ``missing_diodes`` conducts both ways (ghosts); a row driven *high* that
    meets a low one through such a switch is counted in ``shorts`` (two GPIOs fighting).
    ``reversed_diodes`` conduct from the row to the column only, so the switch never
    reads (the guide's "diode the wrong way round").

    A released row whose pad is pulled down (``Wires.pull``) draws current from every
    column it has a closed switch on; such a column reads low unless its pull-ups (the
    pad's, at its greatest resistance, and ``pull_up_ohms`` if the board has its own)
    keep it at the input-high threshold or above (:func:`~hardware.electrical.
    column_volts`, with the least pull-down: the worst case).
    """

    def __init__(
        self,
        on: Header,
        rows: Sequence[int],
        cols: Sequence[int],
        contacts: ContactBank | None = None,
        missing_diodes: Iterable[int] = (),
        reversed_diodes: Iterable[int] = (),
        pull_up_ohms: float | None = None,
        cut_columns: Iterable[int] = (),
    ) -> None:
        self.rows = tuple(rows)
        self.pull_up_ohms = pull_up_ohms
        """The board's own column pull-ups (None: none fitted, only the Pi's)."""
        self.cols = tuple(cols)
        size = len(self.rows) * len(self.cols)
        self.contacts: ContactBank = contacts if contacts is not None else Switches(size)
        if self.contacts.count < size:
            raise ValueError(f"{self.contacts.count} contacts for a {size}-switch matrix")
        self.missing_diodes = frozenset(missing_diodes)
        self.reversed_diodes = frozenset(reversed_diodes)
        self.cut_columns = frozenset(cut_columns)
        """Column indices whose wire is cut between the GPIO and its switches (a broken
        wire or a cold joint at the header): the GPIO reads only its pull-up, while the
        switches behind the cut still join each other (a sneak path runs on)."""
        self.shorts = 0
        """How often a row driven high met a low one through a switch without its diode."""
        self._col_index = {g: c for c, g in enumerate(self.cols)}
        self._wires = self._wire(on, self.rows, self.cols)
        self._cache_key: object = None
        self._cache: frozenset[int] = frozenset()
        if isinstance(self.contacts, Switches):
            self.contacts.add_listener(lambda _index, _closed: self._wires.changed())

    @property
    def switches(self) -> Switches:
        """The contacts, when they are plain :class:`Switches`."""
        if not isinstance(self.contacts, Switches):
            raise TypeError("this matrix reads bouncing contacts, not plain switches")
        return self.contacts

    def switch(self, row: int, col: int) -> int:
        """The switch index at wire ``row``, ``col``."""
        return row * len(self.cols) + col

    def level(self, gpio: int) -> bool | None:
        col = self._col_index.get(gpio)
        if col is None or col in self.cut_columns:
            return None
        return False if col in self.low_columns() else None

    def low_columns(self) -> frozenset[int]:
        """Columns joined to a low row right now."""
        wires = self._wires
        drive = tuple(wires.drive(g) for g in self.rows)
        pulls = tuple(wires.pull(g) for g in self.rows + self.cols)
        key = (drive, pulls, self.contacts.version())
        if key != self._cache_key:
            self._cache = self._solve(drive) | self._dragged_down(drive, pulls)
            self._cache_key = key
        return self._cache

    def _dragged_down(
        self, drive: tuple[bool | None, ...], pulls: tuple[Pull, ...]
    ) -> frozenset[int]:
        """Columns that closed switches to released, pulled-down rows hold under V_IH."""
        width = len(self.cols)
        down = {r for r, level in enumerate(drive) if level is None and pulls[r] == "down"}
        if not down:
            return frozenset()
        loads = [0] * width
        for i in self.contacts.closed_set():
            row, col = divmod(i, width)
            if row in down and i not in self.reversed_diodes:
                loads[col] += 1
        pads = self._wires.pads
        least, greatest = pads.pull_ohms
        low: set[int] = set()
        for col, count in enumerate(loads):
            ups = [greatest] if pulls[len(drive) + col] == "up" else []
            ups += [self.pull_up_ohms] if self.pull_up_ohms is not None else []
            if count and ups:
                up = 1 / sum(1 / r for r in ups)
                if column_volts(up, count, least) < pads.v_ih:
                    low.add(col)
        return frozenset(low)

    def _solve(self, drive: tuple[bool | None, ...]) -> frozenset[int]:
        width = len(self.cols)
        closed = [
            divmod(i, width)
            for i in self.contacts.closed_set()
            if i < len(drive) * width and i not in self.reversed_diodes
        ]
        low_rows = {r for r, level in enumerate(drive) if level is False}
        high_rows = {r for r, level in enumerate(drive) if level is True}
        low_cols: set[int] = set()
        frontier = list(low_rows)
        while frontier:
            row = frontier.pop()
            for r, c in closed:
                if r == row and c not in low_cols:
                    # Current flows from the pulled-up column through the diode into the
                    # low row (or through a bare switch): the column goes low.
                    low_cols.add(c)
                    # From a low column, only a switch without its diode conducts on to
                    # another row: backwards, the way a diode would block.
                    for r2, c2 in closed:
                        if c2 != c or r2 in low_rows:
                            continue
                        if self.switch(r2, c2) not in self.missing_diodes:
                            continue
                        if r2 in high_rows:
                            self.shorts += 1
                            continue
                        low_rows.add(r2)
                        frontier.append(r2)
        return frozenset(low_cols)


# -- multiplexers -------------------------------------------------------------------------------


class MuxBank(_Circuit):
    """CD74HC4067 multiplexers sharing ``select`` (S0..S3), one ``signals`` pin each.

    Sensor ``mux * 16 + address``. ``active="low"`` models open-drain hall switches such
    as the DRV5033 (3.3 V, omnipolar, continuous): active pulls low, inactive leaves the
    line to the SIG pull-up. EN high, or left floating (the breakouts pull it up),
    disconnects every mux.
    """

    def __init__(
        self,
        on: Header,
        select: Sequence[int],
        signals: Sequence[int],
        contacts: ContactBank | None = None,
        enable: int | None = None,
        active: str = "low",
    ) -> None:
        if len(select) != 4:
            raise ValueError("a CD74HC4067 has four select lines")
        self.select = tuple(select)
        self.signals = tuple(signals)
        self.enable = enable
        size = 16 * len(self.signals)
        self.contacts: ContactBank = contacts if contacts is not None else Switches(size)
        self.active_low = active == "low"
        self._mux_of = {g: m for m, g in enumerate(self.signals)}
        driven = self.select + ((enable,) if enable is not None else ())
        self._wires = self._wire(on, driven, self.signals)
        if isinstance(self.contacts, Switches):
            self.contacts.add_listener(lambda _index, _closed: self._wires.changed())

    @property
    def sensors(self) -> Switches:
        if not isinstance(self.contacts, Switches):
            raise TypeError("this mux bank reads bouncing contacts, not plain switches")
        return self.contacts

    def address(self) -> int:
        # An undriven select input floats; CMOS reads it as whatever: take low.
        return sum(int(bool(self._wires.drive(g))) << bit for bit, g in enumerate(self.select))

    def level(self, gpio: int) -> bool | None:
        mux = self._mux_of.get(gpio)
        if mux is None:
            return None
        return self.mux_level(mux)

    def mux_level(self, mux: int) -> bool | None:
        """What drives mux ``mux``'s signal pin: a level, or None when nothing does."""
        if self.enable is not None and self._wires.drive(self.enable) is not False:
            return None  # EN high (or left floating, and pulled up on the board): all off
        active = self.contacts.closed(mux * 16 + self.address())
        if self.active_low:
            return False if active else None
        return active


# -- direct wiring ----------------------------------------------------------------------------


class DirectWiring(_Circuit):
    """One sensor per GPIO. ``active="low"``: a reed switch or open-drain hall to ground."""

    def __init__(
        self,
        on: Header,
        pins: Sequence[int],
        contacts: ContactBank | None = None,
        active: str = "low",
    ) -> None:
        self.pins = tuple(pins)
        self.contacts: ContactBank = contacts if contacts is not None else Switches(len(pins))
        self.active_low = active == "low"
        self._index = {g: i for i, g in enumerate(self.pins)}
        self._wires = self._wire(on, (), self.pins)
        if isinstance(self.contacts, Switches):
            self.contacts.add_listener(lambda _index, _closed: self._wires.changed())

    @property
    def switches(self) -> Switches:
        if not isinstance(self.contacts, Switches):
            raise TypeError("this wiring reads bouncing contacts, not plain switches")
        return self.contacts

    def level(self, gpio: int) -> bool | None:
        index = self._index.get(gpio)
        if index is None or not self.contacts.closed(index):
            return None  # an open reed switch leaves the line to the pull resistor
        return not self.active_low


# -- APA102 decoding ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pixel:
    """One decoded LED: the 5-bit global brightness and the three colour bytes."""

    level: int = 0
    red: int = 0
    green: int = 0
    blue: int = 0

    @property
    def apparent(self) -> Colour:
        """The colour as seen: each byte times level/31 (compare with ``apa102.apparent``)."""
        if self.level == 0:
            return (0, 0, 0)
        return (
            round(self.red * self.level / LEVELS),
            round(self.green * self.level / LEVELS),
            round(self.blue * self.level / LEVELS),
        )


class _QuietClockPin(_BoundedHistory, MockSPIClockPin):
    pass


class _QuietSelectPin(_BoundedHistory, MockSPISelectPin):
    pass


class Apa102Strip(MockSPIDevice):
    """A chain of ``count`` APA102 LEDs on the SPI pins, decoding what the Pi sends.

    It reads the byte stream as the chips do: 32 zero bits start a frame; then each LED
    takes the next 32-bit word that starts with ``0b111``; further bytes pass out of the
    end of the chain. ``pixels`` is what every LED shows now; ``pictures`` holds each
    complete update (every LED written), oldest first.
    """

    def __init__(
        self,
        on: Header,
        count: int,
        *,
        clock: int = 11,
        mosi: int = 10,
        select: int = 8,
        order: str = "bgr",
    ) -> None:
        if order not in ORDERS:
            raise ValueError(f"order must be one of {ORDERS}")
        if isinstance(on, LgpioModel):
            # The kernel's SPI0: the bytes arrive whole through /dev/spidev0.<device>.
            on.attach_spi(0, 1 if select == 7 else 0, self.receive)
        else:
            # Make the pins with bounded history before MockSPIDevice asks for them.
            on.pin(clock, pin_class=_QuietClockPin)
            on.pin(mosi, pin_class=QuietPin)
            on.pin(select, pin_class=_QuietSelectPin)
            super().__init__(clock, mosi, None, select, pin_factory=on)
        self.count = count
        self.order = order
        self.pixels: list[Pixel] = [Pixel()] * count
        self.pictures: deque[tuple[Pixel, ...]] = deque(maxlen=10_000)
        self.malformed = 0
        """LED frames that did not start with 0b111 (a wiring or timing fault)."""
        self._changed = threading.Condition()
        self._byte = 0
        self._bits = 0
        self._zeros = 0
        self._receiving = False
        self._index = 0
        self._frame: list[int] = []

    def receive(self, data: bytes) -> None:
        """Bytes as the kernel's SPI sends them (the lgpio model's ``spi_write``)."""
        for byte in data:
            self._on_byte(byte)

    def on_bit(self) -> None:
        bit = self.rx_buf[-1]
        self.rx_buf.clear()  # consume as we go: a long run must not grow the buffer
        self._byte = (self._byte << 1) | int(bool(bit))
        self._bits += 1
        if self._bits == 8:
            byte, self._byte, self._bits = self._byte, 0, 0
            self._on_byte(byte)

    def _on_byte(self, byte: int) -> None:
        if not self._frame and byte == 0:
            # Zero bytes between LED frames: 32 zero bits in a row are a start frame, from
            # which the first LED takes the next frame again (the latch and end frames
            # after an update are zeros too, and only restart the count).
            self._zeros += 1
            if self._zeros >= 4:
                self._receiving, self._index = True, 0
            return
        self._zeros = 0
        if not self._receiving:
            return  # no start frame yet, or the chain is full: the bytes pass out the end
        if not self._frame and byte & 0xE0 != 0xE0:
            self.malformed += 1
            self._receiving = False
            return
        self._frame.append(byte)
        if len(self._frame) < 4:
            return
        header, *data = self._frame
        self._frame = []
        values = dict(zip(self.order, data, strict=True))
        pixel = Pixel(header & LEVELS, values["r"], values["g"], values["b"])
        with self._changed:
            self.pixels[self._index] = pixel
            self._index += 1
            if self._index == self.count:
                self.pictures.append(tuple(self.pixels))
                self._receiving = False
                self._changed.notify_all()

    def colours(self) -> list[Colour]:
        """What each LED looks like now."""
        with self._changed:
            return [p.apparent for p in self.pixels]

    def wait_for(
        self, predicate: Callable[[list[Colour]], bool], timeout: float = 2.0
    ) -> list[Colour]:
        """Wait until a complete picture satisfies ``predicate``; return its colours."""
        with self._changed:
            ok = self._changed.wait_for(
                lambda: bool(self.pictures) and predicate([p.apparent for p in self.pictures[-1]]),
                timeout,
            )
            if not ok:
                last = [p.apparent for p in self.pictures[-1]] if self.pictures else None
                raise TimeoutError(f"no matching LED picture in {timeout} s; last: {last}")
            return [p.apparent for p in self.pictures[-1]]

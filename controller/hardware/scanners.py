"""The electrical layer of the gpio adapter: scanners that read every sensor once.

A scanner returns a raw bitmask (bit n = channel n, set when active). There are two ways
to the lines, chosen by the pin factory:

- **lgpio** (a Pi, gpiozero's ``LGPIOFactory``): the matrix and mux scanners claim their
  lines once, as two line groups on the factory's gpiochip handle, and then only write
  and read groups. gpiozero's own pins would re-request a line (close it and open it
  again in the kernel) every time a matrix row changes direction: 12 re-requests,
  6 mode queries, 6 writes and 36 reads per 6×6 scan, where the groups need 12 writes
  and 6 reads and claim nothing (``bench/gpio_scan.py`` counts them). The rows are
  *open-drain* outputs: written low they pull their switches low, written high they let
  go, so a missing diode still makes a ghost, never a short. Let go, a row keeps the
  pull its pad has, and a Pi's GPIO 9–27 come out of reset pulled *down*: a pulled-down
  row draws current through every closed switch on it and drags those columns towards
  the input-high threshold (ghosts in the other rows). So the rows are claimed with the
  pull-up on, and left so when the scanner closes.
- **gpiozero pins** (``MockFactory`` in tests, or any other factory): every line is a
  gpiozero pin; open drain is played by switching a row between output-low and input.

Direct wiring always uses gpiozero pins: its edges come from lgpio alerts, which work on
single lines only.
"""

from __future__ import annotations

import abc
import logging
import sys
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Final, Protocol, cast

from gpiozero.pins import Factory, Pin
from gpiozero.pins.pi import PiFactory

from controller.hardware.wiring import MUX_CHANNELS

if TYPE_CHECKING:
    from controller.config_schema import GpioConfig

log = logging.getLogger(__name__)

SET_OPEN_DRAIN: Final = 8
SET_PULL_UP: Final = 32
SET_PULL_DOWN: Final = 64
SET_PULL_NONE: Final = 128
"""lgpio's line flags (the same numbers in lgpio.py and the model)."""

GRAY_CODES: Final[tuple[int, ...]] = tuple(i ^ (i >> 1) for i in range(MUX_CHANNELS))
"""Mux addresses in Gray-code order: each step changes one select line (one pin write)."""


class LgpioApi(Protocol):
    """The part of the ``lgpio`` module the group scanners call (typed for mypy)."""

    def group_claim_input(self, handle: int, gpio: Sequence[int], lFlags: int = 0) -> int: ...

    def group_claim_output(
        self,
        handle: int,
        gpio: Sequence[int],
        levels: Sequence[int] = ...,
        lFlags: int = 0,
    ) -> int: ...

    def group_free(self, handle: int, gpio: int) -> int: ...

    def gpio_free(self, handle: int, gpio: int) -> int: ...

    def group_read(self, handle: int, gpio: int) -> list[int]: ...

    def group_write(
        self, handle: int, gpio: int, group_bits: int, group_mask: int = ...
    ) -> int: ...


def lgpio_of(factory: Factory) -> tuple[LgpioApi, int] | None:
    """``(the lgpio module, the gpiochip handle)`` of an ``LGPIOFactory``, else None.

    The module is the one gpiozero's lgpio pins use, so a model installed in its place
    (tests, the bench) is used here too; nothing is imported for other factories.
    """
    # gpiozero's lgpio pins are a module only a Pi (or a model of lgpio) can import: made
    # by gpiozero when it makes an LGPIOFactory, so none was made while it is not loaded.
    pins = sys.modules.get("gpiozero.pins.lgpio")
    if pins is None or not isinstance(factory, pins.LGPIOFactory):
        return None
    if factory._handle is None:
        raise RuntimeError(f"{type(factory).__name__} is closed (it has no gpiochip handle)")
    return cast(LgpioApi, pins.lgpio), factory._handle


def _settle(microseconds: float) -> None:
    # A busy wait: sleep() cannot wait a few microseconds, and this is a few at most.
    end = time.perf_counter() + microseconds / 1e6
    while time.perf_counter() < end:
        pass


class PinClaim:
    """Holds the factory reservations of one board, as gpiozero devices do for theirs.

    gpiozero closes every reserver when the interpreter exits; the claim passes that on
    to its board, which blanks the LEDs and lets the pins go.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.owner: weakref.WeakMethod[Callable[[], None]] | None = None

    def _conflicts_with(self, other: object) -> bool:
        return True

    def close(self) -> None:
        close = self.owner() if self.owner is not None else None
        if close is not None:
            close()

    def __repr__(self) -> str:
        return self.label


class Scanner(abc.ABC):
    """Reads every sensor once; bit n of :meth:`scan` is channel n, set when active."""

    capacity: int

    def __init__(
        self, factory: Factory, claim: PinClaim, gpios: Iterable[int], *, pins: bool = True
    ) -> None:
        self._factory = factory
        self._claim = claim
        self._gpios = tuple(gpios)
        factory.reserve_pins(claim, *self._gpios)
        self._pins: dict[int, Pin] = {}
        if pins:
            try:
                self._pins = {gpio: factory.pin(gpio) for gpio in self._gpios}
            except Exception:
                factory.release_pins(claim, *self._gpios)
                raise

    @abc.abstractmethod
    def scan(self) -> int: ...

    def edge_pins(self) -> tuple[Pin, ...]:
        """Pins whose edges may wake the scan thread (only direct wiring has such)."""
        return ()

    def close(self) -> None:
        """Leave every pin an input (harmless to whatever is wired), keeping its pull, and
        free it."""
        for pin in self._pins.values():
            try:
                pin.when_changed = None
                pin.function = "input"
            except Exception:  # a pin that cannot be reset must not keep others claimed
                log.exception("could not reset %r", pin)
        self._factory.release_pins(self._claim, *self._gpios)


class DirectScanner(Scanner):
    """One GPIO per sensor; channel = position in ``pins``."""

    def __init__(
        self, factory: Factory, claim: PinClaim, pins: tuple[int, ...], active: str = "low"
    ) -> None:
        super().__init__(factory, claim, pins)
        self.capacity = len(pins)
        self._active = active == "high"
        self._inputs = [self._pins[g] for g in pins]
        for pin in self._inputs:
            pin.input_with_pull("down" if self._active else "up")

    def scan(self) -> int:
        bits = 0
        active = self._active
        for channel, pin in enumerate(self._inputs):
            if bool(pin.state) == active:
                bits |= 1 << channel
        return bits

    def edge_pins(self) -> tuple[Pin, ...]:
        return tuple(self._inputs)


class MatrixScanner(Scanner):
    """Reed switches with one diode each, at the crossings of rows and columns (gpiozero pins).

    Each row in turn is pulled low (switched to output, low); the others are left as
    inputs, so they float instead of being driven high. With every diode in place that
    changes nothing; with one missing or reversed it keeps a ghost to a ghost instead of
    a short from one GPIO's high to another's low. Columns are read with pull-ups: a
    column reads low when a closed switch (through its diode) joins it to the low row.
    Channel = row * len(cols) + col.
    """

    def __init__(
        self,
        factory: Factory,
        claim: PinClaim,
        rows: tuple[int, ...],
        cols: tuple[int, ...],
        settle_us: float = 0.0,
    ) -> None:
        super().__init__(factory, claim, rows + cols)
        self.capacity = len(rows) * len(cols)
        self._rows = [self._pins[g] for g in rows]
        self._cols = [self._pins[g] for g in cols]
        self._settle_us = settle_us
        for row in self._rows:
            row.input_with_pull("up")  # never the reset pull-down (see the module's doc)
        for col in self._cols:
            col.input_with_pull("up")

    def scan(self) -> int:
        bits = 0
        width = len(self._cols)
        cols = self._cols
        settle = self._settle_us
        for r, row in enumerate(self._rows):
            row.output_with_state(False)
            if settle:
                _settle(settle)
            base = r * width
            for c, col in enumerate(cols):
                if not col.state:
                    bits |= 1 << (base + c)
            # Release before the next row is pulled low, so the columns this row held low
            # have that long to rise through their pull-ups.
            row.function = "input"
        return bits


class _GroupScanner(Scanner):
    """Base of the lgpio scanners: two line groups, claimed once, freed on close."""

    rest_flags = SET_PULL_NONE
    """How :meth:`close` leaves every line: an input with this bias (the pads keep it)."""

    def __init__(
        self, factory: Factory, claim: PinClaim, gpios: Iterable[int], lgpio: tuple[LgpioApi, int]
    ) -> None:
        super().__init__(factory, claim, gpios, pins=False)
        self._api, self._handle = lgpio
        self._groups: list[int] = []
        # A gpiozero pin made earlier in this process (an old board's) still holds its
        # line; the kernel would refuse the group ("GPIO busy"), so let it go first.
        held: set[int] = set()
        if isinstance(factory, PiFactory):  # LGPIOFactory is one
            held = {pin._number for pin in factory.pins.values()}
        for gpio in self._gpios:
            if gpio in held:
                try:
                    self._api.gpio_free(self._handle, gpio)
                except Exception:  # not claimed after all: nothing to let go
                    log.debug("GPIO %d was not held", gpio)

    def _claim_group(self, gpios: Sequence[int], output: bool, flags: int, high: bool) -> None:
        try:
            if output:
                self._api.group_claim_output(
                    self._handle, list(gpios), [int(high)] * len(gpios), flags
                )
            else:
                self._api.group_claim_input(self._handle, list(gpios), flags)
        except Exception:
            self.close()
            raise
        self._groups.append(gpios[0])

    def close(self) -> None:
        for leader in self._groups:
            try:
                self._api.group_free(self._handle, leader)
            except Exception:
                log.exception("could not free the line group led by GPIO %d", leader)
        self._groups = []
        try:
            # Leave every line an input with its resting pull, harmless to what is wired.
            self._api.group_claim_input(self._handle, list(self._gpios), self.rest_flags)
            self._api.group_free(self._handle, self._gpios[0])
        except Exception:
            log.exception("could not leave GPIO %s as inputs", self._gpios)
        self._factory.release_pins(self._claim, *self._gpios)


class LgpioMatrixScanner(_GroupScanner):
    """The diode matrix on lgpio: rows one open-drain output group, columns one input group.

    Per row: one group write pulls it low, one group read gives all its columns, one
    group write lets it go again before the next row is pulled (so the columns it held
    have that long to rise). Same channels as :class:`MatrixScanner`.

    The rows carry the pull-up (``SET_PULL_UP`` in the claim), and closing leaves rows and
    columns inputs pulled up: no current flows through any switch then, and the pads keep
    that bias for whatever reads the board next (``pyramid diag`` after the service).
    """

    rest_flags = SET_PULL_UP

    def __init__(
        self,
        factory: Factory,
        claim: PinClaim,
        rows: tuple[int, ...],
        cols: tuple[int, ...],
        settle_us: float,
        lgpio: tuple[LgpioApi, int],
    ) -> None:
        super().__init__(factory, claim, rows + cols, lgpio)
        self.capacity = len(rows) * len(cols)
        self._row_leader, self._col_leader = rows[0], cols[0]
        self._row_count, self._width = len(rows), len(cols)
        self._settle_us = settle_us
        self._claim_group(rows, True, SET_OPEN_DRAIN | SET_PULL_UP, high=True)  # all released
        self._claim_group(cols, False, SET_PULL_UP, high=False)

    def scan(self) -> int:
        bits = 0
        write, read = self._api.group_write, self._api.group_read
        handle, rows, cols = self._handle, self._row_leader, self._col_leader
        width, settle = self._width, self._settle_us
        all_cols = (1 << width) - 1
        for r in range(self._row_count):
            row = 1 << r
            write(handle, rows, 0, row)  # this row low, the others still let go
            if settle:
                _settle(settle)
            levels = read(handle, cols)[1]
            write(handle, rows, row, row)  # let it go (open drain: high floats)
            bits |= (~levels & all_cols) << (r * width)
        return bits


class MuxScanner(Scanner):
    """CD74HC4067 multiplexers: four shared select lines, one signal GPIO per mux.

    Channel = mux * 16 + address, where address is the S3..S0 value that connects the
    sensor to the mux's signal pin. The addresses are walked in Gray-code order so each
    step costs one pin write, not four.
    """

    def __init__(
        self,
        factory: Factory,
        claim: PinClaim,
        select: tuple[int, ...],
        signals: tuple[int, ...],
        enable: int | None = None,
        active: str = "low",
        settle_us: float = 0.0,
    ) -> None:
        if len(select) != 4:
            raise ValueError("a CD74HC4067 has four select lines S0–S3")
        extra = (enable,) if enable is not None else ()
        super().__init__(factory, claim, select + signals + extra)
        self.capacity = MUX_CHANNELS * len(signals)
        self._select = [self._pins[g] for g in select]
        self._signals = [self._pins[g] for g in signals]
        self._enable = self._pins[enable] if enable is not None else None
        self._active = active == "high"
        self._settle_us = settle_us
        for line in self._select:
            line.output_with_state(False)
        self._address = 0
        for signal in self._signals:
            signal.input_with_pull("down" if self._active else "up")
        if self._enable is not None:
            self._enable.output_with_state(False)  # EN is active low

    def scan(self) -> int:
        bits = 0
        address = self._address
        select = self._select
        signals = self._signals
        active = self._active
        settle = self._settle_us
        for code in GRAY_CODES:
            changed = code ^ address
            if changed:
                line = changed.bit_length() - 1  # Gray code: exactly one bit changed
                select[line].state = (code >> line) & 1
                address = code
            if settle:
                _settle(settle)
            for mux, signal in enumerate(signals):
                if bool(signal.state) == active:
                    bits |= 1 << (mux * MUX_CHANNELS + code)
        self._address = address
        return bits

    def close(self) -> None:
        if self._enable is not None:
            try:
                self._enable.state = 1  # disconnect the muxes before letting go
            except Exception:
                log.exception("could not disable the multiplexers")
        super().close()


class LgpioMuxScanner(_GroupScanner):
    """The multiplexers on lgpio: S0–S3 (and EN) one output group, the SIG pins one input
    group. Per address: one group write (one select line changes) and one group read."""

    def __init__(
        self,
        factory: Factory,
        claim: PinClaim,
        select: tuple[int, ...],
        signals: tuple[int, ...],
        enable: int | None,
        active: str,
        settle_us: float,
        lgpio: tuple[LgpioApi, int],
    ) -> None:
        if len(select) != 4:
            raise ValueError("a CD74HC4067 has four select lines S0–S3")
        outputs = select + ((enable,) if enable is not None else ())
        super().__init__(factory, claim, outputs + signals, lgpio)
        self.capacity = MUX_CHANNELS * len(signals)
        self._select_leader, self._signal_leader = select[0], signals[0]
        self._muxes = len(signals)
        self._active = active == "high"
        self._settle_us = settle_us
        self._has_enable = enable is not None
        self._address = 0
        # Select lines low (address 0) and EN low (the muxes on), both in one request.
        self._claim_group(outputs, True, 0, high=False)
        self._claim_group(signals, False, SET_PULL_DOWN if self._active else SET_PULL_UP, False)

    def scan(self) -> int:
        bits = 0
        write, read = self._api.group_write, self._api.group_read
        handle, select, signals = self._handle, self._select_leader, self._signal_leader
        address, settle, muxes = self._address, self._settle_us, self._muxes
        flip = 0 if self._active else (1 << muxes) - 1
        for code in GRAY_CODES:
            changed = code ^ address
            if changed:
                write(handle, select, code, changed)
                address = code
            if settle:
                _settle(settle)
            levels = read(handle, signals)[1] ^ flip  # bit m set: mux m's sensor is active
            mux = 0
            while levels:
                if levels & 1:
                    bits |= 1 << (mux * MUX_CHANNELS + code)
                levels >>= 1
                mux += 1
        self._address = address
        return bits

    def close(self) -> None:
        if self._has_enable and self._groups:
            try:
                self._api.group_write(self._handle, self._select_leader, 1 << 4, 1 << 4)
            except Exception:
                log.exception("could not disable the multiplexers")
        super().close()


def make_scanner(gpio: GpioConfig, factory: Factory, claim: PinClaim) -> Scanner:
    """The scanner for ``gpio.topology``, on lgpio's line groups where the factory has them."""
    settle = gpio.settle_us
    lgpio = lgpio_of(factory)
    if gpio.topology == "direct":
        return DirectScanner(factory, claim, gpio.pins, gpio.active)
    if gpio.topology == "matrix":
        if lgpio is not None:
            return LgpioMatrixScanner(factory, claim, gpio.rows, gpio.cols, settle, lgpio)
        return MatrixScanner(factory, claim, gpio.rows, gpio.cols, settle)
    if gpio.topology == "mux":
        if lgpio is not None:
            return LgpioMuxScanner(
                factory, claim, gpio.select, gpio.signals, gpio.enable, gpio.active, settle, lgpio
            )
        return MuxScanner(
            factory, claim, gpio.select, gpio.signals, gpio.enable, gpio.active, settle
        )
    raise ValueError(f"unknown topology {gpio.topology!r}")

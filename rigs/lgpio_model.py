"""A model of the ``lgpio`` module, for running gpiozero's real ``LGPIOFactory`` off a Pi.

(Longer than most modules: it stands in for one C module, lgpio, whose functions share
the handles, the Pi description and the call counts; the line bookkeeping under them is
already apart in :mod:`rigs.lgpio_lines`.)

gpiozero's ``MockFactory`` never runs its lgpio pin code, and its SPI is always
bit-banged, so what a Pi really does (a line re-requested on every direction change, a
hardware SPI that cannot be opened) is invisible to it. This module stands in for the
``lgpio`` C extension under the real ``gpiozero.pins.lgpio.LGPIOFactory``, written from
lgpio 0.2.2's documentation and its ``lgGpio.c``/``lgSPI.c`` (what the functions do, not
their code), and counts every call::

    model = LgpioModel()
    factory = lgpio_factory(model)            # the real LGPIOFactory, on this model
    matrix = DiodeMatrix(model, rows, cols)   # rigs.circuits
    board = GpioBoard(GpioConfig(), LedConfig(spi=None), 0, pin_factory=factory)
    model.calls.clear(); board.scan_once(); sum(model.calls.values())   # lgpio calls

What it models:

- the Pi it runs on (:class:`PiBoard`: :data:`PI4`, :data:`PI5`, :data:`PI5_KERNEL_6_1`):
  its board revision (which gpiozero reads), its ``/dev/gpiochip*`` devices with their
  kernel labels (a Pi 4's header is ``gpiochip0``, ``pinctrl-bcm2711``; a Pi 5's is the
  RP1's ``pinctrl-rp1``: ``gpiochip4`` up to kernel 6.6.45, ``gpiochip0`` since, with
  ``/dev/gpiochip4`` kept as a link to it); ``gpiochip_open`` gives ``handle | chip <<
  16`` for a device that exists, else "can not open gpiochip"; a gpiochip other than the
  header's opens, but the model has no lines there;
- pulls as the pads keep them (:mod:`~hardware.electrical`): after reset each
  header line has its chip's reset pull (BCM2711 and RP1: GPIO 0–8 up, 9–27 down); a
  request with a bias flag (pull-up, pull-down, none) sets it, one without leaves the pull
  as it was (the kernel's "as is"), and freeing a line leaves it too, until the next
  reboot. A released open-drain output and an input feel their pull, which circuits see
  (:meth:`LgpioModel.pull`): a pulled-down row loads the columns its closed crossings
  join it to;
- line requests as the kernel keeps them: each line belongs to at most one request; the
  first line of a group is its leader; claiming a line another request holds (a group
  member, a line of the kernel's such as SPI0's when SPI is on) fails "GPIO busy";
  a singleton claim in the other direction frees and re-requests the line (counted in
  ``requests``), a claim in the same direction does nothing (and changes no flags);
  ``gpio_free``/``group_free`` need the leader ("GPIO not the group leader") of a
  claimed line ("GPIO not allocated");
- line flags: pull-up, pull-down, none, open drain, active low; ``gpio_get_mode`` and
  ``gpio_get_line_info`` report a request's with lgpio's bits (kernel bits, and lgpio's
  own input/output/alert/group bits shifted by 8);
- levels: an output reads what was last written; an open-drain output written high, or
  an input, is not driven by the Pi, and reads what the attached circuits drive
  (:meth:`LgpioModel.attach`), else its pull (up high, down low, none: its last
  level); ``gpio_read``/``gpio_write`` on an unclaimed line claim it (as lgpio does);
  ``group_read``/``group_write`` on the leader, bit n = n-th line of the group;
- alerts: ``gpio_claim_alert`` and ``callback(handle, gpio, edge, func)``: when a circuit
  reports a change (:meth:`LgpioModel.inputs_changed`) every alert line whose level
  moved calls its callbacks with ``(chip, gpio, level, timestamp_ns)``;
- software PWM ``tx_pwm`` (0.1–10000 Hz, duty 0–100 %, frequency 0 stops it), each
  setting kept with its time in ``pwm[gpio]``;
- SPI: ``spi_open`` fails "can not open SPI device" unless ``/dev/spidev<port>.<ch>``
  is in ``spi_devices`` (SPI enabled and the user in the ``spi`` group); bytes written
  go to the device attached with :meth:`LgpioModel.attach_spi`.

What it does not model: timing (every call returns at once; PWM and alerts have no
latency, and callbacks run in the thread that changed the circuit, where lgpio uses its
own thread), notification pipes, I²C, serial, waves and servo pulses, debounce and
watchdog beyond recording them, and electrical faults other than what the attached
circuits compute.
"""

from __future__ import annotations

import threading
import time
import types
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final
from unittest import mock

from hardware.electrical import BCM2711, RP1, Pads, Pull
from rigs.lgpio_lines import (
    BAD_HANDLE,
    BAD_PWM_DUTY,
    BAD_PWM_FREQ,
    BAD_WRITE,
    BOTH_EDGES,
    CANNOT_OPEN_CHIP,
    ERRORS,
    FALLING_EDGE,
    GPIO_NOT_AN_OUTPUT,
    GROUP_ALL,
    INVALID_GROUP_ALERT,
    RISING_EDGE,
    SET_ACTIVE_LOW,
    SET_OPEN_DRAIN,
    SET_OPEN_SOURCE,
    SET_PULL_DOWN,
    SET_PULL_NONE,
    SET_PULL_UP,
    SPI_OPEN_FAILED,
    AlertFunc,
    Callback,
    Circuit,
    HeaderLines,
    error,
    fail,
)

if TYPE_CHECKING:  # importing it needs the lgpio module: install() provides the model's
    from gpiozero.pins.lgpio import LGPIOFactory

__all__ = [
    "ERRORS",
    "PI4",
    "PI5",
    "PI5_KERNEL_6_1",
    "Circuit",
    "LgpioModel",
    "PiBoard",
    "close_factory",
    "error",
    "install",
    "lgpio_factory",
]


@dataclass(frozen=True, slots=True)
class PiBoard:
    """The Pi under the model: what gpiozero and lgpio find on it."""

    name: str
    revision: int
    """The board revision code gpiozero reads from the device tree."""
    chips: dict[int, str]
    """``/dev/gpiochip<n>`` that exist, and the kernel's label of each (links included)."""
    links: dict[int, int]
    """``/dev/gpiochip<n>`` that are links to another chip (udev's compatibility names)."""
    header: int
    """The gpiochip whose lines are the 40-pin header's GPIO 0–27."""
    pads: Pads


PI4: Final = PiBoard(
    "Raspberry Pi 4B", 0xC03114, {0: "pinctrl-bcm2711", 1: "raspberrypi-exp-gpio"}, {}, 0, BCM2711
)
PI5: Final = PiBoard(
    "Raspberry Pi 5 (kernel 6.6.45 and later)",
    0xD04170,
    {0: "pinctrl-rp1", 4: "pinctrl-rp1", 10: "gpio-brcmstb@107d508500",
     11: "gpio-brcmstb@107d508520", 12: "gpio-brcmstb@107d517c00",
     13: "gpio-brcmstb@107d517c20"},
    {4: 0},
    0,
    RP1,
)  # fmt: skip
PI5_KERNEL_6_1: Final = PiBoard(
    "Raspberry Pi 5 (kernel 6.1)",
    0xD04170,
    {0: "gpio-brcmstb@107d508500", 1: "gpio-brcmstb@107d508520",
     2: "gpio-brcmstb@107d517c00", 3: "gpio-brcmstb@107d517c20", 4: "pinctrl-rp1"},
    {},
    4,
    RP1,
)  # fmt: skip
"""A Pi 5 on the kernels before 6.6.45, where the RP1 was the fifth gpiochip."""

PI4_REVISION: Final = PI4.revision
"""The board revision the model's factory reports by default: a Raspberry Pi 4B."""


SpiDevice = Callable[[bytes], None]


@dataclass
class _Spi:
    port: int
    channel: int
    baud: int
    flags: int
    written: list[int] = field(default_factory=list)


class LgpioModel(types.ModuleType):
    """One process's ``lgpio``: install it as the module (:func:`installed`) and call away.

    ``calls`` counts every call by function name; ``requests`` counts line requests (each
    claim that reached the kernel), so a scan that claims nothing shows 0 there.
    """

    error = error
    SET_ACTIVE_LOW, SET_OPEN_DRAIN, SET_OPEN_SOURCE = (
        SET_ACTIVE_LOW,
        SET_OPEN_DRAIN,
        SET_OPEN_SOURCE,
    )
    SET_PULL_UP, SET_PULL_DOWN, SET_PULL_NONE = SET_PULL_UP, SET_PULL_DOWN, SET_PULL_NONE
    RISING_EDGE, FALLING_EDGE, BOTH_EDGES = RISING_EDGE, FALLING_EDGE, BOTH_EDGES
    GROUP_ALL = GROUP_ALL
    exceptions = True

    def __init__(
        self,
        *,
        board: PiBoard = PI4,
        lines: int = 54,
        spi_devices: Iterable[str] = (),
        kernel_lines: Iterable[int] = (),
    ) -> None:
        super().__init__("lgpio", __doc__)
        self.board = board
        self.line_count = lines
        self.opened: list[str] = []
        """The label of every gpiochip opened, in order."""
        self.spi_devices = set(spi_devices)
        """Device nodes that open: e.g. ``{"/dev/spidev0.0"}`` once SPI0 is enabled."""
        self.calls: Counter[str] = Counter()
        self.pwm: dict[int, list[tuple[float, float, float]]] = {}
        """Per GPIO, every ``tx_pwm`` setting as ``(time.monotonic(), hz, duty %)``."""
        self.pwm_threads: set[str] = set()
        """Names of the threads that called ``tx_pwm`` (a tune must not play on the scan's)."""
        self.debounce: dict[int, int] = {}
        self.lines = HeaderLines(board.pads, lines, kernel_lines, on_free=self._pwm_stops)
        """The header's lines as the kernel keeps them (requests, pulls, levels, alerts)."""
        self._lock = self.lines.lock
        self._spi: dict[int, _Spi] = {}
        self._spi_devices: dict[tuple[int, int], SpiDevice] = {}
        self._next_spi = 0
        self._handles: set[int] = set()

    # -- the world around the chip (not lgpio's API) ----------------------------------------
    def attach(self, circuit: Circuit) -> None:
        """Wire ``circuit`` to the header: input lines read what it drives."""
        self.lines.attach(circuit)

    def attach_spi(self, port: int, channel: int, device: SpiDevice) -> None:
        """``device`` receives every byte string written to ``/dev/spidev<port>.<channel>``."""
        self._spi_devices[(port, channel)] = device

    def drive(self, gpio: int) -> bool | None:
        """The level the Pi drives on ``gpio``: None for an input or a released open drain."""
        return self.lines.drive(gpio)

    def pull(self, gpio: int) -> Pull:
        """The pull ``gpio``'s pad has now: ``up``, ``down`` or ``none``."""
        return self.lines.pull(gpio)

    def level(self, gpio: int) -> bool:
        """What the line is at: driven by the Pi, else by a circuit, else by its bias."""
        return self.lines.level(gpio)

    def claimed(self, gpio: int) -> bool:
        return self.lines.claimed(gpio)

    def inputs_changed(self) -> None:
        """A circuit changed what it drives: alert lines whose level moved call back."""
        self.lines.inputs_changed()

    @property
    def requests(self) -> int:
        """Line requests that reached the kernel (a scan that claims nothing adds none)."""
        return self.lines.requests

    @requests.setter
    def requests(self, count: int) -> None:
        self.lines.requests = count

    @property
    def pull_ohms(self) -> tuple[float, float]:
        """The pads' pull resistors, least and greatest (the datasheet's range)."""
        return self.board.pads.pull_ohms

    def device_exists(self, path: str) -> bool:
        """Whether ``/dev/gpiochip<n>`` exists on this Pi (what gpiozero looks for)."""
        prefix = "/dev/gpiochip"
        return (
            path.startswith(prefix)
            and path[len(prefix) :].isdigit()
            and (int(path[len(prefix) :]) in self.board.chips)
        )

    def _pwm_stops(self, gpio: int) -> None:
        history = self.pwm.get(gpio)
        if history and history[-1][1] != 0:
            history.append((time.monotonic(), 0.0, 0.0))  # a freed line's PWM stops

    # -- checks ------------------------------------------------------------------------------
    def _chip(self, handle: int) -> None:
        if handle not in self._handles:
            raise fail(BAD_HANDLE)
        chip = handle >> 16
        chip = self.board.links.get(chip, chip)
        if chip != self.board.header:
            raise RuntimeError(
                f"the model has no lines on gpiochip{chip} ({self.board.chips[chip]}): "
                f"the header of a {self.board.name} is gpiochip{self.board.header}"
            )

    def _count(self, name: str) -> None:
        self.calls[name] += 1

    # -- chips -------------------------------------------------------------------------------
    def gpiochip_open(self, gpiochip: int) -> int:
        self._count("gpiochip_open")
        if gpiochip not in self.board.chips:
            raise fail(CANNOT_OPEN_CHIP)
        handle = len(self._handles) | (gpiochip << 16)
        self._handles.add(handle)
        self.opened.append(self.board.chips[gpiochip])
        return handle

    def gpiochip_close(self, handle: int) -> int:
        self._count("gpiochip_close")
        self._chip(handle)
        self._handles.discard(handle)
        with self._lock:
            self.lines.release_all()
        return 0

    # -- claiming ----------------------------------------------------------------------------
    def gpio_claim_input(self, handle: int, gpio: int, lFlags: int = 0) -> int:
        self._count("gpio_claim_input")
        self._chip(handle)
        with self._lock:
            return self.lines.singleton(gpio, False, lFlags, 0)

    def gpio_claim_output(self, handle: int, gpio: int, level: int = 0, lFlags: int = 0) -> int:
        self._count("gpio_claim_output")
        self._chip(handle)
        with self._lock:
            return self.lines.singleton(gpio, True, lFlags, level)

    def group_claim_input(self, handle: int, gpio: Sequence[int], lFlags: int = 0) -> int:
        self._count("group_claim_input")
        self._chip(handle)
        with self._lock:
            self.lines.request(tuple(gpio), False, lFlags, ())
        return 0

    def group_claim_output(
        self,
        handle: int,
        gpio: Sequence[int],
        levels: Sequence[int] = (0,),
        lFlags: int = 0,
    ) -> int:
        self._count("group_claim_output")
        self._chip(handle)
        with self._lock:
            padded = list(levels) + [0] * (len(gpio) - len(levels))
            self.lines.request(tuple(gpio), True, lFlags, padded)
        return 0

    def gpio_free(self, handle: int, gpio: int) -> int:
        self._count("gpio_free")
        self._chip(handle)
        with self._lock:
            self.lines.free(self.lines.leader(gpio))
        return 0

    def group_free(self, handle: int, gpio: int) -> int:
        self._count("group_free")
        self._chip(handle)
        with self._lock:
            self.lines.free(self.lines.leader(gpio))
        return 0

    def gpio_claim_alert(
        self,
        handle: int,
        gpio: int,
        eFlags: int,
        lFlags: int = 0,
        notify_handle: int | None = None,
    ) -> int:
        self._count("gpio_claim_alert")
        self._chip(handle)
        with self._lock:
            line = self.lines.line(gpio)
            if line.request is not None and len(line.request.lines) > 1:
                raise fail(INVALID_GROUP_ALERT)
            if line.request is not None:
                self.lines.free(line.request)
            self.lines.request((gpio,), False, lFlags, ())
            request = self.lines.line(gpio).request
            assert request is not None
            request.alert, request.edges = True, eFlags
        return 0

    def callback(
        self, handle: int, gpio: int, edge: int = RISING_EDGE, func: AlertFunc | None = None
    ) -> Callback:
        self._count("callback")
        if func is None:
            raise NotImplementedError("the model has no tally callbacks; pass func")
        cb = Callback(self.calls, gpio, edge, func)
        self.lines.add_callback(cb)
        return cb

    def gpio_set_debounce_micros(self, handle: int, gpio: int, debounce_micros: int) -> int:
        self._count("gpio_set_debounce_micros")
        self._chip(handle)
        self.lines.line(gpio)
        self.debounce[gpio] = debounce_micros
        return 0

    # -- information -------------------------------------------------------------------------
    def gpio_get_mode(self, handle: int, gpio: int) -> int:
        self._count("gpio_get_mode")
        self._chip(handle)
        with self._lock:
            return self.lines.mode(gpio)

    def gpio_get_line_info(self, handle: int, gpio: int) -> list[Any]:
        self._count("gpio_get_line_info")
        self._chip(handle)
        with self._lock:
            line = self.lines.line(gpio)
            user = "kernel" if line.kernel else "lg" if line.request is not None else ""
            return [0, gpio, self.lines.mode(gpio), f"GPIO{gpio}", user]

    # -- levels ------------------------------------------------------------------------------
    def gpio_read(self, handle: int, gpio: int) -> int:
        self._count("gpio_read")
        self._chip(handle)
        with self._lock:
            line = self.lines.line(gpio)
            if line.request is None:
                self.lines.singleton(gpio, False, 0, 0)  # lgpio claims an unclaimed line as input
            assert line.request is not None
            if not line.request.output:
                line.value = self.lines.level(gpio)
            return int(line.value)

    def gpio_write(self, handle: int, gpio: int, level: int) -> int:
        self._count("gpio_write")
        self._chip(handle)
        with self._lock:
            line = self.lines.line(gpio)
            request = line.request
            if request is None or not request.output:
                if request is not None and len(request.lines) > 1:
                    raise fail(GPIO_NOT_AN_OUTPUT)
                return self.lines.singleton(gpio, True, 0, level)  # lgpio's auto claim
            line.value = bool(level)
        return 0

    def group_read(self, handle: int, gpio: int) -> list[int]:
        self._count("group_read")
        self._chip(handle)
        with self._lock:
            request = self.lines.leader(gpio)
            bits = 0
            for i, member in enumerate(request.lines):
                line = self.lines.line(member)
                if not request.output:
                    line.value = self.lines.level(member)
                bits |= int(line.value) << i
            return [len(request.lines), bits]

    def group_write(
        self, handle: int, gpio: int, group_bits: int, group_mask: int = GROUP_ALL
    ) -> int:
        self._count("group_write")
        self._chip(handle)
        with self._lock:
            request = self.lines.leader(gpio)
            if not request.output:
                raise fail(BAD_WRITE)  # the kernel refuses to set an input's value
            for i, member in enumerate(request.lines):
                if group_mask >> i & 1:
                    self.lines.line(member).value = bool(group_bits >> i & 1)
        return 0

    # -- PWM ---------------------------------------------------------------------------------
    def tx_pwm(
        self,
        handle: int,
        gpio: int,
        pwm_frequency: float,
        pwm_duty_cycle: float,
        pulse_offset: int = 0,
        pulse_cycles: int = 0,
    ) -> int:
        self._count("tx_pwm")
        self._chip(handle)
        with self._lock:
            line = self.lines.line(gpio)
            if pwm_frequency != 0:
                if not 0.1 <= pwm_frequency <= 10_000:
                    raise fail(BAD_PWM_FREQ)
                if not 0 <= pwm_duty_cycle <= 100:
                    raise fail(BAD_PWM_DUTY)
            request = line.request
            if request is None or not request.output:
                if request is not None and len(request.lines) > 1:
                    raise fail(GPIO_NOT_AN_OUTPUT)
                self.lines.singleton(gpio, True, 0, 0)
            setting = (time.monotonic(), float(pwm_frequency), float(pwm_duty_cycle))
            self.pwm.setdefault(gpio, []).append(setting)
            self.pwm_threads.add(threading.current_thread().name)
        return 4999

    # -- SPI ---------------------------------------------------------------------------------
    def spi_open(self, spi_device: int, spi_channel: int, baud: int, spi_flags: int = 0) -> int:
        self._count("spi_open")
        if f"/dev/spidev{spi_device}.{spi_channel}" not in self.spi_devices:
            raise fail(SPI_OPEN_FAILED)
        handle = self._next_spi
        self._next_spi += 1
        self._spi[handle] = _Spi(spi_device, spi_channel, baud, spi_flags)
        return handle

    def _spi_handle(self, handle: int) -> _Spi:
        try:
            return self._spi[handle]
        except KeyError:
            raise fail(BAD_HANDLE) from None

    def spi_close(self, handle: int) -> int:
        self._count("spi_close")
        self._spi_handle(handle)
        del self._spi[handle]
        return 0

    def spi_write(self, handle: int, data: Sequence[int] | bytes) -> int:
        self._count("spi_write")
        spi = self._spi_handle(handle)
        payload = bytes(data)
        device = self._spi_devices.get((spi.port, spi.channel))
        if device is not None:
            device(payload)
        return len(payload)

    def spi_xfer(self, handle: int, data: Sequence[int] | bytes) -> list[Any]:
        self._count("spi_xfer")
        count = self.spi_write(handle, data)
        self.calls["spi_write"] -= 1
        return [count, bytearray(count)]

    def spi_read(self, handle: int, count: int) -> list[Any]:
        self._count("spi_read")
        self._spi_handle(handle)
        return [count, bytearray(count)]

    def error_text(self, errnum: int) -> str:
        return ERRORS.get(errnum, f"error {errnum}")

    def get_module_version(self) -> int:
        return 0x00020200


# -- under the real LGPIOFactory ------------------------------------------------------------------


_FACTORY_CLASS: type[LGPIOFactory] | None = None


def install(model: LgpioModel) -> None:
    """Make ``model`` the ``lgpio`` module gpiozero's lgpio pins talk to."""
    import sys

    sys.modules["lgpio"] = model
    if sys.modules.get("gpiozero.pins.lgpio") is not None:
        from gpiozero.pins import lgpio as pins  # imported before: this only names it

        pins.lgpio = model


def lgpio_factory(model: LgpioModel) -> LGPIOFactory:
    """gpiozero's real ``LGPIOFactory`` on ``model``, on the model's Pi: the subclass
    reports its board revision (off a Pi there is no ``/proc/device-tree`` to read), and
    while gpiozero picks its gpiochip, its ``os.path.exists`` sees the Pi's ``/dev``
    (gpiozero 2.0.1 looks for ``/dev/gpiochip4`` on a Pi 5).

    Close it when done (``factory.close()``): gpiozero keeps lgpio pins in a dict shared
    by every local factory.
    """
    import sys

    global _FACTORY_CLASS
    install(model)
    if _FACTORY_CLASS is None:
        from gpiozero.pins.lgpio import LGPIOFactory

        class ModelLGPIOFactory(LGPIOFactory):
            """``LGPIOFactory`` reporting the model's Pi instead of reading the device tree."""

            def _get_revision(self) -> int:
                lgpio = sys.modules["lgpio"]
                return lgpio.board.revision if isinstance(lgpio, LgpioModel) else PI4_REVISION

        _FACTORY_CLASS = ModelLGPIOFactory
    from gpiozero.pins import lgpio as pins

    real_os = getattr(pins, "os", None)
    if real_os is None:  # gpiozero 2.0.1.post2 and before: it fails so on a real Pi 5 too
        return _FACTORY_CLASS()

    def exists(path: str) -> bool:
        if path.startswith("/dev/gpiochip"):
            return model.device_exists(path)
        return bool(real_os.path.exists(path))

    # Only the ``os`` gpiozero's lgpio module sees, and only while the factory starts.
    its_os = types.SimpleNamespace(path=types.SimpleNamespace(exists=exists))
    with mock.patch.object(pins, "os", its_os):
        return _FACTORY_CLASS()


def close_factory(factory: LGPIOFactory) -> None:
    """Close an lgpio factory and forget every reservation (gpiozero shares them between
    local factories, so one test's leftovers would otherwise reach the next)."""
    from gpiozero.pins.local import LocalPiFactory

    try:
        factory.close()
    finally:
        LocalPiFactory.pins.clear()
        LocalPiFactory._reservations.clear()

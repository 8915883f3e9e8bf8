"""The kernel's side of the header's lines under the lgpio model: requests, pulls, levels.

:class:`~rigs.lgpio_model.LgpioModel` is ``lgpio``'s functions and the Pi
they run on; :class:`HeaderLines` is what those functions change and read, written from
the kernel's GPIO character device as lgpio 0.2.2's documentation describes it (see the
model's docstring for the whole list): each line belongs to at most one request, whose
first line leads; a request with a bias flag sets the pad's pull and one without leaves
it; a line not driven by the Pi reads what the attached circuits drive, else its pull;
alert lines call back when a circuit moves them. lgpio's constants and error texts are
here too, since both sides use them.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from hardware.electrical import Pads, Pull

# -- lgpio's constants (lgpio.py 0.2.2) ------------------------------------------------------
SET_ACTIVE_LOW: Final = 4
SET_OPEN_DRAIN: Final = 8
SET_OPEN_SOURCE: Final = 16
SET_PULL_UP: Final = 32
SET_PULL_DOWN: Final = 64
SET_PULL_NONE: Final = 128
RISING_EDGE: Final = 1
FALLING_EDGE: Final = 2
BOTH_EDGES: Final = 3
GROUP_ALL: Final = 0xFFFFFFFFFFFFFFFF

KERNEL_USED, KERNEL_OUTPUT, KERNEL_INPUT = 1, 2, 1 << 16
MODE_INPUT, MODE_OUTPUT, MODE_ALERT, MODE_GROUP = 1, 2, 4, 8

ERRORS: Final[dict[int, str]] = {
    -5: "unknown handle",
    -28: "can not open SPI device",
    -73: "bad GPIO number",
    -74: "bad group size",
    -77: "bad GPIO write",
    -78: "can not open gpiochip",
    -79: "GPIO busy",
    -80: "GPIO not allocated",
    -87: "GPIO not the group leader",
    -102: "bad PWM frequency",
    -103: "bad PWM dutycycle",
    -104: "GPIO not set as an output",
    -105: "invalid group alert",
}
BAD_HANDLE, SPI_OPEN_FAILED, BAD_GPIO_NUMBER, BAD_GROUP_SIZE, BAD_WRITE = -5, -28, -73, -74, -77
CANNOT_OPEN_CHIP, GPIO_BUSY, GPIO_NOT_ALLOCATED, NOT_GROUP_LEADER = -78, -79, -80, -87
BAD_PWM_FREQ, BAD_PWM_DUTY, GPIO_NOT_AN_OUTPUT, INVALID_GROUP_ALERT = -102, -103, -104, -105


class error(Exception):
    """What lgpio raises for a negative status; ``str()`` is lgpio's error text."""

    def __init__(self, value: str) -> None:
        super().__init__(value)
        self.value = value

    def __str__(self) -> str:
        return repr(self.value)


def fail(code: int) -> error:
    """The :class:`error` lgpio raises for status ``code``."""
    return error(ERRORS.get(code, f"error {code}"))


# -- what circuits see ------------------------------------------------------------------------


class Circuit(Protocol):
    """A circuit on some lines: what it drives onto each, given what the Pi drives."""

    def level(self, gpio: int) -> bool | None:
        """The level the circuit puts on ``gpio``, or None where it leaves the line alone."""
        ...


AlertFunc = Callable[[int, int, int, int], None]


@dataclass
class Request:
    """One line request (a file descriptor in the kernel): its lines, leader first."""

    lines: tuple[int, ...]
    output: bool
    flags: int
    alert: bool = False
    edges: int = 0


@dataclass
class Line:
    request: Request | None = None
    value: bool = False
    """The level last written (outputs) or last read (inputs)."""
    pull: Pull = "none"
    """The pad's pull: set by a request with a bias flag, kept otherwise (and when freed)."""
    kernel: bool = False
    """Held by a kernel driver (SPI0 when SPI is on): no process may claim it."""


@dataclass
class Callback:
    """What ``lgpio.callback`` returns: call :meth:`cancel` to stop it."""

    calls: Counter[str]
    gpio: int
    edge: int
    func: AlertFunc
    active: bool = True

    def cancel(self) -> None:
        self.active = False
        self.calls["callback.cancel"] += 1


class HeaderLines:
    """The header's lines as the kernel keeps them, and the circuits wired to them."""

    def __init__(
        self,
        pads: Pads,
        count: int,
        kernel_lines: Iterable[int] = (),
        on_free: Callable[[int], None] = lambda gpio: None,
    ) -> None:
        """``pads``: the chip's reset pulls; ``on_free``: told of each line freed."""
        self.count = count
        self.requests = 0
        """Line requests that reached the kernel."""
        self.lock = threading.RLock()
        self._lines = [Line(pull=pads.reset_pull(gpio)) for gpio in range(count)]
        for gpio in kernel_lines:
            self._lines[gpio].kernel = True
        self._circuits: list[Circuit] = []
        self._callbacks: list[Callback] = []
        self._on_free = on_free

    # -- the world around the chip ---------------------------------------------------------
    def attach(self, circuit: Circuit) -> None:
        self._circuits.append(circuit)

    def drive(self, gpio: int) -> bool | None:
        """The level the Pi drives on ``gpio``: None for an input or a released open drain."""
        line = self._lines[gpio]
        request = line.request
        if request is None or not request.output:
            return None
        if request.flags & SET_OPEN_DRAIN and line.value:
            return None
        return line.value

    def pull(self, gpio: int) -> Pull:
        return self._lines[gpio].pull

    def claimed(self, gpio: int) -> bool:
        return self._lines[gpio].request is not None

    def level(self, gpio: int) -> bool:
        """What the line is at: driven by the Pi, else by a circuit, else by its bias."""
        driven = self.drive(gpio)
        if driven is not None:
            return driven
        for circuit in self._circuits:
            outside = circuit.level(gpio)
            if outside is not None:
                return outside
        pull = self.pull(gpio)
        if pull == "none":
            return self._lines[gpio].value  # floating: it stays where it was
        return pull == "up"

    def add_callback(self, callback: Callback) -> None:
        self._callbacks = [c for c in self._callbacks if c.active] + [callback]

    def inputs_changed(self) -> None:
        """A circuit changed what it drives: alert lines whose level moved call back."""
        with self.lock:
            due: list[tuple[Callback, int]] = []
            for gpio, line in enumerate(self._lines):
                request = line.request
                if request is None or not request.alert:
                    continue
                now = self.level(gpio)
                if now == line.value:
                    continue
                line.value = now
                edge = RISING_EDGE if now else FALLING_EDGE
                if not request.edges & edge:
                    continue
                due += [(cb, int(now)) for cb in self._callbacks if cb.gpio == gpio]
        stamp = time.monotonic_ns()
        for cb, level in due:
            if cb.active and cb.edge & (RISING_EDGE if level else FALLING_EDGE):
                cb.func(0, cb.gpio, level, stamp)

    # -- requests ----------------------------------------------------------------------------
    def line(self, gpio: int) -> Line:
        """Line ``gpio``, or lgpio's "bad GPIO number"."""
        if not 0 <= gpio < self.count:
            raise fail(BAD_GPIO_NUMBER)
        return self._lines[gpio]

    def release_all(self) -> None:
        """The chip's handle closed: every request ends (pulls stay)."""
        for line in self._lines:
            line.request = None

    def request(
        self, lines: Sequence[int], output: bool, flags: int, levels: Sequence[int]
    ) -> Request:
        if not 1 <= len(lines) <= 64 or len(set(lines)) != len(lines):
            raise fail(BAD_GROUP_SIZE)
        for gpio in lines:
            line = self.line(gpio)
            if line.kernel or line.request is not None:
                raise fail(GPIO_BUSY)  # the kernel's EBUSY
        request = Request(tuple(lines), output, flags)
        self.requests += 1
        pull: Pull | None = (
            "up" if flags & SET_PULL_UP
            else "down" if flags & SET_PULL_DOWN
            else "none" if flags & SET_PULL_NONE
            else None
        )  # fmt: skip
        for i, gpio in enumerate(lines):
            line = self._lines[gpio]
            line.request = request
            line.pull = pull or line.pull
            line.value = bool(levels[i]) if output and i < len(levels) else line.value
        for gpio in lines:
            if not output:
                self._lines[gpio].value = self.level(gpio)
        return request

    def singleton(self, gpio: int, output: bool, flags: int, level: int) -> int:
        line = self.line(gpio)
        request = line.request
        if request is not None and len(request.lines) > 1:
            raise fail(GPIO_BUSY)  # lgpio does not free a group member: the kernel refuses
        if request is not None and request.output == output and not request.alert:
            return 0  # already claimed that way: nothing changes, not even the flags
        if request is not None:
            self.free(request)
        self.request((gpio,), output, flags, (level,))
        return 0

    def free(self, request: Request) -> None:
        for gpio in request.lines:
            self._lines[gpio].request = None
            self._on_free(gpio)

    def leader(self, gpio: int) -> Request:
        request = self.line(gpio).request
        if request is None:
            raise fail(GPIO_NOT_ALLOCATED)
        if request.lines[0] != gpio:
            raise fail(NOT_GROUP_LEADER)
        return request

    def mode(self, gpio: int) -> int:
        """lgpio's mode bits of ``gpio``: the kernel's, and lgpio's own shifted by 8."""
        line = self.line(gpio)
        request = line.request
        if line.kernel:
            return KERNEL_USED
        if request is None:
            return KERNEL_INPUT
        bits = KERNEL_USED | (request.flags & 0xFC)
        bits |= KERNEL_OUTPUT if request.output else KERNEL_INPUT
        lg = MODE_ALERT if request.alert else MODE_OUTPUT if request.output else MODE_INPUT
        if len(request.lines) > 1:
            lg |= MODE_GROUP
        return bits | lg << 8

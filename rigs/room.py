"""A living room at the reflective build's pins: what the Pico's ADC reads from each
TCRT1000 while the firmware switches its emitter groups, on a virtual clock.

What it models (firmware/emulator/pico.mjs models the same, for the emulated chip):

- **The phototransistor's current** per sensor: room light on its window (``steady``
  µA, plus a mains ripple of ``ripple`` µA amplitude at ``ripple_hz``: 100 Hz for 50 Hz
  mains, 120 Hz for 60 Hz; incandescent and halogen lamps flicker at twice the mains
  frequency, LED lamps emit next to nothing at 950 nm), plus, while its emitter group's
  pin is high, what its emitter's light comes back as: the data sheet's cross talk, the
  window's wall, a pearl or a hand. Currents are those of a **minimum** part (the data
  sheet's least collector current, 0.3 mA at 1 mm on a 90 % card) times ``gain`` (1.67:
  a typical part's 0.5 mA).
- **Its lag**: a first-order response with time constant ``tau_us`` (50–200 µs: the data
  sheet gives no switching times at a 10 kΩ load; 50–200 µs is the range issue 35 takes
  as plausible), applied to the whole current (emitter steps and room light alike).
- **The load's saturation**: 10 kΩ to ground from the emitter, the collector at 3.3 V:
  the output is I·R up to a soft knee at 2.7 V and never above 3.0 V (V_CE(sat) about
  0.3 V: the load saturates at 0.30 mA).
- **The ADC**: 12 bits of 3.3 V (1.241 counts per mV: 12.41 counts per µA at 10 kΩ), with
  Gaussian noise of ``noise`` counts rms (2.8: ENOB 8.7, RP2040 datasheet §4.9.3, is one
  effective step of 4096 / 2^8.7 = 9.8 counts, 2.8 counts rms).
- **Scenes** (:data:`SCENES`): sun up to and past saturation (0.2–4 mA of collector
  current through a Ø6 window, issue 35), a hand 5 mm over an empty hollow (skin ≈ 0.5
  at 950 nm: 7 µA on a minimum part, issue 35's trace), a window wall of reflectance 0.3
  (28·ρ µA on a minimum part), the darkest pearl (reflectance 0.2, hardware/geometry.toml
  [pearl]) at its weakest rest: 32 µA on a minimum part (tests/firmware/test_reflective.py's
  400 counts), the data sheet's 1 µA cross talk (Vishay TCRT1000, doc. 83752).

What it does not model: the multiplexers' settling and charge injection (the firmware
waits MUX_SETTLE_US), the ADC's differential non-linearity, the phototransistor's
temperature drift, light from one group's emitters reaching another group's sensors,
the room light's spectrum (all of it is taken as if it were 950 nm), and a pearl's
shadow of the room light (a pearl on a hollow is taken to leave ``steady`` as it is:
harder than the truth).
"""

from __future__ import annotations

import functools
import importlib
import math
import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType, SimpleNamespace

from controller.cli.calibrate import marks

__all__ = [
    "ADC_PER_UA",
    "CROSSTALK_UA",
    "DARK_PEARL_UA",
    "HAND_UA",
    "TODAYS",
    "TYPICAL_GAIN",
    "WALL_UA_PER_RHO",
    "FrontEnd",
    "Light",
    "Part",
    "Rig",
    "VirtualClock",
    "firmware_files",
    "passing_hand",
]

LOAD_KOHM = 10.0
ADC_PER_UA = 4096 / 3300 * LOAD_KOHM
"""ADC counts per µA of collector current through the 10 kΩ load (12.41)."""
KNEE_V = 2.7
SATURATION_V = 3.0
CROSSTALK_UA = 1.0
"""The data sheet's cross talk (emitter on, nothing in front)."""
DARK_PEARL_UA = 32.0
"""The darkest pearl (0.2) at its weakest rest, on a minimum part."""
HAND_UA = 7.0
"""Skin (0.5) 5 mm over an empty hollow, on a minimum part."""
WALL_UA_PER_RHO = 28.0
"""The window's wall, per unit of its reflectance, on a minimum part."""
TYPICAL_GAIN = 0.5 / 0.3
"""A typical part over a minimum one (the data sheet's 0.5 mA typical, 0.3 mA minimum)."""


@dataclass(frozen=True)
class Light:
    """Room light on one window, as collector current (µA): steady plus a mains ripple."""

    steady: float = 0.0
    ripple: float = 0.0
    ripple_hz: float = 100.0
    phase: float = 0.0

    def at(self, t_us: float) -> float:
        if not self.ripple:
            return self.steady
        return self.steady + self.ripple * math.sin(
            2 * math.pi * self.ripple_hz * t_us * 1e-6 + self.phase
        )


@dataclass(frozen=True)
class Part:
    """The sensor's spread: ``gain`` over a minimum part, its lag, the ADC's noise."""

    gain: float = 1.0
    tau_us: float = 200.0
    noise: float = 2.8


def load_volts(current_ua: float) -> float:
    """The voltage over the 10 kΩ load: linear up to the knee, saturating at 3.0 V."""
    volts = max(current_ua, 0.0) * LOAD_KOHM / 1000
    if volts <= KNEE_V:
        return volts
    span = SATURATION_V - KNEE_V
    return KNEE_V + span * (1 - math.exp(-(volts - KNEE_V) / span))


class VirtualClock:
    """Microseconds that pass only when the firmware sleeps or touches a pin."""

    def __init__(self) -> None:
        self.us = 0.0

    def sleep_us(self, us: int) -> None:
        self.us += us

    def sleep_ms(self, ms: int) -> None:
        self.us += 1000 * ms

    def ticks_us(self) -> int:
        return int(self.us) % (1 << 30)


@dataclass
class _Lag:
    current: float = 0.0
    at: float = 0.0


@dataclass
class FrontEnd:
    """The multiplexers, emitter groups and sensors at the Pico's pins, on ``clock``.

    ``sensors`` are config.SENSORS; ``reflection`` maps a channel to what comes back while
    lit beyond cross talk and the wall (µA on a minimum part: a pearl, a hand; it may be a
    function of time in µs); ``light`` a channel's room light; ``wall`` the window wall's
    reflectance. ``pin_us`` and ``adc_us`` are what one pin write and one ADC read cost the
    firmware (measured on the emulated chip; the clock advances by them).
    """

    sensors: tuple[tuple[int, int, int, int], ...]
    clock: VirtualClock
    part: Part = field(default_factory=Part)
    wall: float = 0.0
    pin_us: float = 6.0
    adc_us: float = 48.0
    seed: int = 35
    reflection: dict[int, float | Callable[[float], float]] = field(default_factory=dict)
    light: dict[int, Light] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.address = 0
        self.lit = [False] * (1 + max(s[3] for s in self.sensors))
        self.by_place = {(s[1], s[2]): (s[0], s[3]) for s in self.sensors}
        self.lag = {s[0]: _Lag() for s in self.sensors}
        self.group_of = {s[0]: s[3] for s in self.sensors}
        self.random = random.Random(self.seed)

    # -- the light -------------------------------------------------------------------------
    def current(self, channel: int, t_us: float) -> float:
        """The photocurrent (µA) the sensor's light makes now (before its lag)."""
        light = self.light.get(channel, Light()).at(t_us)
        if not self.lit[self.group_of[channel]]:
            return light
        own = self.reflection.get(channel, 0.0)
        reflected = own(t_us) if callable(own) else own
        back = CROSSTALK_UA + WALL_UA_PER_RHO * self.wall + reflected
        return light + back * self.part.gain

    def _advance(self, channel: int, until: float) -> float:
        lag = self.lag[channel]
        tau = self.part.tau_us
        steady = channel not in self.light or not self.light[channel].ripple
        longest = until if steady and not callable(self.reflection.get(channel)) else 40.0
        while lag.at < until:
            step = min(longest, until - lag.at)
            target = self.current(channel, lag.at + step / 2)
            lag.current += (target - lag.current) * (1 - math.exp(-step / tau))
            lag.at += step
        return lag.current

    # -- the pins --------------------------------------------------------------------------
    def set_emitter(self, group: int, level: bool) -> None:
        now = self.clock.us
        for channel, group_of in self.group_of.items():
            if group_of == group:
                self._advance(channel, now)
        self.lit[group] = level
        self.clock.us += self.pin_us

    def set_select(self, bit: int, level: bool) -> None:
        if level:
            self.address |= 1 << bit
        else:
            self.address &= ~(1 << bit)
        self.clock.us += self.pin_us

    def read(self, mux: int) -> int:
        """One conversion of multiplexer ``mux``'s output, in 12-bit counts."""
        self.clock.us += self.adc_us
        place = self.by_place.get((mux, self.address))
        if place is None:
            return 0
        current = self._advance(place[0], self.clock.us)
        counts = load_volts(current) * 1000 * 4096 / 3300
        counts += self.random.gauss(0.0, self.part.noise)
        return max(0, min(4095, round(counts)))


# -- the scenes of issue 35 ----------------------------------------------------------------


def passing_hand(peak_ua: float, start_us: float, length_us: float) -> Callable[[float], float]:
    """A hand passing over: up to ``peak_ua`` and away again, over ``length_us``."""

    def at(t_us: float) -> float:
        x = (t_us - start_us) / length_us
        return peak_ua * math.sin(math.pi * x) ** 2 if 0 <= x <= 1 else 0.0

    return at


# -- a firmware's reflective scan in the room -------------------------------------------

FIRMWARE = Path(__file__).resolve().parents[1] / "firmware"
TODAYS = "d220405"
"""The commit whose firmware read the cells dark, lit, dark (before issue 35's scheme)."""


_CALIBRATED: set[Path] = set()
"""Firmware directories (:func:`calibrated`) whose rigs are calibrated before a scene."""


def calibrated() -> Path:
    """This checkout's firmware, its every :class:`Rig` calibrated by ``pyramid diag
    --check``'s rule before its scene (:meth:`Rig.calibrate`)."""
    where = Path(tempfile.mkdtemp(prefix="firmware-calibrated-"))
    for source in FIRMWARE.glob("*.py"):
        (where / source.name).write_bytes(source.read_bytes())
    _CALIBRATED.add(where)
    return where


LATER_FILES = ("usbpower.py", "calib.py")
"""Firmware files a commit may not have yet (usbpower.py and calib.py came with issue 35)."""


@functools.cache
def firmware_files(commit: str | None = None) -> Path:
    """A directory with the firmware's files (main.py, protocol.py, debounce.py,
    config.py and those of its modules the commit has): this checkout's, or (``commit``)
    as they were there (from git)."""
    if commit is None:
        return FIRMWARE
    where = Path(tempfile.mkdtemp(prefix=f"firmware-{commit}-"))
    for name in ("main.py", "protocol.py", "debounce.py", "config.py", *LATER_FILES):
        done = subprocess.run(
            ["git", "show", f"{commit}:firmware/{name}"],
            cwd=FIRMWARE,
            capture_output=True,
            check=name not in LATER_FILES,
        )
        if done.returncode == 0:
            (where / name).write_bytes(done.stdout)
    return where


def load_firmware(directory: Path) -> tuple[ModuleType, ModuleType]:
    """The firmware's ``main`` and ``config`` modules from ``directory``, imported apart
    from any other firmware (CPython; firmware/sim's ``ticks`` stands in for ``time``)."""
    names = ("main", "protocol", "debounce", "usbpower", "calib", "config", "ticks")
    saved = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    sys.path[:0] = [str(directory), str(FIRMWARE / "sim")]
    try:
        main = importlib.import_module("main")
        config = importlib.import_module("config")
    finally:
        del sys.path[:2]
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(saved)
    return main, config


class _Pin:
    def __init__(self, write: Callable[[bool], None]) -> None:
        self._write = write

    def value(self, level: int | None = None) -> int:
        if level is not None:
            self._write(bool(level))
        return 1  # a switch on its own pin: open


class _Adc:
    def __init__(self, front: FrontEnd, mux: int) -> None:
        self.front = front
        self.mux = mux

    def read_u16(self) -> int:
        return self.front.read(self.mux) << 4


@dataclass
class Watched:
    """What the firmware made of one sensor, scan by scan."""

    over: list[int] = field(default_factory=list)
    """Its reading less its baseline (counts), every readable scan."""
    unreadable: int = 0
    """Scans it could not read."""


class Rig:
    """A firmware's :class:`Reflective` scan and debouncer in ``front``'s room, on the
    virtual clock, as firmware/main.py's loop runs them: a scan every SCAN_MS (or at once
    when a scan took longer)."""

    def __init__(
        self, directory: Path, part: Part | None = None, wall: float = 0.0, **changes: object
    ) -> None:
        self.main, config = load_firmware(directory)
        cfg = SimpleNamespace(**{k: v for k, v in vars(config).items() if k.isupper()})
        cfg.SENSING = "reflective"
        for name, value in changes.items():
            setattr(cfg, name, value)
        self.cfg = cfg
        self.clock = VirtualClock()
        self.front = FrontEnd(cfg.SENSORS, self.clock, part or Part(), wall)
        setattr(self.main, "sleep_us", self.clock.sleep_us)  # noqa: B010 - the firmware's clock
        setattr(self.main, "ticks_us", self.clock.ticks_us)  # noqa: B010
        front = self.front
        select = [_Pin(functools.partial(front.set_select, bit)) for bit in range(4)]
        emitters = [
            _Pin(functools.partial(front.set_emitter, group))
            for group in range(len(cfg.EMITTER_PINS))
        ]
        adcs = [_Adc(front, mux) for mux in range(len(cfg.MUX_ADC_PINS))]
        switches = [(channel, _Pin(lambda level: None)) for channel, _ in cfg.SWITCHES]
        self.scanner = self.main.Reflective(select, adcs, emitters, cfg.SENSORS, switches, cfg)
        self.debouncer = self.main.Debouncer(cfg.DEBOUNCE_SCANS)
        self.index = {s[0]: i for i, s in enumerate(cfg.SENSORS)}
        self.changes: list[tuple[float, int]] = []
        """(ms, debounced bitmap) at each change."""
        self.watched: dict[int, Watched] = {}
        self.scans = 0
        self.scan_us = 0.0
        if directory in _CALIBRATED:
            self.calibrate()

    @property
    def ms(self) -> float:
        return self.clock.us / 1000

    def on_of(self, channel: int) -> int:
        """The channel's on mark over its empty level (its own, once calibrated)."""
        on = self.scanner.levels.on  # one for every sensor before issue 35's calibration
        return int(on[self.index[channel]] if isinstance(on, list) else on)

    def calibrate(self) -> None:
        """``pyramid diag --check``'s calibration, before the scene, in a dark, calm room
        on this rig's part and wall: every cell's empty level (the median of 16 scans once
        the learnt levels have settled), then the darkest pearl on every cell at once (the
        lowest of 8 scans), each cell's marks set by controller/cli/calibrate.py's rule;
        then the clock, the lag and the debouncer start again (a power cycle: the Pico
        keeps the table on its flash)."""
        scanner = self.scanner
        sensors = list(self.index)
        self.run(4000)
        empty: dict[int, list[int]] = {c: [] for c in sensors}
        for _ in range(16):
            self.run(self.ms + 1)
            for channel in sensors:
                empty[channel].append(scanner.readings[self.index[channel]])
        for channel in sensors:
            self.front.reflection[channel] = DARK_PEARL_UA
        self.run(self.ms + 300)
        pearl: dict[int, list[int]] = {c: [] for c in sensors}
        for _ in range(8):
            self.run(self.ms + 1)
            for channel in sensors:
                pearl[channel].append(scanner.readings[self.index[channel]])
        for channel in sensors:
            self.front.reflection[channel] = 0.0
            cell = marks(round(statistics.median(empty[channel])), min(pearl[channel]))
            assert cell is not None, f"no pearl seen on channel {channel} while calibrating"
            scanner.calibration._apply(channel, cell.empty, cell.off, cell.on)
        self.clock.us = 0.0
        self.front.lag = {s[0]: _Lag() for s in self.cfg.SENSORS}
        self.debouncer = self.main.Debouncer(self.cfg.DEBOUNCE_SCANS)
        for i in range(len(scanner.levels.present)):
            scanner.levels.present[i] = False
        self.changes.clear()
        self.scans = 0

    def watch(self, *channels: int) -> None:
        for channel in channels:
            self.watched[channel] = Watched()

    def run(self, until_ms: float) -> None:
        """Scan until the clock reaches ``until_ms``."""
        scanner = self.scanner
        while self.clock.us < until_ms * 1000:
            start = self.clock.us
            changed = self.debouncer.feed(scanner.scan())
            self.scans += 1
            self.scan_us = self.clock.us - start
            if changed is not None:
                self.changes.append((self.ms, changed))
            for channel, seen in self.watched.items():
                i = self.index[channel]
                if self._unreadable(i):
                    seen.unreadable += 1
                else:
                    seen.over.append(scanner.readings[i] - scanner.levels.baseline[i])
            self.clock.us = max(self.clock.us, start + 1000 * self.cfg.SCAN_MS)

    def _unreadable(self, index: int) -> bool:
        unreadable = getattr(self.scanner, "unreadable", None)
        if unreadable is not None:
            return bool(unreadable[index])
        return bool(getattr(self.scanner, "uncertain", [False] * (index + 1))[index])

    @property
    def state(self) -> int:
        return int(self.debouncer.state)

    def seen_at(self, channel: int, after_ms: float = 0.0) -> float | None:
        """When the debounced state first had ``channel`` after ``after_ms`` (ms), or None."""
        for at, bits in self.changes:
            if at >= after_ms and (bits >> channel) & 1:
                return at
        return None


# -- issue 35's scenes ------------------------------------------------------------------

C3 = 14
"""The cell the pearls go on (mux 0, group 2)."""
E1 = 4
"""The cell the sun shines into (mux 0, group 0)."""
B2 = 7
"""The cell a hand passes over."""
LATENCY_MS = 300.0
"""A pearl must be counted within this of being put down."""


@dataclass(frozen=True)
class Outcome:
    """How a firmware fared in one scene."""

    phantom: bool
    """An empty cell was reported as a pearl."""
    missed: bool
    """A pearl was not counted within LATENCY_MS (or a lifted one not seen gone)."""
    moved_unreadable: bool
    """A cell changed while it could not be read (a pearl lifted in the sun)."""
    margin: float
    """The weakest margin: ON over the highest empty reading (over its baseline), or the
    lowest pearl reading over ON, whichever is smaller (above 1: holds)."""
    latency_ms: float | None
    scan_ms: float

    @property
    def holds(self) -> bool:
        return not (self.phantom or self.missed or self.moved_unreadable)


def _empty_margin(rig: Rig, channels: Iterable[int]) -> float:
    return min(
        (rig.on_of(c) / max(max(rig.watched[c].over, default=0), 1) for c in channels),
        default=float("inf"),
    )


def _pearl(
    rig: Rig, channel: int, reflection: float, watch_ms: float = 400.0
) -> tuple[bool, float | None, float]:
    """Put a pearl on ``channel`` now: (missed, latency ms, its lowest reading over ON)."""
    rig.watched[channel] = Watched()
    put = rig.ms
    rig.front.reflection[channel] = reflection
    rig.run(put + watch_ms)
    seen = rig.seen_at(channel, put)
    latency = None if seen is None else seen - put
    settled = rig.watched[channel].over[4:] or [0]
    return latency is None or latency > LATENCY_MS, latency, min(settled) / rig.on_of(channel)


def ripple(directory: Path, amplitude: float, hz: float, tau_us: float = 200.0) -> Outcome:
    """Room light of 100 µA with a ``hz`` ripple of ``amplitude`` µA on every cell (each
    its own phase) for 1 s; then the darkest pearl put on c3 in it."""
    rig = Rig(directory, Part(tau_us=tau_us))
    for channel in rig.index:
        rig.front.light[channel] = Light(100.0, amplitude, hz, phase=0.7 * channel)
    return _empty_then_pearl(rig, 1000)


def _empty_then_pearl(rig: Rig, empty_ms: float) -> Outcome:
    """Every cell empty for ``empty_ms``, then the darkest pearl put on c3."""
    rig.watch(*rig.index)
    rig.run(empty_ms)
    phantom = rig.state != 0
    margin = _empty_margin(rig, list(rig.index))
    missed, latency, pearl = _pearl(rig, C3, DARK_PEARL_UA)
    return Outcome(phantom, missed, False, min(margin, pearl), latency, rig.scan_us / 1000)


def sun(directory: Path, steady: float, tau_us: float = 200.0) -> Outcome:
    """``steady`` µA of sun into the empty e1 for 600 ms; a pearl put on it (shading its
    window) for 400 ms; lifted into the sun for 600 ms (not to be reported gone while
    unreadable, unless it can be read); then the sun goes."""
    rig = Rig(directory, Part(tau_us=tau_us))
    rig.front.light[E1] = Light(steady)
    rig.watch(E1)
    rig.run(600)
    phantom = rig.state != 0
    margin = _empty_margin(rig, [E1])
    rig.front.light[E1] = Light(0.0)
    missed, latency, pearl = _pearl(rig, E1, DARK_PEARL_UA)
    rig.front.light[E1] = Light(steady)
    rig.front.reflection[E1] = 0.0
    rig.watched[E1] = Watched()
    lifted = rig.ms
    rig.run(lifted + 600)
    gone = not (rig.state >> E1) & 1
    moved_unreadable = False
    if hasattr(rig.scanner, "unreadable"):  # today's firmware does not say what it read
        readable = len(rig.watched[E1].over) > 0
        moved_unreadable = gone and not readable
        missed = missed or (readable and not gone)  # it could be read: the lift is seen
    rig.front.light[E1] = Light(0.0)
    rig.run(rig.ms + 400)
    missed = missed or bool((rig.state >> E1) & 1)
    return Outcome(
        phantom, missed, moved_unreadable, min(margin, pearl), latency, rig.scan_us / 1000
    )


WARM_MS = 4000.0
"""An empty board's time from power-up before a hand comes: every learnt empty level has
fallen from BASELINE_MAX to the cell's (a count a scan), so the hand is measured over
the level it will meet in play, not over a baseline still high (which would flatter)."""


def hand(directory: Path, peak: float, moving: bool, tau_us: float = 200.0) -> Outcome:
    """A hand over the empty b2 giving ``peak`` µA on a minimum part, on a typical part
    (×1.67), for 2 s: still, or passing to and fro (400 ms a pass), after WARM_MS."""
    rig = Rig(directory, Part(gain=TYPICAL_GAIN, tau_us=tau_us))
    rig.watch(B2)
    rig.run(WARM_MS)
    start = rig.clock.us
    if moving:
        passes = [passing_hand(peak, start + k * 400e3, 400e3) for k in range(5)]
        rig.front.reflection[B2] = lambda t: sum(p(t) for p in passes)
    else:
        rig.front.reflection[B2] = peak
    rig.watched[B2] = Watched()
    rig.run(WARM_MS + 2000)
    phantom = rig.state != 0 or any(bits for _, bits in rig.changes)
    return Outcome(phantom, False, False, _empty_margin(rig, [B2]), None, rig.scan_us / 1000)


def wall(directory: Path, rho: float, tau_us: float = 200.0) -> Outcome:
    """Every window's wall of reflectance ``rho`` on a typical part from power-up; then the
    darkest pearl (on this typical part) put on c3."""
    return _empty_then_pearl(Rig(directory, Part(gain=TYPICAL_GAIN, tau_us=tau_us), wall=rho), 600)


def dark_pearl(directory: Path, reflection: float, tau_us: float = 200.0) -> Outcome:
    """A pearl of ``reflection`` µA (minimum part) put on c3 in 100 µA of room light with
    a 50 µA, 120 Hz ripple, with no empty reading before it (power-up) and after one."""
    rig = Rig(directory, Part(tau_us=tau_us))
    for channel in rig.index:
        rig.front.light[channel] = Light(100.0, 50.0, 120.0, phase=0.7 * channel)
    rig.front.reflection[C3] = reflection
    rig.watch(C3)
    rig.run(LATENCY_MS)
    at_boot = bool((rig.state >> C3) & 1)
    rig.front.reflection[C3] = 0.0
    rig.run(rig.ms + 400)
    phantom = bool((rig.state >> C3) & 1)  # lifted, and still there
    missed, latency, pearl = _pearl(rig, C3, reflection)
    return Outcome(phantom, missed or not at_boot, False, pearl, latency, rig.scan_us / 1000)

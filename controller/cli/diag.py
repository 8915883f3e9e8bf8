"""``pyramid diag``: see every sensor and LED work before the first game.

(Longer than most modules: the live view, the LED walk, the guided check and the header
map share the watching and the drawing, and are one command.)

::

    pyramid diag [--config FILE]            live view until Ctrl-C
    pyramid diag --leds [--dwell 0.4]       every LED in red, green, blue, white, by name
    pyramid diag --check [20] [--max-rate 6] the acceptance check, one step at a time
                                            (a step idle for 20 s counts as done);
                                            names the likely mistakes, exit status 1
    pyramid diag --calibrate [c3,d3]        calibrate every reflective sensor (or only
                                            those named) with the darkest pearl, keep
                                            it on the Pico, name weak cells, and stop
    pyramid diag --pins                     the 40-pin header as the config wires it

The live view redraws in place on a terminal (the 5×5 grid, the targets and the
buttons, each with whether it is occupied now and how often it has toggled; under it,
on a board that says its levels (the reflective Pico), every sensor's reading as a bar
against its two thresholds, asked for a few times a second); when standard output is
not a terminal (or with ``--plain``) it prints one line per change instead, e.g.
``   1.234  +c3``, and ``!c3`` when a sensor cannot be read (too much light). While
watching, the LED of every occupied channel lights white, so a cell whose neighbour
lights up shows a wrong LED map.

``--check`` first calibrates a board that keeps each cell's calibration (the reflective
Pico: :mod:`~controller.cli.calibrate` measures each sensor's empty level and its level
with the darkest pearl, sets its marks between them on the Pico, and names every weak
cell with its figures and what to do), then leads the maker through the acceptance check of
:mod:`~controller.cli.acceptance` (empty board, each sensor alone, the board filled
and each pearl lifted, the neighbours of a cell that stayed): it prints each step ("next
(one at a time, 13 of 33): place the probe pearl on c3 and lift it"), moves on by itself
as soon as the board shows the step's answer (or when the person presses Enter), and
ends with what it saw and the likely causes, naming a matrix row or column by its wire
(the GPIO and header pin of ``[board.gpio]``, or the Pico pin of the firmware's
config.py); Ctrl-C ends the check early with the report so far. It also reports
channels that chattered or have no name. The simulated board has no sensors to touch,
so ``--check`` on it says so (and how to check a real board) and exits 0. Buttons are
named in the web page's words ("End turn"), in the grid as in the steps.

``--calibrate`` runs that calibration alone, for every sensor or only the ones named
(``--calibrate c3,t1``: after blackening a window wall, say), and stops.

Exit status: 0 fine, 1 problems found by ``--check`` or ``--calibrate`` (a weak cell, a
sensor no pearl was seen on, a board that keeps no calibration), 2 the config or board
could not be used.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from controller.cli import acceptance, calibrate
from controller.cli.causes import causes
from controller.config import HEADER_PIN, ConfigError, load_config
from controller.hardware.adapters import build_board
from controller.hardware.channels import BUTTONS, FILES, TARGETS, ChannelMap
from controller.hardware.port import (
    OFF,
    Board,
    ChannelLevel,
    Colour,
    Led,
    LedFrame,
    LinkState,
    SensorFrame,
    SensorLevels,
)
from firmware import config as pico_config

if TYPE_CHECKING:
    from controller.config_schema import Config

WALK: tuple[tuple[str, Colour], ...] = (
    ("red", (255, 0, 0)),
    ("green", (0, 255, 0)),
    ("blue", (0, 0, 255)),
    ("white", (255, 255, 255)),
)
ECHO: Colour = (255, 255, 255)
"""The colour an occupied channel's LED shows while diag watches."""
LEVELS_EVERY_S = 0.25
"""How often the live view on a terminal asks the board for every sensor's level."""
SETTLE_S = 0.3
"""Frames in the first moments after start are the state the board was found in, not
toggles: a pearl left on a cell must not count as that cell working."""

CLEAR = "\x1b[H\x1b[2J"
HOME = "\x1b[H"
CLEAR_BELOW = "\x1b[J"
HIDE_CURSOR = "\x1b[?25l"
SHOW_CURSOR = "\x1b[?25h"
BOLD = "\x1b[1m"
RESET = "\x1b[0m"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "diag",
        help="see every sensor and LED work (for makers)",
        description="Live view of every channel by name, an LED walk, and the acceptance check.",
    )
    parser.add_argument("--config", type=Path, help="the config file (default: the usual places)")
    parser.add_argument(
        "--leds", action="store_true", help="walk every LED in red, green, blue and white"
    )
    parser.add_argument(
        "--dwell", type=float, default=0.4, metavar="SECONDS", help="time per LED colour"
    )
    parser.add_argument(
        "--check",
        type=float,
        nargs="?",
        const=acceptance.Timing.patience,
        metavar="SECONDS",
        help="the acceptance check, one step at a time; a step nothing happens in for "
        f"SECONDS (default {acceptance.Timing.patience:g}) counts as done",
    )
    parser.add_argument(
        "--max-rate",
        type=int,
        default=6,
        metavar="N",
        help="more than N toggles within one second counts as chatter (default 6)",
    )
    parser.add_argument(
        "--calibrate",
        nargs="?",
        const="",
        metavar="CELLS",
        help="calibrate the reflective sensors with your darkest pearl, keep it on the Pico "
        "and stop: every sensor, or only CELLS (c3,d3,t1,top)",
    )
    parser.add_argument("--pins", action="store_true", help="print the 40-pin header map")
    parser.add_argument(
        "--plain", action="store_true", help="one line per change, even on a terminal"
    )
    parser.set_defaults(handler=run)


# -- what was seen --------------------------------------------------------------------------


@dataclass
class ChannelStats:
    """How one channel behaved while watched."""

    toggles: int = 0
    worst_second: int = 0
    """The most toggles within any one second (chatter shows here)."""
    recent: deque[float] = field(default_factory=deque)


class Watch:
    """Counts what every channel did, from the frames a board delivered.

    >>> cmap = ChannelMap.default(cells=False)
    >>> watch = Watch(cmap, channels=8, baseline=frozenset())
    >>> watch.feed(SensorFrame(frozenset({0}), 1, at=1.0))
    [('t1', True)]
    >>> watch.stats[0].toggles, watch.name(7)
    (1, 'button:undo')
    """

    def __init__(self, cmap: ChannelMap, channels: int, baseline: frozenset[int]) -> None:
        self.cmap = cmap
        self.channels = channels
        self.baseline = baseline
        self.active = baseline
        self.unreadable: frozenset[int] = frozenset()
        self.stats: dict[int, ChannelStats] = {c: ChannelStats() for c in range(channels)}

    def name(self, channel: int) -> str:
        return self.cmap.name_by_channel.get(channel, f"#{channel}")

    def feed(self, frame: SensorFrame) -> list[tuple[str, bool]]:
        """Take one frame; the channels that changed, by name, and whether now active."""
        changed = sorted(frame.active ^ self.active)
        for channel in changed:
            stats = self.stats.setdefault(channel, ChannelStats())
            stats.toggles += 1
            stats.recent.append(frame.at)
            while stats.recent and stats.recent[0] <= frame.at - 1.0:
                stats.recent.popleft()
            stats.worst_second = max(stats.worst_second, len(stats.recent))
        self.active = frame.active
        return [(self.name(c), c in frame.active) for c in changed]

    def dazzled(self, frame: SensorFrame) -> list[str]:
        """Take one frame's unreadable channels; those that became unreadable, by name."""
        new = sorted(frame.unreadable - self.unreadable)
        self.unreadable = frame.unreadable
        return [self.name(c) for c in new]

    def problems(self, max_rate: int) -> list[str]:
        """Sentences for makers: what chattered, and channels without a name that moved.

        (Which sensors work is :mod:`~controller.cli.acceptance`'s to say.)
        """
        found: list[str] = []
        chatter = [
            f"{self.name(c)} ({s.worst_second} in one second)"
            for c, s in sorted(self.stats.items())
            if s.worst_second > max_rate
        ]
        if chatter:
            found.append(f"chattered (more than {max_rate} toggles a second): {', '.join(chatter)}")
        stray = [
            f"{self.name(c)} ({s.toggles}×)"
            for c, s in sorted(self.stats.items())
            if c not in self.cmap.name_by_channel and (s.toggles or c in self.active)
        ]
        if stray:
            found.append(f"channels with no name changed or read occupied: {', '.join(stray)}")
        return found


# -- drawing --------------------------------------------------------------------------------


def _mark(watch: Watch, channel: int | None, tty: bool) -> str:
    if channel is None:
        return "  - "
    stats = watch.stats.get(channel, ChannelStats())
    on = channel in watch.active
    mark = ("●" if on else "·") if tty else ("X" if on else ".")
    if tty and on:
        mark = f"{BOLD}{mark}{RESET}"
    return f"{mark}{stats.toggles:>3}"


BAR = 32
"""Characters in a level's bar."""
STATE_WORDS = {"empty": "empty", "present": "PIECE", "unreadable": "TOO BRIGHT"}


def level_bar(level: ChannelLevel, width: int = BAR) -> str:
    """One sensor's reading as a bar against its thresholds: ``:`` marks where a piece
    is gone (off), ``|`` where one is there (on); the scale is twice ``on``.

    >>> level_bar(ChannelLevel("present", 400, 173, 223), width=20)
    '███████:██|██████    400  off 173  on 223  PIECE'
    >>> level_bar(ChannelLevel("empty", 12, 173, 223), width=20)
    '       :  |           12  off 173  on 223  empty'
    """
    scale = max(2 * level.on, 1)

    def at(value: int) -> int:
        return min(width - 1, value * width // scale)

    cells = ["█" if i < min(width, level.level * width // scale) else " " for i in range(width)]
    cells[at(level.off)] = ":"
    cells[at(level.on)] = "|"
    word = STATE_WORDS.get(level.state, level.state)
    return f"{''.join(cells)} {level.level:>3}  off {level.off}  on {level.on}  {word}"


def render_levels(cmap: ChannelMap, levels: SensorLevels) -> list[str]:
    """A bar per named sensor that has a level, in the channel map's order."""
    lines = ["levels (lit less dark, ADC counts; ':' off, '|' on)"]
    for channel, level in enumerate(levels.channels):
        name = cmap.name_by_channel.get(channel)
        if name is None or level.state == "none":
            continue
        lines.append(f"  {name:<5} {level_bar(level)}")
    return lines


def render(
    watch: Watch,
    status_line: str,
    elapsed: float,
    tty: bool,
    levels: SensorLevels | None = None,
) -> str:
    """The whole view as text (no cursor movement)."""
    cmap = watch.cmap
    lines = [status_line, f"watching {elapsed:6.1f} s   (mark: occupied now; number: toggles)", ""]
    if cmap.has_cells:
        lines.append("      " + "".join(f"{f:<6}" for f in FILES).rstrip())
        for rank in range(5, 0, -1):
            row = [_mark(watch, cmap.channel_by_name.get(f"{f}{rank}"), tty) for f in FILES]
            lines.append(f"  {rank}   " + "  ".join(row))
        lines.append("")
    if cmap.has_targets:
        cells = [f"{t} {_mark(watch, cmap.channel_by_name.get(t), tty)}" for t in TARGETS]
        lines.append("targets  " + "   ".join(cells))
    buttons = [b for b in BUTTONS if b in cmap.channel_by_name]
    if buttons:
        marks = [
            f"{acceptance.BUTTON_WORDS.get(b, b)} {_mark(watch, cmap.channel(b), tty)}"
            for b in buttons
        ]
        lines.append("buttons  " + "   ".join(marks))
    stray = [
        f"{watch.name(c)} {_mark(watch, c, tty)}"
        for c in sorted(watch.stats)
        if c not in cmap.name_by_channel and (watch.stats[c].toggles or c in watch.active)
    ]
    if stray:
        lines.append("no name  " + "   ".join(stray))
    dazzled = sorted(watch.name(c) for c in watch.unreadable)
    if dazzled:
        lines.append(f"too bright to read (each keeps its state): {', '.join(dazzled)}")
    if levels is not None:
        lines.append("")
        lines.extend(render_levels(cmap, levels))
    return "\n".join(lines) + "\n"


class _Cpu:
    """The scan thread's CPU share between two status readings (gpio adapter)."""

    def __init__(self) -> None:
        self._last: tuple[int, int] | None = None

    def share(self, counters: dict[str, int]) -> str:
        if "scan_cpu_us" not in counters or "scan_wall_us" not in counters:
            return ""
        now = (counters["scan_cpu_us"], counters["scan_wall_us"])
        last, self._last = self._last, now
        if last is None or now[1] <= last[1]:
            return ""
        return f", scan CPU {100 * (now[0] - last[0]) / (now[1] - last[1]):.1f} %"


def status_line(board: Board, cpu: _Cpu) -> str:
    status = board.status()
    counters = dict(status.counters)
    extra = f"scans {counters['scans']}" if "scans" in counters else ""
    extra += cpu.share(counters)
    return f"{status.adapter}: {status.detail}" + (f"  [{extra}]" if extra else "")


# -- the three activities -------------------------------------------------------------------


def echo_frame(board: Board, cmap: ChannelMap, active: frozenset[int]) -> LedFrame:
    """Every occupied channel's LED in white, the rest off."""
    leds = [OFF] * board.leds
    for name in cmap.names_of(active):
        led = cmap.led(name)
        if led is not None and led < board.leds:
            leds[led] = Led(ECHO)
    return LedFrame(tuple(leds))


Told = Callable[[acceptance.Step], None]
"""Who else hears each step the check asks for, the finished one last (a scripted
person in the tests)."""
Listen = Callable[[Callable[[], None]], None]
"""Arranges for its argument to be called whenever the person says "done"."""
Post = Callable[[Callable[[], None]], None]
"""Runs its argument on the watch's own thread, in turn with the board's frames (those
that came before it first); the watch then reads its clock again and judges the step."""


class Guide:
    """Carries the acceptance check (:mod:`~controller.cli.acceptance`) through a
    watch: the board's frames, the person's "done" (``listen``) and the clock go in, each
    new step goes out (printed, and to ``told``); :attr:`check` is the check so far.

    ``attach`` receives a :data:`Post`: a test whose clock is virtual moves it on the
    watch's thread, after the frames the board sent before, so that every frame is
    judged at the time it belongs to. A real clock needs none.
    """

    def __init__(
        self,
        layout: acceptance.Layout,
        timing: acceptance.Timing,
        told: Told | None = None,
        listen: Listen | None = None,
        attach: Callable[[Post], None] | None = None,
    ) -> None:
        self.layout = layout
        self.timing = timing
        self.told = told
        self.listen = listen
        self.attach = attach
        self.check: acceptance.Check | None = None


_DONE = object()
"""In the event queue: the person said "done"."""


@dataclass(frozen=True)
class _Call:
    """In the event queue: something to run on the watch's thread (see :data:`Post`)."""

    call: Callable[[], None]


def _step_line(step: acceptance.Step) -> str:
    return f"next ({step.pass_.value}, {step.number} of {step.of}): {step.text}"


def watch_board(
    board: Board,
    cmap: ChannelMap,
    out: TextIO,
    *,
    tty: bool,
    duration: float | None = None,
    stop: threading.Event | None = None,
    settle: float = SETTLE_S,
    connect_timeout: float = 5.0,
    clock: Callable[[], float] = time.monotonic,
    guide: Guide | None = None,
) -> Watch:
    """Start ``board`` and watch it until ``duration`` passes or ``stop`` is set.

    With a ``guide``, a person is led through the acceptance check until it is finished
    (or Ctrl-C, which then ends the watch early instead of the command).
    """
    events: queue.SimpleQueue[SensorFrame | _Call | object] = queue.SimpleQueue()
    board.start(events.put)
    stop = stop or threading.Event()
    # A board on a link (the Pico) first has to be found; its first frame is then the
    # state it was found in, not a toggle. (The link's time is real whatever the clock.)
    found_by = time.monotonic() + connect_timeout
    if board.status().link is not LinkState.CONNECTED:
        out.write(f"waiting for the board: {board.status().detail}\n")
        out.flush()
        while board.status().link is not LinkState.CONNECTED and time.monotonic() < found_by:
            if stop.wait(0.05):
                break
    stop.wait(settle)
    while not events.empty():
        events.get_nowait()  # the state the board was found in
    watch = Watch(cmap, board.channels, board.read().active)
    watch.unreadable = board.read().unreadable
    if board.leds:
        board.show(echo_frame(board, cmap, watch.active))
    cpu = _Cpu()
    started = clock()
    deadline = None if duration is None else started + duration
    check: acceptance.Check | None = None
    if guide is not None:
        check = acceptance.start(guide.layout, guide.timing, now=started)
        guide.check = check = acceptance.seen(check, watch.active, started)
        if guide.listen is not None:
            guide.listen(lambda: events.put(_DONE))
        if guide.attach is not None:
            guide.attach(lambda call: events.put(_Call(call)))
    if tty:
        out.write(HIDE_CURSOR + CLEAR)
    else:
        out.write(render(watch, status_line(board, cpu), 0.0, tty))
    asked = -1
    last_draw = last_asked = -1.0
    try:
        while not stop.is_set():
            now = clock()
            if guide is not None and check is not None and check.steps_done != asked:
                asked = check.steps_done  # a new step (not the same one recounted)
                if not tty and not check.finished:
                    out.write(f"{now - started:8.3f}  {_step_line(check.step)}\n")
                    out.flush()
                if guide.told is not None:
                    guide.told(check.step)
                if check.finished:
                    break
            if deadline is not None and now >= deadline:
                break
            until = deadline if check is None else acceptance.next_deadline(check)
            wait = 0.25 if until is None else max(0.0, min(0.25, until - now))
            try:
                event: SensorFrame | _Call | object | None = events.get(timeout=wait)
            except queue.Empty:
                event = None
            if isinstance(event, _Call):
                event.call()
            now = clock()
            if isinstance(event, SensorFrame):
                changes = watch.feed(event)
                dazzled = watch.dazzled(event)
                if board.leds:
                    board.show(echo_frame(board, cmap, event.active))
                if not tty and (changes or dazzled):
                    marks = " ".join(("+" if on else "-") + name for name, on in changes)
                    marks = " ".join([marks, *(f"!{name}" for name in dazzled)]).strip()
                    out.write(f"{now - started:8.3f}  {marks}\n")
                    out.flush()
            if guide is not None and check is not None:
                if isinstance(event, SensorFrame):
                    check = acceptance.seen(check, event.active, now)
                elif event is _DONE:
                    check = acceptance.done(check, now)
                guide.check = check = acceptance.timer(check, now)
            if tty and now - last_asked >= LEVELS_EVERY_S:
                last_asked = now
                board.ask_levels()  # the answer shows in the next drawing
            if tty and (event is not None or now - last_draw >= 0.5):
                view = render(watch, status_line(board, cpu), now - started, tty, board.levels())
                if check is not None:
                    footer = (
                        f"{BOLD}{_step_line(check.step)}{RESET}\n"
                        "Enter when done (or just wait); Ctrl-C ends with the report so far"
                    )
                elif deadline is None:
                    footer = "Ctrl-C ends"
                else:
                    footer = f"{max(0.0, deadline - now):.0f} s to go (Ctrl-C ends)"
                out.write(HOME + view.replace("\n", "\x1b[K\n") + footer + CLEAR_BELOW)
                out.flush()
                last_draw = now
    except KeyboardInterrupt:
        if guide is None:
            raise
        out.write("\n(check ended early)\n")  # the report of what was seen follows
    finally:
        if tty:
            out.write(SHOW_CURSOR + "\n")
            out.flush()
    if not tty:
        out.write(render(watch, status_line(board, cpu), clock() - started, tty))
    return watch


def report(check: acceptance.Check, watch: Watch, max_rate: int, out: TextIO) -> int:
    """Print what the check saw and its likely causes; the exit status (0: all good)."""
    stayed = [f.asked for f in check.findings if f.kind is acceptance.Kind.STAYED]
    findings = [
        f.text for f in check.findings if f.kind is not acceptance.Kind.STAYED or len(stayed) < 2
    ]
    if len(stayed) >= 2:  # a missing diode leaves many: one line
        findings.append(f"lifted with the rest full, these stayed occupied: {', '.join(stayed)}")
    noise = watch.problems(max_rate)
    out.write(f"\ncheck: {check.steps_done} steps\n")
    for text in findings + noise:
        out.write(f"  seen: {text}\n")
    likely = causes(check)
    for cause in likely:
        out.write(f"  likely: {cause.text}\n")
    if findings or noise:
        out.write(f"check: problems found, {len(likely)} likely cause(s) named\n")
        return 1
    if not check.finished:
        out.write(f"check: ended early in the {check.step.pass_.value} pass, no problem so far\n")
        return 1
    out.write("check: all good\n")
    return 0


def walk_leds(
    board: Board,
    cmap: ChannelMap,
    out: TextIO,
    *,
    dwell: float,
    stop: threading.Event | None = None,
) -> None:
    """Light every LED alone in each colour of :data:`WALK`, saying which it is."""
    stop = stop or threading.Event()
    if not board.leds:
        out.write("this board has no LEDs\n")
        return
    try:
        for led in range(board.leds):
            name = cmap.name_by_led.get(led, f"#{led} (no name)")
            for colour_name, colour in WALK:
                if stop.is_set():
                    return
                leds = [OFF] * board.leds
                leds[led] = Led(colour)
                board.show(LedFrame(tuple(leds)))
                out.write(f"LED {led:3d}  {name:<16} {colour_name}\n")
                out.flush()
                stop.wait(dwell)
    finally:
        board.show(LedFrame.blank(board.leds))


def header_map(config: Config) -> str:
    """The 40-pin header, both columns, with what the config puts on each pin."""
    uses: dict[int, str] = {}
    cmap = config.board.channel_map
    gpio = config.board.gpio

    def name(channel: int) -> str:
        return cmap.name_by_channel.get(channel, "-").removeprefix("button:")

    if config.board.adapter == "gpio":
        width = len(gpio.cols)
        for key_gpio, key in gpio.roles():
            group, index = key.removeprefix("board.gpio.").rstrip("]").partition("[")[::2]
            i = int(index) if index else 0
            if group == "rows":
                names = [name(i * width + c) for c in range(width)]
                uses[key_gpio] = f"row {i}: {' '.join(names)}"
            elif group == "cols":
                names = [name(r * width + i) for r in range(len(gpio.rows))]
                uses[key_gpio] = f"column {i}: {' '.join(names)}"
            elif group == "pins":
                uses[key_gpio] = f"sensor {cmap.name_by_channel.get(i, f'#{i} (no name)')}"
            elif group == "select":
                uses[key_gpio] = f"mux S{i}"
            elif group == "signals":
                uses[key_gpio] = f"mux {i} SIG (channels {16 * i}–{16 * i + 15})"
            else:
                uses[key_gpio] = "mux EN (low = on)"
        spi = config.leds.spi
        if spi is not None and cmap.led_count:
            uses[spi.clock] = "LED clock (CI)" + (" SPI0 SCLK" if spi.hardware else "")
            uses[spi.mosi] = "LED data (DI)" + (" SPI0 MOSI" if spi.hardware else "")
            uses[spi.chip_select] = "SPI chip select (not wired)"
            if spi.hardware:
                uses.setdefault(9, "SPI0 MISO (kernel; not wired)")
                uses.setdefault(7 if spi.chip_select == 8 else 8, "SPI0 CE (kernel; not wired)")
    if config.board.adapter == "gpio" and config.buzzer is not None:
        uses[config.buzzer.pin] = "buzzer: 220 Ω to the piezo (its other lead to GND)"
    power = {1: "3V3", 2: "5V", 4: "5V", 17: "3V3", 27: "ID_SD", 28: "ID_SC"}
    power.update({p: "GND" for p in (6, 9, 14, 20, 25, 30, 34, 39)})
    gpio_at = {pin: bcm for bcm, pin in HEADER_PIN.items()}

    def cell(pin: int) -> tuple[str, str]:
        if pin in gpio_at:
            bcm = gpio_at[pin]
            return f"GPIO{bcm}", uses.get(bcm, "")
        return power[pin], ""

    where = str(config.source) if config.source else "built-in defaults"
    lines = [f"40-pin header for {where} (adapter {config.board.adapter})", ""]
    for odd in range(1, 40, 2):
        (left_name, left_use), (right_name, right_use) = cell(odd), cell(odd + 1)
        lines.append(
            f"{left_use:>44} {left_name:>6} [{odd:2d}] [{odd + 1:2d}] {right_name:<6} {right_use}"
        )
    return "\n".join(line.rstrip() for line in lines) + "\n"


# -- the command ----------------------------------------------------------------------------

CHECK_INTRO = """\
The acceptance check: it asks for one thing at a time. Use the probe pearl (a pearl
with its magnet) for the single cells, and the whole set for the full board. When a
step is done the check moves on by itself; if nothing seems to happen, press Enter.
Ctrl-C ends it with the report so far. (hardware/README.md, "Acceptance check")

"""

PICO_PIN: dict[int, int] = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
    13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31,
    27: 32, 28: 34,
}  # fmt: skip
"""GPIO number -> the Pico's own pin number (Raspberry Pi Ltd, *Raspberry Pi Pico
Datasheet*, the pinout figure of section 1; hardware/README.md's Pico table)."""

PICO_ROWS = "ROW_PINS in the Pico's config.py (firmware/config.py; `pyramid flash` copies it)"
PICO_COLUMNS = "COLUMN_PINS in the Pico's config.py (firmware/config.py; `pyramid flash` copies it)"


def matrix_wires(config: Config) -> acceptance.Wires | None:
    """The rows and columns of the board's diode matrix, with the pin each is on; None
    when its sensors are not in one. A Pico's pins are those of firmware/config.py, the
    file `pyramid flash` puts on it (the Pico does not report them)."""
    if config.board.adapter == "serial":
        return pico_wires()
    gpio = config.board.gpio
    if config.board.adapter == "gpio" and gpio.topology == "matrix":

        def pi(bcm: int) -> acceptance.Wire:
            return acceptance.Wire(f"GPIO {bcm}", f"header pin {HEADER_PIN[bcm]}", str(bcm))

        return acceptance.Wires(
            tuple(pi(g) for g in gpio.rows),
            tuple(pi(g) for g in gpio.cols),
            "[board.gpio] rows",
            "[board.gpio] cols",
        )
    return None


def pico_wires(
    rows: Sequence[int] = pico_config.ROW_PINS, columns: Sequence[int] = pico_config.COLUMN_PINS
) -> acceptance.Wires:
    """The Pico's matrix wires (by default those of firmware/config.py)."""

    def pico(gp: int) -> acceptance.Wire:
        place = f"Pico pin {PICO_PIN[gp]}" if gp in PICO_PIN else "the Pico"
        return acceptance.Wire(f"GP{gp}", place, str(gp))

    return acceptance.Wires(
        tuple(pico(g) for g in rows), tuple(pico(g) for g in columns), PICO_ROWS, PICO_COLUMNS
    )


def check_layout(config: Config, cmap: ChannelMap) -> acceptance.Layout:
    """What the acceptance check knows of the board ``config`` builds."""
    wires = matrix_wires(config)
    return acceptance.Layout.of(cmap, None if wires is None else len(wires.columns), wires)


def _enter_key(on_done: Callable[[], None]) -> None:
    """Every Enter on the terminal says "done" (a daemon thread: it ends with the command)."""

    def read() -> None:
        for _ in sys.stdin:
            on_done()

    threading.Thread(target=read, name="diag-enter", daemon=True).start()


NO_SENSORS = """\
check: the simulated board has no sensors to touch, so there is nothing to check.
  The config (or no config at all) chooses [board] adapter = "sim": the board that the
  web page plays while `pyramid run` runs (`make run`, then open the page).
  To check a real board, point diag at its config, e.g.
    pyramid diag --config configs/matrix.toml --check
  (hardware/README.md, "First power-on with pyramid diag").
"""


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"pyramid diag: config: {exc}", file=sys.stderr)
        return 2
    if args.pins:
        out.write(header_map(config))
        return 0
    if args.check is not None and args.check <= 0:
        print("pyramid diag: --check needs a number of seconds above 0", file=sys.stderr)
        return 2
    if (args.check is not None or args.calibrate is not None) and config.board.adapter == "sim":
        out.write(NO_SENSORS)
        return 0
    try:
        board, cmap = build_board(config)
    except ConfigError as exc:
        print(f"pyramid diag: config: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a pin in use, no SPI, no port: say it, plainly
        print(f"pyramid diag: cannot open the board: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    if args.calibrate is not None:
        return _calibrate_only(board, cmap, args.calibrate, out, config.board.serial.silence_s)
    tty = out.isatty() and not args.plain
    status = 0
    with board:
        try:
            if args.leds:
                walk_leds(board, cmap, out, dwell=max(0.0, args.dwell))
            if args.check is not None:
                # The board may take as long to answer as the link lets it stay silent.
                answer = config.board.serial.silence_s
                calibrated = calibrate.calibrate(
                    board, cmap, out, timing=calibrate.Timing(patience=args.check, answer=answer)
                )
                if calibrated is not None and (calibrated.weak() or calibrated.missing):
                    status = 1
                timing = acceptance.Timing(patience=args.check)
                layout = check_layout(config, cmap)
                listen = _enter_key if sys.stdin is not None and sys.stdin.isatty() else None
                out.write(CHECK_INTRO)
                guide = Guide(layout, timing, listen=listen)
                watch = watch_board(board, cmap, out, tty=tty, guide=guide)
                assert guide.check is not None
                status = max(status, report(guide.check, watch, args.max_rate, out))
            elif not args.leds:
                watch_board(board, cmap, out, tty=tty)
        except KeyboardInterrupt:
            out.write("\n")
        except BrokenPipeError:
            # `pyramid diag | head` closed the pipe: stop quietly, as other tools do.
            with contextlib.suppress(OSError):
                sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - outlives this call
    return status


NOT_CALIBRATED = """\
calibration: nothing calibrated. Only the reflective Pico board keeps a calibration, with
  firmware that offers it (`pyramid flash` brings it), once it answers: `pyramid diag`
  shows whether it does (hardware/README.md, "Calibrating every cell").
"""


def _calibrate_only(board: Board, cmap: ChannelMap, cells: str, out: TextIO, answer: float) -> int:
    """``--calibrate [CELLS]``: the calibration alone, of every sensor or those named;
    ``answer``: how long the board may take to answer (as long as the link lets it stay
    silent, ``[board.serial] silence_s``)."""
    names = [name.strip() for name in cells.split(",") if name.strip()]
    unknown = [name for name in names if name not in cmap.channel_by_name]
    if unknown:
        known = ", ".join(sorted(n for n in cmap.channel_by_name if not n.startswith("button:")))
        print(
            f"pyramid diag: --calibrate: no sensor named {', '.join(unknown)} "
            f"(this board's: {known})",
            file=sys.stderr,
        )
        return 2
    only = tuple(cmap.channel_by_name[name] for name in names) or None
    with board:
        try:
            # A board just plugged in boots first: wait for it as long as for a pearl.
            timing = calibrate.Timing(connect=calibrate.Timing().patience, answer=answer)
            result = calibrate.calibrate(board, cmap, out, timing=timing, only=only)
        except KeyboardInterrupt:
            out.write("\ncalibration: stopped; the cells calibrated so far are kept\n")
            return 1
    if result is None:
        out.write(NOT_CALIBRATED)
        return 1
    return 1 if result.weak() or result.missing or result.unsaved else 0

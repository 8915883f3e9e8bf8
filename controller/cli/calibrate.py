"""``pyramid diag --check``'s calibration: every reflective cell's empty level and its level
with the family's darkest pearl measured, its two marks set between them and kept on the
Pico (issue 35, "Every cell calibrated"), and every cell that cannot tell them apart well
named, with its figures and what to do.

On a board that says ``HAS calib`` (the reflective Pico firmware), before the acceptance
check: the board empty, every sensor's level is read a few times (its empty level: the
median); then, sensor by sensor, the person puts the darkest pearl (a ball, on a target or
the top) on it and lifts it again; its level while the pearl rests there (the lowest of
four readings, once two more have passed: its weakest rest) is the pearl's. The marks,
over the empty level, follow the optics model (hardware/README.md, "A reading room light
cannot fool"): a hand 5 mm over an empty hollow reflects :data:`HAND_SHARE` of what the
build's darkest pearl does on the same part, so the off mark is twice that share of the
pearl's reflection, the on mark as far under the pearl as the off mark is over the empty
level (the shipped firmware's marks are these for the darkest pearl on a minimum part);
each cell's figures go to the board at once (``K``), which keeps them on its flash across
power cycles. A cell whose pearl level is less than twice its empty level, or whose on
mark is within a quarter of a hand over it on a typical part (:data:`HAND_COUNTS`: a pearl
too dark), is named.

The figures are the firmware's ADC counts (12.41 per µA of collector current over the 10 kΩ
load). Pure planning (:func:`marks`, :func:`advice`) is apart from the talking
(:func:`calibrate`), which reads the board through :class:`~controller.hardware.port.Board`.
"""

from __future__ import annotations

import math
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

from controller.hardware.channels import ChannelMap
from controller.hardware.port import Board, BoardCalibration, LinkState, SensorLevels

ADC_PER_UA = 4096 / 3300 * 10.0
"""ADC counts per µA of collector current through the 10 kΩ load."""
DARK_PEARL_UA = 32.0
"""The build's darkest pearl (reflectance 0.2) at its weakest rest, on a minimum part
(hardware/README.md, "A reading room light cannot fool")."""
HAND_UA = 7.0
"""Skin (about 0.5 at 950 nm) 5 mm over an empty hollow, on a minimum part (issue 35)."""
TYPICAL_GAIN = 0.5 / 0.3
"""A typical TCRT1000 over a minimum one (Vishay doc. 83752: I_C 0.5 mA typical, 0.3 mA
minimum at 1 mm on a 90 % card)."""
HAND_SHARE = HAND_UA / DARK_PEARL_UA
"""A hand's reflection over the darkest pearl's, on any one part (0.22)."""
OFF_SHARE = 2 * HAND_SHARE
"""The off mark, as a share of the pearl's reflection over the empty level (0.44)."""
ON_SHARE = 1 - OFF_SHARE
"""The on mark's share (0.56): as far under the pearl as the off mark is over empty."""
HAND_COUNTS = round(HAND_UA * TYPICAL_GAIN * ADC_PER_UA)
"""A hand 5 mm over an empty hollow on a typical part (145 counts)."""
WEAK_RATIO = 2.0
"""A pearl level less than this times the empty level is named (issue 35)."""
SEEN_COUNTS = 24
"""A pearl is taken as put down once its cell reads this much (2 µA) over the empty
level's spread above it; one that reads less over the empty level has no marks."""
MOST = 4095


@dataclass(frozen=True, slots=True)
class Timing:
    """How often the board's levels are read, and how long a person has per cell."""

    every: float = 0.25
    """Seconds between two readings of every level (``L?``)."""
    patience: float = 20.0
    """Seconds to wait for a pearl to be put down (or lifted) before going on, counted in
    readings (``patience / every`` of them): a board slow to answer gives a person more
    time, never less."""
    connect: float = 5.0
    """Seconds to wait for the board to be found."""
    answer: float = 2.0
    """Seconds to wait for the board's answer to ``L?`` or ``K?``."""

    def __post_init__(self) -> None:
        if self.every <= 0:
            raise ValueError("calibrate.Timing.every must be positive")


@dataclass(frozen=True, slots=True)
class Marks:
    """One cell's calibration: its measured levels and the marks set over its empty level."""

    empty: int
    pearl: int
    off: int
    on: int

    @property
    def ratio(self) -> float:
        """The pearl's level over the empty level's (∞ for an empty level of 0)."""
        return self.pearl / self.empty if self.empty > 0 else float("inf")

    @property
    def near_hand(self) -> bool:
        """A hand 5 mm over the empty cell (on a typical part) reads within a quarter of
        the on mark: the pearl is too dark for this cell to tell them apart."""
        return self.on < HAND_COUNTS + HAND_COUNTS // 4

    @property
    def weak(self) -> bool:
        return self.ratio < WEAK_RATIO or self.near_hand


def marks(empty: int, pearl: int) -> Marks | None:
    """The marks for a cell whose empty level is ``empty`` and pearl level ``pearl``
    (the off mark :data:`OFF_SHARE` of the pearl's reflection over the empty level, the
    on mark :data:`ON_SHARE`); None when the pearl does not read above the empty level.

    >>> marks(186, 583)
    Marks(empty=186, pearl=583, off=174, on=223)
    >>> marks(186, 285).weak, marks(186, 583).weak
    (True, False)
    >>> marks(186, 200) is None
    True
    """
    signal = pearl - empty
    if signal < SEEN_COUNTS:
        return None
    off = max(1, round(OFF_SHARE * signal))
    on = max(off + 1, round(ON_SHARE * signal))
    if empty + on > MOST:
        return None
    return Marks(empty, pearl, off, on)


def advice(name: str, cell: Marks) -> str:
    """What a maker reads of a weak cell: its figures and what to do."""
    figures = f"pearl {cell.pearl}, empty {cell.empty} (×{cell.ratio:.2f})"
    if cell.ratio < WEAK_RATIO:
        why = f"{name}: {figures}, less than ×{WEAK_RATIO:g} apart"
        todo = (
            "blacken the window wall with carbon black (a marker's ink is clear in the "
            "infrared), check the hollow (the pearl must rest on it), or use a lighter pearl"
        )
    else:
        why = f"{name}: {figures}: a hand 5 mm over it reads close to the pearl"
        todo = "use a lighter pearl, or check the hollow (the pearl must rest on it)"
    return f"{why}; {todo}"


@dataclass
class Result:
    """What the calibration found: each sensor's marks, and what it could not do."""

    cells: dict[int, Marks]
    missing: list[int]
    """Sensors no pearl was seen on (within the patience)."""
    unsaved: list[int]
    """Sensors the board did not keep (its flash would not, or no answer)."""

    def weak(self) -> list[int]:
        return [channel for channel, cell in self.cells.items() if cell.weak]


ASKS = 3
"""How many times a reading is asked for before the board is taken as silent."""


class _Reader:
    """Every level of ``board``, read again every ``timing.every`` seconds."""

    def __init__(self, board: Board, timing: Timing, stop: threading.Event) -> None:
        self.board = board
        self.timing = timing
        self.stop = stop
        self.last = -1.0

    def next(self) -> SensorLevels | None:
        """The board's next levels (None: it said none to ``ASKS`` questions in a row, or
        stopped). A question is asked again when its answer does not come: a line lost
        on the wire (dropped as junk) costs one ``timing.answer``, not the cell."""
        for _ in range(ASKS):
            asked = time.monotonic()
            deadline = asked + self.timing.answer
            if not self.board.ask_levels():
                return None
            while not self.stop.is_set() and time.monotonic() < deadline:
                levels = self.board.levels()
                if levels is not None and levels.at > self.last and levels.at >= asked:
                    self.last = levels.at
                    if self.stop.wait(max(0.0, asked + self.timing.every - time.monotonic())):
                        return None
                    return levels
                self.stop.wait(min(0.02, self.timing.every / 4))
            if self.stop.is_set():
                return None
        return None


def _name(cmap: ChannelMap, channel: int) -> str:
    return cmap.name_by_channel.get(channel, f"channel {channel}")


def _piece(name: str) -> str:
    if name.startswith("t") and name[1:].isdigit():
        return f"a ball on target {name}"
    if name == "top":
        return "a ball on the top"
    return f"the darkest pearl on {name}"


def calibrate(
    board: Board,
    cmap: ChannelMap,
    out: TextIO,
    *,
    timing: Timing | None = None,
    only: Sequence[int] | None = None,
    stop: threading.Event | None = None,
    told: Callable[[int | None, bool], None] | None = None,
) -> Result | None:
    """Calibrate ``board``'s reflective sensors (``only`` some channels: all), printing
    each step on ``out``; ``told`` hears each step as it is asked for: ``(channel, True)``
    put a pearl on it, ``(channel, False)`` lift it, ``(None, False)`` the empty board.
    None when the board cannot keep a calibration (it said so)."""
    if type(board).can_calibrate is Board.can_calibrate:
        return None  # a kind of board that never keeps a calibration (switches, the sim)
    timing = timing or Timing()
    stop = stop or threading.Event()
    board.start()  # (a second start, the live view's, only hands it a listener)
    found_by = time.monotonic() + timing.connect
    while board.status().link is not LinkState.CONNECTED:
        if time.monotonic() >= found_by or stop.wait(0.05):
            return None  # the live view that follows says what it waits for
    said_by = time.monotonic() + timing.answer  # HAS follows HELLO
    while not board.can_calibrate():
        if time.monotonic() >= said_by or stop.wait(0.05):
            if board.ask_levels():  # a reflective Pico whose firmware is older
                out.write(
                    "calibration: this Pico's firmware keeps no calibration; "
                    "`pyramid flash` brings one that does\n"
                )
            return None
    reader = _Reader(board, timing, stop)
    write = out.write

    write("calibration: keep the board empty (no pearl, no ball, no hand over it)\n")
    out.flush()
    if told is not None:
        told(None, False)
    samples: dict[int, list[int]] = {}
    for _ in range(8):
        levels = reader.next()
        if levels is None:
            write("calibration: the board did not say its levels; nothing calibrated\n")
            return Result({}, [], [])
        for channel, level in enumerate(levels.channels):
            if level.state != "none" and (only is None or channel in only):
                samples.setdefault(channel, []).append(level.level)
    empty = {c: round(statistics.median(v)) for c, v in samples.items()}
    spread = {c: max(v) - min(v) for c, v in samples.items()}
    sensors = sorted(empty, key=lambda c: _name(cmap, c))
    write(
        f"calibration: {len(sensors)} sensors empty at {min(empty.values(), default=0)}"
        f"–{max(empty.values(), default=0)} counts\n"
    )
    result = Result({}, [], [])
    for number, channel in enumerate(sensors, start=1):
        name = _name(cmap, channel)
        write(f"[{number:2d}/{len(sensors)}] put {_piece(name)}\n")
        out.flush()
        if told is not None:
            told(channel, True)
        seen = empty[channel] + spread[channel] + SEEN_COUNTS
        # Six readings in a row over the empty level; the first two may catch the pearl
        # still coming down (or the scan it landed in), the lowest of the rest is its rest.
        run = _settled(reader, channel, timing, above=seen, count=6)
        pearl = None if run is None else run[2:]
        if pearl is None:
            result.missing.append(channel)
            write(f"        {name}: no pearl seen (its level stays near {empty[channel]})\n")
            continue
        cell = marks(empty[channel], min(pearl))
        if cell is None:
            result.missing.append(channel)
            write(
                f"        {name}: its pearl reads {min(pearl)}, empty {empty[channel]}: no marks\n"
            )
            continue
        result.cells[channel] = cell
        board.calibrate(channel, cell.empty, cell.off, cell.on)
        write(
            f"        {name}: pearl {cell.pearl}, empty {cell.empty} (×{cell.ratio:.1f}): "
            f"marks {cell.empty + cell.off} off, {cell.empty + cell.on} on; lift it\n"
        )
        out.flush()
        if told is not None:
            told(channel, False)
        gone = empty[channel] + spread[channel] + SEEN_COUNTS // 2
        _settled(reader, channel, timing, below=gone, count=2)
    result.unsaved = _kept(board, result, timing, stop)
    _report(cmap, result, out)
    return result


def _settled(
    reader: _Reader,
    channel: int,
    timing: Timing,
    *,
    above: int | None = None,
    below: int | None = None,
    count: int = 4,
) -> list[int] | None:
    """The levels of ``channel`` once ``count`` readings in a row are at ``above`` or
    more (or under ``below``); None when they are not within the patience (a reading takes
    ``timing.every`` or longer: :meth:`_Reader.next`)."""
    run: list[int] = []
    for _ in range(max(count, math.ceil(timing.patience / timing.every))):
        levels = reader.next()
        if levels is None:
            return None
        level = levels.channels[channel]
        holds = level.level >= above if above is not None else level.level < (below or 0)
        if level.state != "unreadable" and holds:
            run.append(level.level)
            if len(run) >= count:
                return run
        else:
            run = []
    return None


def _kept(board: Board, result: Result, timing: Timing, stop: threading.Event) -> list[int]:
    """The calibrated channels the board does not say it keeps on its flash. Asked up to
    ``ASKS`` times: an answer to ``K?`` that does not come is asked for again, and the
    cells an answer shows not kept are sent again before the next question (a line lost
    on the wire costs a question, not the cell's calibration)."""
    unkept = sorted(result.cells)
    for ask in range(ASKS):
        table = _table(board, timing, stop)
        if stop.is_set():
            break
        if table is None:
            continue
        unkept = [channel for channel in unkept if not _holds(table, channel, result.cells)]
        if not unkept or ask == ASKS - 1:
            break
        for channel in unkept:
            cell = result.cells[channel]
            board.calibrate(channel, cell.empty, cell.off, cell.on)
    return unkept


def _holds(table: BoardCalibration, channel: int, cells: dict[int, Marks]) -> bool:
    """Whether the board's ``table`` keeps ``channel`` with the marks it was sent."""
    kept, sent = table.channels[channel], cells[channel]
    return kept.state == "calibrated" and (kept.off, kept.on) == (sent.off, sent.on)


def _table(board: Board, timing: Timing, stop: threading.Event) -> BoardCalibration | None:
    """The board's answer to one ``K?`` (None: none within ``timing.answer``)."""
    asked = time.monotonic()
    board.ask_calibration()
    while time.monotonic() < asked + timing.answer and not stop.is_set():
        table = board.calibration()
        if table is not None and table.at >= asked:
            return table
        stop.wait(0.02)
    return None


def _report(cmap: ChannelMap, result: Result, out: TextIO) -> None:
    kept = len(result.cells) - len(result.unsaved)
    out.write(f"calibration: {_count(kept, 'sensor')} calibrated and kept on the board\n")
    for channel in result.unsaved:
        out.write(f"  {_name(cmap, channel)}: not kept on the board's flash (flash it again)\n")
    for channel in result.missing:
        out.write(
            f"  {_name(cmap, channel)}: no pearl seen: check its sensor and wiring "
            "(hardware/README.md, 'First power-on with pyramid diag'); it keeps learning\n"
        )
    weak = result.weak()
    if weak:
        out.write(f"calibration: {_count(len(weak), 'weak cell')}, with what to do:\n")
    for channel in weak:
        out.write(f"  {advice(_name(cmap, channel), result.cells[channel])}\n")
    out.flush()


def _count(n: int, thing: str) -> str:
    """``1 weak cell``, ``2 weak cells``."""
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"

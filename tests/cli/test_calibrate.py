"""``pyramid diag --check``'s calibration (controller/cli/calibrate.py): where its marks go
for the optics model's parts and pieces, and which boards it leaves alone. It runs against
the emulated Pico in tests/firmware/test_emulated_calibration.py."""

from __future__ import annotations

import io
import runpy
import time

import pytest

from controller.cli import calibrate
from controller.cli.calibrate import HAND_COUNTS, Marks, advice, marks
from controller.hardware.channels import ChannelMap
from controller.hardware.port import (
    BoardCalibration,
    CellCalibration,
    ChannelLevel,
    SensorLevels,
)
from controller.hardware.sim import SimBoard
from firmware.sim.harness import FIRMWARE_DIR
from rigs import room


def test_the_figures_are_the_optics_models() -> None:
    assert calibrate.ADC_PER_UA == room.ADC_PER_UA
    assert calibrate.DARK_PEARL_UA == room.DARK_PEARL_UA
    assert calibrate.HAND_UA == room.HAND_UA
    assert calibrate.TYPICAL_GAIN == room.TYPICAL_GAIN


def test_the_darkest_pearl_on_a_minimum_part_gets_the_shipped_marks() -> None:
    """The shipped firmware's fixed marks are the calibration's for the build's darkest
    pearl (32 µA at its weakest rest) on a minimum part over an empty level of cross
    talk (1 µA): one count apart at most."""
    shipped = runpy.run_path(str(FIRMWARE_DIR / "config.py"))
    empty = round(room.CROSSTALK_UA * room.ADC_PER_UA)
    pearl = empty + round(room.DARK_PEARL_UA * room.ADC_PER_UA)
    cell = marks(empty, pearl)
    assert cell is not None and not cell.weak
    assert abs(cell.off - shipped["OFF_COUNTS"]) <= 1
    assert abs(cell.on - shipped["ON_COUNTS"]) <= 1


@pytest.mark.parametrize("gain", [1.0, room.TYPICAL_GAIN, 2.5])
@pytest.mark.parametrize("wall", [0.0, 0.3, 0.5])
@pytest.mark.parametrize("rho", [0.2, 0.4, 0.8])
def test_a_pearl_is_seen_and_a_hand_is_not_on_every_part(
    gain: float, wall: float, rho: float
) -> None:
    """On any part (its gain over a minimum one), window wall and pearl at least as light
    as the build's darkest: the pearl at its weakest rest reads over its on mark by a
    sixth of its reflection or more, and a hand 5 mm over the empty cell on that part
    stays under its off mark (the on mark is a sixth further) by a factor of two."""
    per_ua = room.ADC_PER_UA * gain
    empty = round((room.CROSSTALK_UA + room.WALL_UA_PER_RHO * wall) * per_ua)
    reflection = round(room.DARK_PEARL_UA * rho / 0.2 * per_ua)
    cell = marks(empty, empty + reflection)
    assert cell is not None
    assert reflection - cell.on >= reflection // 6
    hand = room.HAND_UA * per_ua
    assert 2 * hand <= cell.off + 1
    assert cell.weak == (cell.ratio < 2 or cell.on < HAND_COUNTS * 5 / 4)


def test_a_pearl_too_dark_is_named_with_its_figures_and_what_to_do() -> None:
    carbon = marks(186, 186 + 99)  # a carbon-black finish (0.05) over a 0.5 wall
    assert carbon is not None and carbon.weak and carbon.near_hand
    said = advice("c3", carbon)
    assert said.startswith("c3: pearl 285, empty 186 (×1.53), less than ×2 apart; ")
    assert "carbon black" in said and "check the hollow" in said and "lighter pearl" in said
    # Far enough from the empty level, but a hand would read close to it: named too.
    close = Marks(empty=12, pearl=240, off=100, on=128)
    assert close.weak and close.ratio > 2
    assert "a hand 5 mm over it reads close to the pearl" in advice("a1", close)
    assert marks(186, 200) is None  # no pearl seen over the empty level


def test_a_board_that_keeps_no_calibration_is_left_alone() -> None:
    """Switches and the simulated board: nothing is asked, the board is not started."""
    cmap = ChannelMap.matrix()
    board = SimBoard(cmap.channel_count, cmap.led_count)
    out = io.StringIO()
    assert calibrate.calibrate(board, cmap, out) is None
    assert out.getvalue() == ""
    assert not board.can_calibrate() and not board.calibrate(14, 12, 173, 223)
    assert board.calibration() is None and not board.ask_calibration()


class SlowPico(SimBoard):
    """What it models: a reflective Pico that keeps a calibration and answers every
    ``L?`` ``lag`` seconds after it was asked (a loaded or slow board), with one
    reflective cell, c3; the person at it puts the pearl down only at the third reading
    after being asked, and lifts it at once. The levels and the kept table are the port's
    types; the serial line itself is tests/firmware/test_emulated_calibration.py's."""

    def __init__(self, cmap: ChannelMap, lag: float) -> None:
        super().__init__(cmap.channel_count, cmap.led_count)
        self.c3 = cmap.channel_by_name["c3"]
        self.lag = lag
        self.asked = 0.0
        self.readings = 0
        self.pearl_from: int | None = None  # the reading the pearl is down from
        self.kept: dict[int, tuple[int, int, int]] = {}

    def told(self, channel: int | None, put: bool) -> None:
        self.pearl_from = self.readings + 3 if put and channel == self.c3 else None

    def can_calibrate(self) -> bool:
        return True

    def ask_levels(self) -> bool:
        self.asked = time.monotonic()
        return True

    def levels(self) -> SensorLevels | None:  # type: ignore[override]
        now = time.monotonic()
        if now < self.asked + self.lag:
            return None  # the answer is on its way
        self.readings += 1
        down = self.pearl_from is not None and self.readings >= self.pearl_from
        cells = [ChannelLevel("none", 0, 0, 0)] * self.channels
        cells[self.c3] = ChannelLevel("present" if down else "empty", 900 if down else 180, 40, 50)
        self.asked = float("inf")  # one answer per question
        return SensorLevels(tuple(cells), now)

    def calibrate(self, channel: int, empty: int, off: int, on: int) -> bool:
        self.kept[channel] = (empty, off, on)
        return True

    def ask_calibration(self) -> bool:
        return True

    def calibration(self) -> BoardCalibration | None:
        cells = [CellCalibration("none", 0, 0, 0)] * self.channels
        for channel, (empty, off, on) in self.kept.items():
            cells[channel] = CellCalibration("calibrated", empty, off, on)
        return BoardCalibration(tuple(cells), time.monotonic())


def test_a_board_slow_to_answer_gives_a_person_more_time_not_less() -> None:
    """The patience is counted in readings (``patience / every``), so a board whose
    answers take five times ``every`` still gives the person ten readings: the pearl put
    down at the third is seen and kept. Counted in seconds, as it was, the 0.1 s of
    patience held about two readings, and c3 was "no pearl seen" (the emulated Pico's
    calibration under a loaded machine failed so)."""
    cmap = ChannelMap.default()
    board = SlowPico(cmap, lag=0.05)
    out = io.StringIO()
    timing = calibrate.Timing(every=0.01, patience=0.1, connect=1.0, answer=5.0)
    result = calibrate.calibrate(board, cmap, out, timing=timing, only=[board.c3], told=board.told)
    assert result is not None, out.getvalue()
    assert list(result.cells) == [board.c3] and not result.missing, out.getvalue()
    assert "1 sensor calibrated and kept on the board" in out.getvalue()
    assert board.kept[board.c3] == (180, result.cells[board.c3].off, result.cells[board.c3].on)

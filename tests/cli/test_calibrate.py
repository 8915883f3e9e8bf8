"""``pyramid diag --check``'s calibration (controller/cli/calibrate.py): where its marks go
for the optics model's parts and pieces, and which boards it leaves alone. It runs against
the emulated Pico in tests/firmware/test_emulated_calibration.py."""

from __future__ import annotations

import io
import runpy

import pytest

from controller.cli import calibrate
from controller.cli.calibrate import HAND_COUNTS, Marks, advice, marks
from controller.hardware.channels import ChannelMap
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

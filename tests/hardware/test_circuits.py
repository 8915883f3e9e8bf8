"""The matrix, the multiplexers and the Pico's scan in ngspice: levels, settle times, margins.

The netlists are hardware/spice/*.cir, run by ``ngspice -b`` (hardware/spice.py
rewrites their parameters and reads the waveforms they write). Every build is simulated at
the shortest and the longest wire (20 and 150 pF on each line); the figures below are the
worst of them, and the configured timing must leave :data:`~hardware.spice.
MARGIN` over them. Without ngspice these tests skip (under ``CI=true`` they fail).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from controller.config import GpioConfig, LedConfig, load_config
from controller.hardware.gpio import GpioBoard
from controller.hardware.wiring import SETTLE_US
from firmware import config as firmware_config
from hardware.electrical import BCM2711, column_volts
from hardware.spice import (
    MARGIN,
    NETLISTS,
    PI_MATRIX,
    PI_MATRIX_OWN_PULLS,
    PICO,
    PICO_10K,
    PICO_FLOATING_ROWS,
    T_RELEASE,
    MatrixBuild,
    MatrixFigures,
    MuxFigures,
    matrix_figures,
    matrix_params,
    mux_figures,
    ngspice,
    parse_wrdata,
    simulate,
)
from rigs.circuits import DiodeMatrix
from rigs.lgpio_model import LgpioModel, close_factory, lgpio_factory

ROOT: Final = Path(__file__).resolve().parents[2]


def _need_ngspice() -> str:
    program = ngspice()
    if program is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the circuit simulations need ngspice in CI: apt-get install ngspice")
        pytest.skip("the circuit simulations need ngspice: apt-get install ngspice")
    return program


@pytest.fixture(scope="module")
def matrices() -> Iterator[dict[str, MatrixFigures]]:
    _need_ngspice()
    builds = (PI_MATRIX, PI_MATRIX_OWN_PULLS, PICO, PICO_10K, PICO_FLOATING_ROWS)
    yield {build.name: matrix_figures(build) for build in builds}


@pytest.fixture(scope="module")
def mux() -> MuxFigures:
    _need_ngspice()
    return mux_figures(10.5e3)


def _of(figures: dict[str, MatrixFigures], build: MatrixBuild) -> MatrixFigures:
    return figures[build.name]


# -- the netlists as committed -------------------------------------------------------------


@pytest.mark.parametrize("name", ["matrix", "mux"])
def test_each_netlist_runs_alone_in_ngspice(name: str, tmp_path: Path) -> None:
    """As committed, each netlist is the guide's build at its longest wire: a column (or
    SIG) held low by its switch (sensor), then let go; it reads low, then rises past V_IH."""
    program = _need_ngspice()
    shutil.copy(NETLISTS / f"{name}.cir", tmp_path)
    done = subprocess.run(
        [program, "-b", f"{name}.cir"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    wave = parse_wrdata((tmp_path / f"{name}.data").read_text())
    assert wave.at(1.9e-6) < BCM2711.v_il
    assert 0 < wave.reaches(BCM2711.v_ih, 2e-6, rising=True) < 10e-6
    assert wave.volts[-1] > 3.2


# -- levels ----------------------------------------------------------------------------------


@pytest.mark.parametrize("build", [PI_MATRIX, PI_MATRIX_OWN_PULLS, PICO, PICO_10K])
def test_a_closed_crossing_pulls_its_column_well_under_v_il(
    matrices: dict[str, MatrixFigures], build: MatrixBuild
) -> None:
    """Through the reed, the Schottky diode and the 1 kΩ / 100 Ω protection resistors
    (the 10 kΩ pull-up on the board's side of the 1 kΩ), other crossings closed too."""
    assert _of(matrices, build).low_v <= build.pads.v_il - 0.4


def test_the_mux_reads_an_active_sensor_well_under_v_il(mux: MuxFigures) -> None:
    assert mux.low_v <= BCM2711.v_il - 0.4


@pytest.mark.parametrize("build", [PI_MATRIX, PI_MATRIX_OWN_PULLS, PICO, PICO_10K])
def test_an_open_column_stays_high_beside_closed_crossings_on_released_rows(
    matrices: dict[str, MatrixFigures], build: MatrixBuild
) -> None:
    assert _of(matrices, build).loaded_high_v >= build.pads.v_ih + 1.0


def test_rows_left_at_the_reset_pull_down_take_a_column_under_v_ih(
    matrices: dict[str, MatrixFigures],
) -> None:
    """Issue 21, item 4, in ngspice, with the BCM2711's 33–73 kΩ pulls (issue 29): three
    pearls on rows 1–3 of one file, those rows at a Pi's reset pull-down, bring the open
    column of row 0 to about 1.9 V with the 10 kΩ pull-ups and to about 0.6 V without:
    under V_IH either way, a ghost, which is why the program claims the rows with the
    pull-up on. The mock matrix's pessimistic estimate (electrical.column_volts) stays
    below ngspice."""
    fitted = _of(matrices, PI_MATRIX).reset_pull_high_v
    bare = _of(matrices, PI_MATRIX_OWN_PULLS).reset_pull_high_v
    assert fitted is not None and bare is not None
    assert BCM2711.v_ih - 0.3 < fitted < BCM2711.v_ih
    assert bare < BCM2711.v_il
    least, greatest = BCM2711.pull_ohms
    assert column_volts(1 / (1 / 10.5e3 + 1 / greatest), 3, least) <= fitted
    assert column_volts(greatest, 3, least) <= bare


def test_the_rows_the_scanner_leaves_keep_the_column_high_in_ngspice() -> None:
    """The pulls the lgpio model shows on rows 1–3 (GPIO 17, 27, 22) while the matrix
    scanner runs, fed to ngspice with three pearls on them: the open column of row 0
    stays high with a volt to spare. On the old claim (no bias flag: the reset
    pull-downs) it comes out at about 1.9 V and fails."""
    _need_ngspice()
    model = LgpioModel()
    factory = lgpio_factory(model)
    config = GpioConfig()
    try:
        DiodeMatrix(model, config.rows, config.cols, pull_up_ohms=10e3)
        with GpioBoard(config, LedConfig(spi=None), 0, pin_factory=factory) as board:
            board.scan_once()
            pulls = {
                row: model.pull(gpio) for row, gpio in zip("cde", config.rows[1:4], strict=True)
            }
    finally:
        close_factory(factory)
    params = matrix_params(PI_MATRIX, (150.0, 150.0), "cde", row_pulls=pulls, weakest_pulls=False)
    wave = simulate("matrix", params)
    assert wave.at(T_RELEASE - 1e-8) >= BCM2711.v_ih + 1.0


# -- timing ----------------------------------------------------------------------------------


def _settles(configured: float, worst_us: float) -> None:
    assert configured >= MARGIN * worst_us, f"{configured} µs against {worst_us:.2f} µs"
    # ... and comes from the simulation (twice it, rounded up; derived_settle_us), not a
    # blanket guess many times too long. Loose enough for another ngspice version.
    assert configured <= 3 * worst_us + 1, f"{configured} µs against {worst_us:.2f} µs"


def test_the_default_matrix_settle_time_covers_the_worst_wire(
    matrices: dict[str, MatrixFigures],
) -> None:
    figures = _of(matrices, PI_MATRIX)
    assert figures.rise_wire_pf == (150.0, 150.0)  # the longest wires are the slowest
    assert figures.fall_us < figures.rise_us  # pulling low is fast; letting go is not
    _settles(SETTLE_US["matrix"], figures.settle_us)
    assert GpioConfig().settle_us == SETTLE_US["matrix"]


def test_the_default_mux_settle_time_covers_the_worst_wire(mux: MuxFigures) -> None:
    _settles(SETTLE_US["mux"], mux.settle_us)


@pytest.mark.parametrize("name", ["matrix", "mux", "direct"])
def test_the_shipped_configs_leave_margin(
    name: str, matrices: dict[str, MatrixFigures], mux: MuxFigures
) -> None:
    gpio = load_config(ROOT / "configs" / f"{name}.toml").board.gpio
    worst = {"matrix": _of(matrices, PI_MATRIX).settle_us, "mux": mux.settle_us}
    if gpio.topology == "direct":
        assert gpio.settle_us == 0.0  # one line per sensor: nothing to switch, no wait
    else:
        assert gpio.settle_us >= MARGIN * worst[gpio.topology]


def test_the_picos_settle_time_covers_its_own_pull_ups(
    matrices: dict[str, MatrixFigures],
) -> None:
    """The guide calls the Pico's 10 kΩ optional, so its firmware waits long enough
    without them; its rows carry the pull-up, without which a row let go floats low and
    the columns take five times as long."""
    _settles(firmware_config.SETTLE_US, _of(matrices, PICO).settle_us)
    assert _of(matrices, PICO_10K).settle_us * MARGIN <= firmware_config.SETTLE_US
    assert _of(matrices, PICO_FLOATING_ROWS).rise_us > 4 * _of(matrices, PICO).rise_us

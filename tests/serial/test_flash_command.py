"""``pyramid flash`` against a simulated Pico: copy with (simulated) mpremote, reset, and
the real firmware, booted from the copied files, answering HELLO."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from serial.tools import list_ports

from controller.cli import flash
from firmware.sim.harness import DEVICE_FILES, FIRMWARE_DIR, SimConfig, SimPico
from pyramid_board.cli import main
from rigs import fake_mpremote

FAKE_MPREMOTE = shlex.join([sys.executable, fake_mpremote.__file__])
OLD = SimConfig(version="0.9.0", report_ms=250)
SHIPPED_VERSION = SimConfig.from_file(FIRMWARE_DIR / "config.py").version


@pytest.fixture
def old_pico(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimPico]:
    """A Pico running firmware 0.9.0, its flash where the simulated mpremote writes."""
    flash_dir = tmp_path / "pico-flash"
    flash_dir.mkdir()
    with SimPico(OLD) as factory_fresh:
        for name in DEVICE_FILES:
            shutil.copyfile(factory_fresh.flash_dir / name, flash_dir / name)
    monkeypatch.setenv("PYRAMID_SIM_FLASH", str(flash_dir))
    with SimPico(OLD, flash_dir=flash_dir) as pico:
        yield pico


def test_flash_copies_resets_and_checks_the_hello(
    old_pico: SimPico, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["flash", "--port", old_pico.port, "--mpremote", FAKE_MPREMOTE])
    out, err = capsys.readouterr()
    assert status == 0, err
    files = len(flash.DEVICE_FILES)
    assert f"Flashing pyramid firmware {SHIPPED_VERSION} onto {old_pico.port} ({files} files" in out
    bars = [line for line in out.splitlines() if line.startswith("  [")]
    assert [bar.split()[4] for bar in bars] == list(flash.DEVICE_FILES)
    assert bars[-1].startswith("  [####################] 100 %")
    assert f"firmware {SHIPPED_VERSION}, protocol 1, 36 channels, 37 LEDs." in out
    assert out.rstrip().endswith("Done: the board is ready.")
    for name in flash.DEVICE_FILES:
        assert (old_pico.flash_dir / name).read_bytes() == (FIRMWARE_DIR / name).read_bytes()
    asked = (old_pico.flash_dir / ".mpremote.log").read_text().splitlines()
    assert asked == [
        *(
            f"connect {old_pico.port} resume fs cp {FIRMWARE_DIR / name} :{name}"
            for name in flash.DEVICE_FILES
        ),
        f"connect {old_pico.port} resume reset",
    ]
    # Ctrl-C put the old firmware into maintenance (its watchdog kept fed), the reset
    # started the new one, and nothing was reset by the watchdog in between.
    names = [event.name for event in old_pico.events]
    assert names.index("timer") < names.index("boot", 1)
    assert old_pico.watchdog_resets == 0 and old_pico.boots == 2


def test_flash_with_a_config_of_ones_own(
    old_pico: SimPico, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "my_board.py"
    mine.write_text(replace(OLD, version="2.1.0-mine", led_count=10).source())
    status = main(
        ["flash", "--port", old_pico.port, "--config", str(mine), "--mpremote", FAKE_MPREMOTE]
    )
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "firmware 2.1.0-mine, protocol 1, 36 channels, 10 LEDs." in out
    assert (old_pico.flash_dir / "config.py").read_text() == mine.read_text()


def test_flash_sets_the_sensing_in_the_copy_and_leaves_the_file(
    old_pico: SimPico, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--sensing`` writes ``SENSING`` into what goes onto the Pico: a config that says
    reflective (the shipped one), flashed with ``--sensing matrix``, lands as a matrix
    config (the simulated Pico scans a matrix, so it answers), and the maker's file is
    unchanged."""
    shipped = (FIRMWARE_DIR / "config.py").read_text()
    assert 'SENSING = "reflective"' in shipped
    mine = tmp_path / "my_board.py"
    mine.write_text(shipped)
    before = mine.read_text()
    status = main(
        ["flash", "--port", old_pico.port, "--config", str(mine), "--sensing", "matrix",
         "--mpremote", FAKE_MPREMOTE]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert status == 0, err
    as_matrix = flash.SENSING_LINE.sub('SENSING = "matrix"', shipped)
    assert as_matrix != shipped
    assert (old_pico.flash_dir / "config.py").read_text() == as_matrix
    assert mine.read_text() == before
    assert out.rstrip().endswith("Done: the board is ready.")


def test_sensing_needs_one_line_to_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.py"
    config.write_text('VERSION = "1.2.0"\n')
    status = main(
        ["flash", "--port", "/dev/null", "--config", str(config), "--sensing", "reflective",
         "--mpremote", "false"]
    )  # fmt: skip
    assert status == 1
    assert 'has no line SENSING = "..." to set' in capsys.readouterr().err
    changed = flash.with_sensing(FIRMWARE_DIR / "config.py", "matrix")
    assert flash.SENSING_LINE.findall(changed) == ['SENSING = "matrix"']


def test_a_copy_that_did_not_land_is_noticed(
    old_pico: SimPico, capsys: pytest.CaptureFixture[str]
) -> None:
    # An mpremote that reports success but does nothing: the old firmware answers.
    status = main(["flash", "--port", old_pico.port, "--mpremote", "true", "--timeout", "3"])
    _, err = capsys.readouterr()
    assert status == 1
    assert f"the Pico answers with firmware 0.9.0, not the {SHIPPED_VERSION} just copied" in err


def test_a_pico_that_cannot_boot_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with SimPico(replace(OLD, columns=(3, 9))) as pico:  # GPIO 3 is also a row
        status = main(["flash", "--port", pico.port, "--mpremote", "true", "--timeout", "2.5"])
    _, err = capsys.readouterr()
    assert status == 1
    assert "no HELLO from the Pico within 2.5 s; it printed: pyramid: config.py: COLUMN_PINS" in err


def test_mpremote_failing_is_explained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PYRAMID_SIM_FLASH", str(tmp_path))
    missing = str(tmp_path / "ttyACM9")
    status = main(["flash", "--port", missing, "--mpremote", FAKE_MPREMOTE])
    _, err = capsys.readouterr()
    assert status == 1
    assert f"mpremote could not copy protocol.py: mpremote: failed to access {missing}" in err
    status = main(["flash", "--port", missing, "--mpremote", str(tmp_path / "no-such-program")])
    assert status == 1
    assert "is mpremote installed?" in capsys.readouterr().err


def test_no_pico_plugged_in(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(
        list_ports,
        "comports",
        lambda: [SimpleNamespace(device="/dev/ttyUSB0", vid=0x0403, pid=0x6001)],
    )
    assert main(["flash"]) == 1
    assert "no Pico (USB 2E8A:0005) is plugged in" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("VERSION = '1.0'\nROW_PINS = (2,\n", "line 2"),
        ("VERSION = '1.0 beta'\n", "VERSION: firmware version '1.0 beta'"),
        ("ROW_PINS = (2, 3)\n", "VERSION must be a version string such as '1.0.0'"),
        ("VERSION = 1 / 0\n", "does not run: division by zero"),
    ],
)
def test_a_config_that_cannot_work_is_refused_before_copying(
    tmp_path: Path, text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.py"
    config.write_text(text)
    status = main(["flash", "--port", "/dev/null", "--config", str(config), "--mpremote", "false"])
    assert status == 1
    assert message in capsys.readouterr().err


def test_the_installed_mpremote_knows_the_commands_used() -> None:
    done = subprocess.run(
        [*flash.MPREMOTE, "--help"], capture_output=True, text=True, timeout=60, check=True
    )
    listed = {line.split()[0] for line in done.stdout.splitlines() if line.startswith("  ")}
    assert {"connect", "resume", "fs", "reset"} <= listed


def test_flash_is_a_pyramid_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["flash", "--help"])
    assert done.value.code == 0
    assert "--port" in capsys.readouterr().out


def test_flash_takes_the_project_folder_one_is_in(
    old_pico: SimPico,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The maker edits firmware/config.py in their project folder and runs `pyramid flash`
    there (or below it): that file is flashed, not the installed program's copy, and the
    output names it."""
    project = tmp_path / "pyramid-board"
    shutil.copytree(FIRMWARE_DIR, project / "firmware", ignore=shutil.ignore_patterns("sim*"))
    (project / "pyproject.toml").write_text('[project]\nname = "pyramid-board"\n')
    edited = project / "firmware" / "config.py"
    edited.write_text(edited.read_text().replace(SHIPPED_VERSION, "3.0.0-edited", 1))
    (project / "docs").mkdir()
    monkeypatch.chdir(project / "docs")
    status = main(["flash", "--port", old_pico.port, "--mpremote", FAKE_MPREMOTE])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert f"config.py: {edited.resolve()} (the project folder you are in)" in out
    assert "firmware 3.0.0-edited, protocol 1" in out
    assert (old_pico.flash_dir / "config.py").read_text() == edited.read_text()


def test_outside_a_project_folder_the_installed_copy_is_named(
    old_pico: SimPico,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    status = main(["flash", "--port", old_pico.port, "--mpremote", FAKE_MPREMOTE])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert f"config.py: {FIRMWARE_DIR / 'config.py'} (installed with the program;" in out

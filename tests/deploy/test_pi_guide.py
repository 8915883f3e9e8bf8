"""docs/raspberry-pi.md, the maker's path, says what the project does: the MicroPython file
and checksum are those the emulated Pico runs, the flash example's figures are today's
firmware's, and every installer option and `pyramid` command it shows is taken."""

from __future__ import annotations

import hashlib
import os
import re
import shlex
from pathlib import Path

import pytest

from controller.cli import flash
from firmware.emulator.pico import find_rp2040
from pyramid_board.cli import build_parser
from tests.deploy.test_deploy import dry_run

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "raspberry-pi.md").read_text(encoding="utf-8")
HARDWARE = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^ *```(\w+)\n(.*?)^ *```", re.M | re.S)


def sh_lines(text: str) -> list[str]:
    lines = []
    for match in FENCE.finditer(text):
        if match.group(1) == "sh":
            for line in match.group(2).splitlines():
                command = line.split(" #")[0].strip()
                if command:
                    lines.append(command)
    return lines


def test_the_micropython_file_and_checksum_are_the_tested_ones() -> None:
    name, checksum = "micropython-v1.28.0-RPI_PICO.uf2", ""
    for text in (GUIDE, HARDWARE):
        found = re.search(r"sha256\s+`([0-9a-f]{64})`", text)
        assert found and name in text
        checksum = checksum or found.group(1)
        assert found.group(1) == checksum  # both documents name the same
    files = find_rp2040()
    if isinstance(files, str):
        if os.environ.get("CI") == "true":
            pytest.fail(files)
        pytest.skip(files)
    if files.uf2.name != name:
        pytest.skip(f"the emulated Pico runs {files.uf2.name}, not the guide's {name}")
    data = files.uf2.read_bytes()
    assert hashlib.sha256(data).hexdigest() == checksum
    assert f"{len(data):,} bytes" in GUIDE and f"{len(data):,} bytes" in HARDWARE


def test_the_flash_example_shows_todays_firmware() -> None:
    files = flash.device_files()
    total = sum(f.size for f in files)
    version = flash.firmware_version(flash.FIRMWARE_DIR / "config.py")
    first = files[0]
    done = first.size
    bar = "#" * round(20 * done / total)
    progress = (
        f"[{bar:-<20}] {100 * done // total:3d} %  1/{len(files)} "
        f"{first.target:<12} {first.size / 1024:5.1f} kB"
    )
    for text in (GUIDE, HARDWARE):
        assert f"Flashing pyramid firmware {version} onto /dev/ttyACM0 " in text
        assert f"({len(files)} files, {total / 1024:.1f} kB)" in text
        assert progress in text
        assert f"Waiting for its HELLO... firmware {version}, protocol 1," in text


def test_every_pyramid_command_shown_is_taken() -> None:
    parser = build_parser()
    shown = [line for line in sh_lines(GUIDE) + sh_lines(HARDWARE) if line.startswith("pyramid ")]
    assert any(line.startswith("pyramid flash --sensing reflective") for line in shown)
    for line in shown:
        words = shlex.split(line)[1:]
        try:
            parser.parse_args(words)
        except SystemExit:
            pytest.fail(f"`{line}` is not a command pyramid takes")


def test_every_installer_line_shown_is_taken() -> None:
    shown = [
        line
        for line in sh_lines(GUIDE) + sh_lines((ROOT / "README.md").read_text(encoding="utf-8"))
        if "deploy/install-pi.sh" in line
    ]
    assert "sudo deploy/install-pi.sh" in shown
    for line in shown:
        words = shlex.split(line[line.index("deploy/install-pi.sh") :])[1:]
        words = [w for w in words if w not in ("&&",)]
        words = [str(ROOT / w) if w.startswith("configs/") else w for w in words]
        dry_run(*words)  # exit status 0, or CalledProcessError with what it said

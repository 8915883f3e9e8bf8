"""``pyramid flash [--port P] [--config FILE]``: put the firmware on a Pico, then check it.

The Pico needs MicroPython first (hold BOOTSEL while plugging it in and copy MicroPython's
``.uf2`` for the Pico onto the drive that appears; hardware/README.md has the steps).
Then::

    pyramid flash                          # the Pico found by USB id 2E8A:0005
    pyramid flash --port /dev/ttyACM1      # or a path / pyserial URL
    pyramid flash --config my_board.py     # your pins instead of firmware/config.py
    pyramid flash --sensing matrix         # a reed matrix board instead of the pico board

firmware/config.py as shipped is the printed pico board's (``SENSING = "reflective"``, the
speaker's driver on ``BUZZER_PIN = 15``), so ``pyramid flash`` with no options flashes what
that board needs.

The files come from the firmware/ folder of the project folder you are in (a checkout or
a release archive, found from the current directory upwards), so that the config.py you
edited is the one flashed; run anywhere else, from the copy installed with the program.
It says which config.py it copies, with its full path. It
copies protocol.py, debounce.py, config.py and main.py (last, so that a half-finished
copy never boots a new main.py with old modules) with mpremote, showing progress, resets
the Pico and waits for its ``HELLO``: the protocol version must be 1 and the firmware
version the one just copied. If the firmware does not like the config, what it prints
is shown instead. ``--sensing`` sets the config's ``SENSING`` in the copy that goes onto
the Pico (the config file itself is left as it is): ``matrix`` for a reed matrix,
``reflective`` for the printed pico board (the shipped config's own).

mpremote first stops the running firmware with Ctrl-C; the firmware then keeps its
watchdog fed from a timer, so the copy is not cut short by a reset, and the reset at the
end starts the new firmware. Exit status: 0 when the Pico answered as expected, 1 when
something failed (the message says what), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import re
import runpy
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import serial

import firmware
from controller.hardware.serial import NoPicoFound, open_port, resolve_port
from firmware import protocol

FIRMWARE_DIR = Path(firmware.__file__).resolve().parent

DEVICE_FILES: tuple[str, ...] = (
    "protocol.py",
    "debounce.py",
    "usbpower.py",
    "calib.py",
    "config.py",
    "main.py",
)
"""Copied in this order; main.py last."""
SENSINGS: tuple[str, ...] = ("matrix", "reflective")
"""What ``SENSING`` in the firmware's config.py may say (firmware/main.py checks it)."""
SENSING_LINE = re.compile(r'^SENSING = "[^"\n]*"$', re.M)

MPREMOTE: tuple[str, ...] = (sys.executable, "-m", "mpremote")
COPY_TIMEOUT_S = 60.0
HELLO_TIMEOUT_S = 15.0
"""A Pico takes a second or two to come back on USB after its reset."""


class FlashError(RuntimeError):
    """Flashing failed; the message says what to do."""


@dataclass(frozen=True, slots=True)
class DeviceFile:
    """One file for the Pico's flash."""

    source: Path
    target: str
    """Its name on the Pico (in the root, where MicroPython looks for main.py)."""
    size: int


def project_firmware(start: Path) -> Path | None:
    """The firmware/ folder of the pyramid-board project folder ``start`` is in, if any.

    >>> project_firmware(FIRMWARE_DIR.parent / "docs") == FIRMWARE_DIR
    True
    >>> project_firmware(Path("/")) is None
    True
    """
    for folder in (start, *start.parents):
        firmware_dir = folder / "firmware"
        if not (firmware_dir / "main.py").is_file():
            continue
        try:
            project = (folder / "pyproject.toml").read_text(encoding="utf-8")
        except OSError:
            continue
        if re.search(r'^name = "pyramid-board"$', project, re.M):
            return firmware_dir
    return None


def firmware_source(start: Path | None = None) -> tuple[Path, str]:
    """Where the files come from, and why: the project folder's firmware/, else the
    installed program's."""
    found = project_firmware(Path.cwd() if start is None else start)
    if found is not None:
        return found.resolve(), "the project folder you are in"
    return FIRMWARE_DIR, (
        "installed with the program; run `pyramid flash` inside your project folder to "
        "flash its firmware/config.py, or give --config"
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "flash",
        help="copy the firmware onto a Pico sensor/LED board and check that it answers",
        description="Copy firmware/ onto a Raspberry Pi Pico running MicroPython (with "
        "mpremote), reset it and check its HELLO.",
    )
    parser.add_argument(
        "--port",
        default="auto",
        help="the Pico: 'auto' (USB id 2E8A:0005, the default), a device path or a pyserial URL",
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help="the config.py to copy (default: firmware/config.py of the project folder you "
        "are in, else the installed program's)",
    )
    parser.add_argument(
        "--sensing",
        choices=SENSINGS,
        default=None,
        help="how the board senses its cells, written into the copy of config.py: "
        "'matrix' for reed switches, 'reflective' for the printed pico board "
        "(default: as config.py says; the shipped one is the pico board's)",
    )
    parser.add_argument(
        "--mpremote",
        default=shlex.join(MPREMOTE),
        help="the mpremote command (default: this Python's mpremote module)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=HELLO_TIMEOUT_S,
        help=f"seconds to wait for the Pico's HELLO after the reset (default {HELLO_TIMEOUT_S:g})",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        flash(
            args.port,
            config=args.config,
            sensing=args.sensing,
            mpremote=shlex.split(args.mpremote),
            hello_timeout=args.timeout,
        )
    except (FlashError, NoPicoFound) as error:
        print(f"pyramid flash: {error}", file=sys.stderr)
        return 1
    return 0


def flash(
    port: str = "auto",
    *,
    config: Path | None = None,
    sensing: str | None = None,
    mpremote: Sequence[str] = MPREMOTE,
    hello_timeout: float = HELLO_TIMEOUT_S,
    out: TextIO | None = None,
) -> protocol.Hello:
    """Copy, reset, check; the Pico's HELLO. Raises :class:`FlashError` with the reason."""
    out = sys.stdout if out is None else out
    firmware_dir, why = firmware_source()
    source = config.absolute() if config is not None else firmware_dir / "config.py"
    said = "given with --config" if config is not None else why
    if sensing is not None:
        said += f"; SENSING = {sensing!r} in the copy that goes onto the Pico"
    print(f"config.py: {source} ({said})", file=out, flush=True)
    if sensing is None:
        return _flash(port, device_files(source, firmware_dir), mpremote, hello_timeout, out)
    with tempfile.TemporaryDirectory(prefix="pyramid-flash-") as folder:
        copy_of = Path(folder) / "config.py"
        copy_of.write_text(with_sensing(source, sensing), encoding="utf-8")
        return _flash(port, device_files(copy_of, firmware_dir), mpremote, hello_timeout, out)


def with_sensing(config: Path, sensing: str) -> str:
    """The text of ``config`` with ``SENSING`` set to ``sensing``.

    >>> SENSING_LINE.findall(with_sensing(FIRMWARE_DIR / "config.py", "matrix"))
    ['SENSING = "matrix"']
    """
    if sensing not in SENSINGS:
        raise FlashError(f"sensing is one of {', '.join(SENSINGS)}, not {sensing!r}")
    try:
        text = config.read_text(encoding="utf-8")
    except OSError as error:
        raise FlashError(f"cannot read {config}: {error.strerror}") from None
    changed, found = SENSING_LINE.subn(f'SENSING = "{sensing}"', text)
    if found != 1:
        raise FlashError(f'{config} has no line SENSING = "..." to set (it needs exactly one)')
    return changed


def _flash(
    port: str,
    files: list[DeviceFile],
    mpremote: Sequence[str],
    hello_timeout: float,
    out: TextIO | None,
) -> protocol.Hello:
    out = sys.stdout if out is None else out
    version = firmware_version(files[DEVICE_FILES.index("config.py")].source)
    device = resolve_port(port)
    total = sum(f.size for f in files)
    print(
        f"Flashing pyramid firmware {version} onto {device} "
        f"({len(files)} files, {total / 1024:.1f} kB)",
        file=out,
        flush=True,
    )
    copy(device, files, mpremote=mpremote, out=out)
    print("Resetting the Pico...", file=out, flush=True)
    _mpremote(mpremote, device, ["reset"], "reset the Pico")
    print("Waiting for its HELLO... ", end="", file=out, flush=True)
    hello = wait_for_hello(port, timeout=hello_timeout)
    print(
        f"firmware {hello.firmware}, protocol {hello.protocol}, {hello.channels} channels, "
        f"{hello.leds} LEDs.",
        file=out,
        flush=True,
    )
    if hello.protocol != protocol.PROTOCOL:
        raise FlashError(
            f"the Pico speaks protocol {hello.protocol}, this program {protocol.PROTOCOL}"
        )
    if hello.firmware != version:
        raise FlashError(
            f"the Pico answers with firmware {hello.firmware}, not the {version} just copied: "
            "did the copy land on another board?"
        )
    print("Done: the board is ready.", file=out, flush=True)
    return hello


def device_files(config: Path | None = None, folder: Path = FIRMWARE_DIR) -> list[DeviceFile]:
    """The files to copy from ``folder`` (``config`` in place of its config.py), each checked
    to exist and to be valid Python."""
    files = []
    for name in DEVICE_FILES:
        source = config if name == "config.py" and config is not None else folder / name
        try:
            text = source.read_text(encoding="utf-8")
        except OSError as error:
            raise FlashError(f"cannot read {source}: {error.strerror}") from None
        try:
            compile(text, str(source), "exec")
        except SyntaxError as error:
            raise FlashError(f"{source}, line {error.lineno}: {error.msg}") from None
        files.append(DeviceFile(source, name, len(text.encode())))
    return files


def firmware_version(config: Path) -> str:
    """``VERSION`` from a firmware config.py, checked as the protocol needs it."""
    try:
        version = runpy.run_path(str(config)).get("VERSION")
    except Exception as error:  # it is the user's file: any failure is theirs to see
        raise FlashError(f"{config} does not run: {error}") from None
    if not isinstance(version, str):
        raise FlashError(f"{config}: VERSION must be a version string such as '1.0.0'")
    try:
        protocol.check_firmware_version(version)
    except ValueError as error:
        raise FlashError(f"{config}: VERSION: {error}") from None
    return version


def copy(device: str, files: Sequence[DeviceFile], *, mpremote: Sequence[str], out: TextIO) -> None:
    """Copy each file with its own mpremote run, drawing a progress bar per file."""
    total = sum(f.size for f in files) or 1
    done = 0
    for number, file in enumerate(files, 1):
        command = ["fs", "cp", str(file.source), f":{file.target}"]
        _mpremote(mpremote, device, command, f"copy {file.target}")
        done += file.size
        filled = round(20 * done / total)
        print(
            f"  [{'#' * filled}{'-' * (20 - filled)}] {100 * done // total:3d} %  "
            f"{number}/{len(files)} {file.target:<12} {file.size / 1024:5.1f} kB",
            file=out,
            flush=True,
        )


def _mpremote(mpremote: Sequence[str], device: str, command: list[str], what: str) -> None:
    # `resume`: no soft reset. On a Pico a soft reset would stop the timer that keeps the
    # watchdog fed while the firmware is stopped, and the watchdog would cut the copy short.
    argv = [*mpremote, "connect", device, "resume", *command]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=COPY_TIMEOUT_S, check=False
        )
    except FileNotFoundError:
        raise FlashError(f"cannot run {argv[0]!r}; is mpremote installed?") from None
    except subprocess.TimeoutExpired:
        raise FlashError(f"mpremote took over {COPY_TIMEOUT_S:g} s to {what}") from None
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip() or "no message").splitlines()[-3:]
        raise FlashError(f"mpremote could not {what}: {' / '.join(said)}")


def wait_for_hello(port: str, *, timeout: float = HELLO_TIMEOUT_S) -> protocol.Hello:
    """Open ``port`` (again and again while the Pico comes back) until it says HELLO."""
    deadline = time.monotonic() + timeout
    printed: list[str] = []
    ask = protocol.encode(protocol.AskHello())
    while time.monotonic() < deadline:
        try:
            link = open_port(port, timeout=0.05)
        except (NoPicoFound, serial.SerialException, OSError):
            time.sleep(0.2)  # not back on USB yet
            continue
        try:
            splitter = protocol.LineSplitter()
            next_ask = 0.0
            while time.monotonic() < deadline:
                if time.monotonic() >= next_ask:
                    link.write(ask)
                    next_ask = time.monotonic() + 0.5
                for line in splitter.feed(link.read(max(1, link.in_waiting))):
                    try:
                        message = protocol.decode(line)
                    except protocol.ProtocolError:
                        text = line.decode("ascii", "replace").strip()
                        if text and text not in printed:
                            printed.append(text)
                        continue
                    if type(message) is protocol.Hello:
                        return message
        except (serial.SerialException, OSError):
            time.sleep(0.2)  # it went away again (still resetting)
        finally:
            link.close()
    said = "; it printed: " + " | ".join(printed[-5:]) if printed else ""
    raise FlashError(f"no HELLO from the Pico within {timeout:g} s{said}")

"""Helpers for the firmware tests: a raw host end of the firmware's serial port."""

from __future__ import annotations

import runpy
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import serial

from firmware import protocol
from firmware.sim.harness import DEVICE_FILES, FIRMWARE_DIR, SimConfig

# Firmware timings short enough for quick tests (the shipped values are in config.py).
FAST = SimConfig(report_ms=200, blank_after_ms=1500)
QUICK_WATCHDOG = replace(FAST, watchdog_ms=600)
"""For the watchdog tests (elsewhere a longer timeout keeps a busy machine from tripping it)."""


class RawHost:
    """The host end of the firmware's USB serial, spoken to one protocol line at a time.

    Every byte received is kept, so a test can check that the firmware never sent
    anything but protocol lines (and never byte 0x03).
    """

    def __init__(self, port: str) -> None:
        self.serial = serial.Serial(port, timeout=0.01)
        self.received = bytearray()
        self.messages: list[tuple[float, Any]] = []
        """(time.monotonic(), message) for every line received, oldest first."""
        self.refused: list[bytes] = []
        self._splitter = protocol.LineSplitter()
        self._read = 0

    def send(self, *messages: Any) -> None:
        self.serial.write(b"".join(protocol.encode(m) for m in messages))

    def send_raw(self, data: bytes) -> None:
        self.serial.write(data)

    def pump(self) -> None:
        data = self.serial.read(max(1, self.serial.in_waiting))
        now = time.monotonic()
        self.received += data
        for line in self._splitter.feed(data):
            try:
                self.messages.append((now, protocol.decode(line)))
            except protocol.ProtocolError:
                self.refused.append(line)

    def wait_for(
        self, predicate: Callable[[Any], bool], timeout: float = 3.0, after: float = 0.0
    ) -> tuple[float, Any]:
        """The first new message (since the last wait, received after ``after``) that
        ``predicate`` accepts."""
        deadline = time.monotonic() + timeout
        while True:
            while self._read < len(self.messages):
                at, message = self.messages[self._read]
                self._read += 1
                if at >= after and predicate(message):
                    return at, message
            if time.monotonic() > deadline:
                raise TimeoutError(f"no matching line in {timeout} s; got {self.messages[-5:]}")
            self.pump()

    def listen(self, seconds: float) -> list[Any]:
        """Every message that arrives in the next ``seconds``."""
        start = len(self.messages)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.pump()
        self._read = len(self.messages)
        return [message for _, message in self.messages[start:]]

    def await_reports(self, count: int, timeout: float = 5.0) -> None:
        """Wait for ``count`` more S lines. Between changes the firmware sends one every
        REPORT_MS by its own clock, so they prove that it ran ``count - 1`` periods (the
        first may have been on its way already): a sleep would prove only that the test
        waited."""
        self.pump()
        self._read = len(self.messages)
        for _ in range(count):
            self.wait_for(of(protocol.Sensors), timeout)

    def close(self) -> None:
        self.serial.close()


def let_the_watchdog_run(config: SimConfig) -> None:
    """Let twice the watchdog's timeout pass, for a test that it does not bite.

    Real time, the one sleep of the firmware tests: the simulated chip's watchdog counts
    real time, and a Pico at the REPL sends nothing by which its time could be counted.
    """
    time.sleep(2 * config.watchdog_ms / 1000)  # real time: the chip's watchdog counts it


def of(kind: type) -> Callable[[Any], bool]:
    return lambda message: type(message) is kind


def only_protocol(talker: RawHost) -> None:
    """The firmware sent nothing but valid protocol lines, and never byte 0x03."""
    assert 0x03 not in talker.received
    assert talker.refused == []


@contextmanager
def raw_host(port: str, *, check: bool = True) -> Iterator[RawHost]:
    """A :class:`RawHost` on ``port``, closed afterwards and (``check``) checked."""
    talker = RawHost(port)
    try:
        yield talker
    finally:
        talker.close()
    if check:
        only_protocol(talker)


PATIENCE = 180.0
"""Wall seconds a busy machine may take for a few emulated seconds (a MicroPython scan of
29 sensors keeps the emulated core busy, and other emulators may share the machine): a
wait ends as soon as its line arrives, so this costs nothing when it is quick."""


def reflective_files() -> tuple[dict[str, bytes], dict[str, object]]:
    shipped = (FIRMWARE_DIR / "config.py").read_text(encoding="utf-8")
    assert 'SENSING = "reflective"' in shipped  # the chosen build is the default
    source = shipped.replace("REPORT_MS = 1000", "REPORT_MS = 200")
    files = {name: (FIRMWARE_DIR / name).read_bytes() for name in DEVICE_FILES[:-1]}
    files["config.py"] = source.encode()
    values = runpy.run_path(str(FIRMWARE_DIR / "config.py"))
    analog = {
        "select": list(values["MUX_SELECT_PINS"]),
        "adcs": list(values["MUX_ADC_PINS"]),
        "emitters": list(values["EMITTER_PINS"]),
        "sensors": [list(s) for s in values["SENSORS"]],
        "crosstalk": 12,
        "switches": [gpio for _, gpio in values["SWITCHES"]],
    }
    return files, analog

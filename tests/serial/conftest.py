"""Fixtures for the serial adapter tests: the real firmware on a simulated Pico behind a
pty (MicroPython unix port where it runs, CPython elsewhere, with a warning), and the real
:class:`SerialBoard` on the other end."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest
from serial_helpers import BOARD, CHANNELS, LEDS, TIMING, Recorder

from controller.hardware.port import LinkState
from controller.hardware.serial import SerialBoard
from firmware.sim.harness import SimPico, find_micropython


@pytest.fixture(scope="session", autouse=True)
def say_which_interpreter() -> None:
    if find_micropython() is None:
        warnings.warn(
            "the MicroPython unix port cannot run here: the serial tests run the same "
            "firmware files under CPython",
            stacklevel=1,
        )


@pytest.fixture
def pico() -> Iterator[SimPico]:
    with SimPico(BOARD) as running:
        yield running


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def board(pico: SimPico, recorder: Recorder) -> Iterator[SerialBoard]:
    """A started board, connected to ``pico``."""
    made = SerialBoard(pico.port, CHANNELS, LEDS, timing=TIMING)
    made.start(recorder.on_frame, recorder.on_status)
    recorder.wait_for_link(LinkState.CONNECTED)
    yield made
    made.close()

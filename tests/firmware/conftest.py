"""Fixtures for the firmware tests: the firmware on a simulated Pico, and a raw host.

The firmware runs in the MicroPython unix port where it can (x86_64); elsewhere under
CPython, and the run says so with a warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest
from fw_helpers import FAST, RawHost, only_protocol

from firmware.sim.harness import SimPico, find_micropython


@pytest.fixture(scope="session", autouse=True)
def say_which_interpreter() -> None:
    if find_micropython() is None:
        warnings.warn(
            "the MicroPython unix port cannot run here: the firmware tests run the same "
            "firmware files under CPython",
            stacklevel=1,
        )


@pytest.fixture(params=["micropython", "cpython"])
def interpreter(request: pytest.FixtureRequest) -> str:
    """Both interpreters, for the tests that prove the CPython fallback works too."""
    name: str = request.param
    if name == "micropython" and find_micropython() is None:
        pytest.skip("the MicroPython unix port does not run on this machine")
    return name


@pytest.fixture
def pico() -> Iterator[SimPico]:
    with SimPico(FAST) as running:
        yield running


@pytest.fixture
def host(pico: SimPico) -> Iterator[RawHost]:
    talker = RawHost(pico.port)
    yield talker
    talker.close()
    only_protocol(talker)

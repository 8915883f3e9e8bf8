"""The reflective build in a living room, on MicroPython on an emulated RP2040: the shipped
firmware against the front end of firmware/emulator/pico.mjs with the slowest
phototransistor (τ 200 µs), the ADC's noise, and every window's wall of reflectance 0.5
on a minimum part (a typical part's 0.3; rigs/room.py says where each figure comes
from). Issue 35's scenes one after another on one emulated board: 100 and 120 Hz ripple of
50 µA on 100 µA of room light on every cell, the darkest pearl put down in it (counted
within 300 ms of the chip's time) and lifted, sun past the load's saturation on an empty
cell (unreadable: never a pearl, and a pearl lifted in it is not reported gone until the
light lets it be read), and a hand 5 mm over an empty cell for 2 s in steady light.

The same scenes, faster and with today's firmware beside it, are tests/firmware/
test_room_light.py (CPython, on a virtual clock); bench/room_light.py prints the margins.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fw_helpers import PATIENCE, RawHost, reflective_files
from test_emulated_pico import need_emulator

from controller.cli.diag import watch_board
from controller.hardware.channels import ChannelMap
from controller.hardware.serial import LinkTiming, SerialBoard
from firmware import protocol
from firmware.emulator.pico import EmulatedPico
from firmware.sim.harness import SimConfig
from rigs.poll import wait_until
from rigs.room import DARK_PEARL_UA, HAND_UA, TYPICAL_GAIN
from tests.cli.test_diag import Screen

RATE = 0.25
C3, E1, B2 = 14, 4, 7
SENSED = range(30)
"""The cells, the targets and the top (channel 29: a sensor of group 4, on the module)."""


def emulated() -> EmulatedPico:
    need_emulator()
    files, analog = reflective_files()
    analog["part"] = {"gain": 1.0, "tau_us": 200, "noise": 2.8, "wall": 0.5}
    config = SimConfig(rows=(), columns=(), buzzer_pin=None)
    return EmulatedPico(config, files=files, rate=RATE, analog=analog)


@pytest.fixture(scope="module")
def pico() -> Iterator[EmulatedPico]:
    with emulated() as running:
        yield running


@pytest.fixture
def own_pico() -> Iterator[EmulatedPico]:
    """A Pico of the test's own, that no test before has lit, for the tests that read every
    cell's marks: the learnt empty levels are the firmware's from power-up (after the
    ripple test, one negative reading had left a1's at 0, and a1 between its marks: the
    calibration issue 35 still asks for)."""
    with emulated() as running:
        yield running


def bitmaps(host: RawHost, count: int) -> list[int]:
    """The bitmaps of the next ``count`` S lines (one at least every REPORT_MS, 200 ms,
    of the board's own clock)."""
    return [
        host.wait_for(lambda m: isinstance(m, protocol.Sensors), timeout=PATIENCE)[1].bitmap
        for _ in range(count)
    ]


def seen_after(pico: EmulatedPico, host: RawHost, channel: int, want: bool, since: float) -> float:
    """Emulated seconds from ``since`` to the S line with ``channel`` as ``want``."""
    host.wait_for(
        lambda m: isinstance(m, protocol.Sensors) and bool(m.bitmap >> channel & 1) == want,
        timeout=PATIENCE,
    )

    def traced() -> tuple[float] | None:
        # The emulator's trace of its serial output is read apart from the pty the host
        # reads: on a loaded machine the host may have the line a moment before the trace.
        for at, line in pico.lines(after=since):
            said = protocol.decode(line)
            if isinstance(said, protocol.Sensors) and bool(said.bitmap >> channel & 1) == want:
                return (at - since,)
        return None

    return wait_until(traced, pico.wall(1), what="the S line traced")[0]


def test_room_light_sun_and_a_hand_never_make_a_pearl(pico: EmulatedPico) -> None:
    host = RawHost(pico.port)
    try:
        host.send(protocol.AskHello())
        assert bitmaps(host, 3)[-1] == 0  # the empty board, walls and all
        for hz in (100.0, 120.0):
            for channel in SENSED:
                pico.room(channel, steady=100.0, ripple=50.0, hz=hz, phase=0.7 * channel)
            assert bitmaps(host, 6) == [0] * 6, f"a phantom pearl in {hz} Hz ripple"
        # The darkest pearl put on c3 in the 120 Hz ripple, and lifted again.
        since = pico.now
        pico.room(C3, reflection=DARK_PEARL_UA)
        assert seen_after(pico, host, C3, True, since) < 0.3
        since = pico.now
        pico.room(C3, reflection=0.0)
        assert seen_after(pico, host, C3, False, since) < 0.3
        # Sun on the empty e1, past the load's saturation: unreadable, never a pearl.
        pico.room(E1, steady=4000.0)
        assert all(not bitmap >> E1 & 1 for bitmap in bitmaps(host, 6))
        # A pearl put on it shades its window: seen. Lifted into the sun again: not read,
        # so not reported gone (never a move nobody made) until the sun goes.
        pico.room(E1, steady=0.0, reflection=DARK_PEARL_UA)
        assert all(bitmap >> E1 & 1 for bitmap in bitmaps(host, 3)[1:])
        pico.room(E1, steady=4000.0, reflection=0.0)
        assert all(bitmap >> E1 & 1 for bitmap in bitmaps(host, 5)[1:])
        since = pico.now
        pico.room(E1, steady=100.0)
        assert seen_after(pico, host, E1, False, since) < 0.3
        # A hand 5 mm over the empty b2 for 2 s (a typical part's 12 µA), in steady light:
        # a hand over a bright wall in a lamp's ripple at once is past the fixed
        # thresholds' reach (hardware/README.md, "A reading room light cannot fool").
        pico.room(B2, steady=100.0)
        pico.room(B2, reflection=HAND_UA * TYPICAL_GAIN)
        assert all(not bitmap >> B2 & 1 for bitmap in bitmaps(host, 10))
        pico.room(B2, reflection=0.0)
        stats = pico.stats()
        assert 0 < stats["emitter_mean_period"] < 100e6
    finally:
        host.close()


def calm(pico: EmulatedPico) -> None:
    """Every cell empty in a dark, steady room (whatever a test before left)."""
    for channel in SENSED:
        pico.room(channel, steady=0.0, reflection=0.0)


def answer(host: RawHost, ask: Any, kind: type) -> Any:
    """The board's answer (a line of ``kind``) to the line ``ask``."""
    host.send(ask)
    try:
        return host.wait_for(lambda m: isinstance(m, kind), timeout=PATIENCE)[1]
    except TimeoutError as error:
        raise AssertionError(f"no {kind.__name__}; refused lines: {host.refused[-3:]}") from error


def levels(host: RawHost) -> protocol.Levels:
    """The answer to ``L?``: every channel's state, reflection and thresholds."""
    found: protocol.Levels = answer(host, protocol.AskLevels(), protocol.Levels)
    return found


def test_every_reading_is_visible_and_a_dazzled_cell_is_said(own_pico: EmulatedPico) -> None:
    """``HAS levels``; ``L?`` answered with every sensor's reflection and thresholds;
    sun past the load's saturation on e1 said in ``U`` lines (and as ``U`` in ``L``)
    while e1 keeps its state in ``S``; a pearl's level above its ``on``, an empty cell's
    below its ``off``."""
    pico = own_pico
    calm(pico)
    host = RawHost(pico.port)
    try:
        host.send(protocol.AskHello())
        has = host.wait_for(lambda m: isinstance(m, protocol.Has), timeout=PATIENCE)[1]
        assert "levels" in has.features
        pico.room(C3, reflection=DARK_PEARL_UA)
        bitmaps(host, 2)
        cells = levels(host)
        assert len(cells.states) == 36
        assert cells.states[C3] == "P" and cells.levels[C3] > cells.on[C3]
        empty = [c for c in SENSED if c != C3]
        assert all(cells.states[c] == "E" for c in empty), cells.states
        assert all(cells.levels[c] < cells.off[c] for c in empty), cells
        assert all(cells.states[c] == "-" for c in range(30, 36))
        pico.room(E1, steady=4000.0)
        said = host.wait_for(
            lambda m: isinstance(m, protocol.Unreadable) and m.bitmap == 1 << E1,
            timeout=PATIENCE,
        )[1]
        assert said.bitmap == 1 << E1
        assert levels(host).states[E1] == "U"
        assert all(not bitmap >> E1 & 1 for bitmap in bitmaps(host, 2))
        pico.room(E1, steady=0.0)
        host.wait_for(lambda m: isinstance(m, protocol.Unreadable) and m.bitmap == 0, PATIENCE)
        pico.room(C3, reflection=0.0)
    finally:
        host.close()


def test_pyramid_diag_shows_every_sensor_live_as_a_bar(own_pico: EmulatedPico) -> None:
    """``pyramid diag``'s live view on a terminal, through the serial adapter: a bar per
    sensor against its thresholds, the darkest pearl on c3 over its ``on``, and e1 in
    the sun said too bright while it keeps its state."""
    pico = own_pico
    cmap = ChannelMap.matrix()  # the reflective firmware keeps the matrix's numbers
    board = SerialBoard(pico.port, cmap.channel_count, cmap.led_count, timing=pico.scaled(
        LinkTiming()))  # fmt: skip
    out = Screen()
    stop = threading.Event()
    watching = threading.Thread(
        target=watch_board,
        args=(board, cmap, out),
        kwargs={"tty": True, "stop": stop, "settle": 0.0, "connect_timeout": pico.wall(3)},
        daemon=True,
    )

    def last_view() -> str:
        return out.text().rsplit("\x1b[H", 1)[-1].replace("\x1b[K", "")

    calm(pico)
    pico.room(C3, reflection=DARK_PEARL_UA)
    watching.start()
    try:
        pearl = re.compile(r"^  c3 +█[█:| ]*?(\d+)  off (\d+)  on (\d+)  PIECE$", re.M)
        wait_until(lambda: pearl.search(last_view()), pico.wall(3), what=last_view)
        match = pearl.search(last_view())
        assert match is not None and int(match[1]) > int(match[3]) > int(match[2])
        bars = r"^  ([a-e][1-5]|t[1-4]) +[█:| ]*?(\d+)  off (\d+)  on \d+  empty$"

        empty = re.findall(bars, last_view(), re.M)
        assert len(empty) == 28 and all(int(level) < int(off) for _, level, off in empty)
        pico.room(E1, steady=4000.0)
        wait_until(lambda: "TOO BRIGHT" in last_view(), pico.wall(3), what=last_view)
        assert "too bright to read (each keeps its state): e1" in last_view()
    finally:
        stop.set()
        watching.join(timeout=pico.wall(1))
        board.close()
        pico.room(E1, steady=0.0)
        pico.room(C3, reflection=0.0)
    assert not watching.is_alive()

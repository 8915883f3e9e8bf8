"""``pyramid diag --check`` over the serial link, each maker's mistake injected.

The real :class:`SerialBoard` talks over a pty to the real firmware on the simulated Pico
(firmware/sim), whose chip models the matrix's wiring faults (a missing or reversed
diode, a cut column: ``SimPico.set_diode``, ``SimPico.cut_column``); the pearls a scripted
person places (rigs/person.py) close its switches through :class:`PearlBoard`,
which models swapped and stuck reeds and a neighbour's magnet. The Pico numbers its
channels in reading order, so its matrix columns are not the board's files: the check
names causes by the wiring, whatever the board looks like.

The Pico runs in real time behind a real pty (that is what is tested). The check runs on
a virtual clock that only the person moves, and only once the Pico has scanned the move
(the simulated chip counts its scans) and the host has read everything the Pico said
about it (an LED frame sent after those scans is answered after them, on the same line):
the tests wait on events, never on a fixed time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from serial_helpers import BOARD, CHANNELS, LEDS, TIMING, Recorder

from controller.cli.acceptance import Layout, Pass
from controller.cli.diag import Post, pico_wires
from controller.hardware.channels import ChannelMap
from controller.hardware.serial import SerialBoard
from firmware import config as pico_config
from firmware.sim.harness import SimPico
from rigs.pearls import CrossTalk, PearlBoard
from rigs.person import PATIENCE, Looked, Outcome, check_by_hand
from rigs.poll import wait_until

CMAP = ChannelMap.default()
QUICK = replace(BOARD, scan_ms=1, debounce_scans=2)
"""The Pico scans every 1 ms and debounces over two scans (shipped: 4 ms and three): the
person waits for the scans that show each move, so slower ones only make it wait longer."""
WIDTH = len(QUICK.columns)


@pytest.fixture
def pico() -> Iterator[SimPico]:
    with SimPico(QUICK) as running:
        yield running


def pico_looked(pico: SimPico, board: SerialBoard) -> Looked:
    """The Pico has looked once ``debounce + 1`` scans have begun since the switches were
    set (the first may have read some rows before); every ``S`` line those scans made is
    then written. The LED picture sent again after that (the same picture, on the watch's
    own thread: the LEDs do not change) is answered after those lines, and the host reads
    its line in order, publishing each frame before it reads on: once the answer is
    counted, every frame is in the watch's queue."""
    debounce = pico.config.debounce_scans

    def acked() -> int:
        return board.status().counters.get("frames_acked", 0)

    def ping(mark: list[int]) -> None:
        board.show(board.led_frame)
        # Counted after the show: an answer counted from now on is to this frame or a
        # later one. (Had this one been answered already, the next refresh answers.)
        mark.append(acked())

    def before(post: Post) -> Callable[[], None]:
        def after() -> None:
            pico.scans(more=debounce + 1, timeout=PATIENCE)  # counted from the switch lines
            mark: list[int] = []
            post(lambda: ping(mark))
            wait_until(
                lambda: bool(mark) and acked() > mark[0],
                PATIENCE,
                interval=0.0005,
                what=lambda: f"an answer to the LED frame; the link: {board.status().detail}",
            )

        return after

    return before


def swap_columns(first: int, second: int) -> Callable[[Iterable[int]], frozenset[int]]:
    """The switches as the Pico sees them when the wires of two matrix columns are
    exchanged at its pins: each switch of one column closes the other's crossing."""
    other = {first: second, second: first}

    def seen_as(closed: Iterable[int]) -> frozenset[int]:
        return frozenset(ch // WIDTH * WIDTH + other.get(ch % WIDTH, ch % WIDTH) for ch in closed)

    return seen_as


@pytest.fixture
def check(pico: SimPico) -> Iterator[Callable[..., Outcome]]:
    def run(
        wiring: Callable[[Iterable[int]], frozenset[int]] | None = None, **pearls: Any
    ) -> Outcome:
        board = SerialBoard(pico.port, CHANNELS, LEDS, timing=TIMING)

        def apply(closed: frozenset[int]) -> None:
            pico.set_active(closed if wiring is None else wiring(closed))

        placed = PearlBoard(CMAP.channel_by_name, apply, **pearls)
        wires = pico_wires(QUICK.rows, QUICK.columns)
        return check_by_hand(board, CMAP, WIDTH, placed, pico_looked(pico, board), wires)

    yield run


def column(index: int) -> tuple[str, ...]:
    """The sensors whose switches sit in matrix column ``index``, as the check names them."""
    return tuple(n for n in Layout.of(CMAP, WIDTH).names if CMAP.channel(n) % WIDTH == index)


def test_the_person_waits_until_the_host_has_what_the_pico_saw(
    pico: SimPico, board: SerialBoard, recorder: Recorder
) -> None:
    """What the scripted person relies on: once ``pico_looked`` returns, every frame the
    Pico made of a move has reached the host's listener, with no wait of its own."""
    looked = pico_looked(pico, board)
    for channels in ({3}, {3, 20}, {20}, set()):
        after = looked(lambda call: call())  # the watch's thread is this one here
        pico.set_active(channels)
        after()
        assert (recorder.frames[-1].active if recorder.frames else set()) == channels


def test_a_healthy_board_passes(check: Callable[..., Outcome]) -> None:
    outcome = check()
    assert outcome.causes == []
    assert outcome.out.rstrip().endswith("check: all good"), outcome.out
    assert outcome.status == 0
    assert outcome.enters == []  # every step went on by itself once the board showed it


def test_a_swapped_pair_is_named(check: Callable[..., Outcome]) -> None:
    outcome = check(swapped=[("c3", "d3")])
    assert outcome.status == 1
    assert "  seen: asked for c3, d3 changed\n" in outcome.out
    assert outcome.causes == [("swapped", ("c3", "d3"))], outcome.out


def test_two_swapped_column_wires_are_named_in_one_line(check: Callable[..., Outcome]) -> None:
    outcome = check(wiring=swap_columns(2, 3))
    assert outcome.status == 1
    assert outcome.causes == [("swapped columns", tuple(sorted(
        column(2) + column(3), key=Layout.of(CMAP, WIDTH).names.index)))], outcome.out  # fmt: skip
    # The wires as firmware/config.py has them (what `pyramid flash` puts on the Pico).
    assert (QUICK.rows, QUICK.columns) == (pico_config.ROW_PINS, pico_config.COLUMN_PINS)
    likely = [line for line in outcome.out.splitlines() if "likely:" in line]
    assert len(likely) == 1
    assert likely[0].endswith(
        ": the wires on GP10 (Pico pin 14) and GP11 (Pico pin 15) are exchanged: swap "
        "them, or swap 10 and 11 in COLUMN_PINS in the Pico's config.py "
        "(firmware/config.py; `pyramid flash` copies it)"
    )


def test_a_missing_diode_is_named(pico: SimPico, check: Callable[..., Outcome]) -> None:
    pico.set_diode(CMAP.channel("b2"), "missing")
    outcome = check()
    assert outcome.status == 1
    assert [kind for kind, _ in outcome.causes] == ["missing diode"], outcome.out
    assert outcome.causes[0][1][0] == "b2"
    lifts = [s for s in outcome.steps if s.pass_ is Pass.LIFT]
    assert len(lifts) < 30 and "The lift pass skipped " in outcome.out


def test_a_reversed_diode_is_named(pico: SimPico, check: Callable[..., Outcome]) -> None:
    pico.set_diode(CMAP.channel("c3"), "reversed")
    outcome = check()
    assert outcome.status == 1
    assert outcome.causes == [("dead sensor", ("c3",))], outcome.out
    assert "c3 never closed: a reversed diode" in outcome.out


def test_a_stuck_switch_is_named(check: Callable[..., Outcome]) -> None:
    outcome = check(stuck=["d4"])
    assert outcome.status == 1
    assert outcome.causes == [("stuck", ("d4",))], outcome.out
    assert outcome.enters == []  # the empty board went on by itself


def test_a_dead_column_is_named(pico: SimPico, check: Callable[..., Outcome]) -> None:
    pico.cut_column(2)
    outcome = check()
    assert outcome.status == 1
    assert len(column(2)) == 6
    assert outcome.causes == [("dead column", column(2))], outcome.out
    assert "matrix column 2 (GP10, Pico pin 14) is dead" in outcome.out


def test_a_neighbour_that_closes_a_reed_is_named(check: Callable[..., Outcome]) -> None:
    outcome = check(crosstalk={"c3": CrossTalk(towards="d3", operate_at=30.0)})
    assert outcome.status == 1
    assert "  seen: c3 read occupied with only its neighbours full" in outcome.out
    assert outcome.causes == [("cross-talk", ("c3",))], outcome.out

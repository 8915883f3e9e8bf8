"""Bounce and glitches over thousands of edges, in virtual time, through the gpio adapter.

The contacts chatter for 0.5–4 ms on every edge (segments of 0.05–1 ms) and glitch for
under one fast scan period while resting. A virtual clock runs the adapter's own
``scan_once`` loop, so the timing is exact and thousands of edges take a second or two.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from controller.config import GpioConfig, LedConfig, Topology
from controller.hardware.gpio import AdaptiveScan, GpioBoard
from rigs.circuits import (
    BouncingContacts,
    DiodeMatrix,
    DirectWiring,
    VirtualClock,
)

PINS = (4, 17, 27, 22)
TIMING = GpioConfig(idle_ms=8, fast_ms=1, agree=4)
"""The scan's timing (any wiring's GpioConfig carries it; this one's is the default matrix)."""
NO_LEDS = LedConfig(spi=None)


@dataclass(frozen=True)
class Edge:
    channel: int
    at: float
    closed: bool
    settled: float


def run(board: GpioBoard, clock: VirtualClock, until: float) -> list[tuple[float, frozenset[int]]]:
    """Drive the adapter's scan loop in virtual time; every frame with its time."""
    frames = []
    seq = board.read().seq
    next_scan = clock.now
    while next_scan < until:
        clock.now = next_scan
        next_scan = board.scan_once(clock.now)
        frame = board.read()
        if frame.seq != seq:
            frames.append((clock.now, frame.active))
            seq = frame.seq
    return frames


def transitions(
    frames: list[tuple[float, frozenset[int]]], channel: int
) -> list[tuple[float, bool]]:
    found = []
    level = False
    for at, active in frames:
        if (channel in active) != level:
            level = not level
            found.append((at, level))
    return found


def schedule(
    contacts: BouncingContacts, channels: int, edges_each: int, rng: random.Random, glitches: bool
) -> list[list[Edge]]:
    """Random edges per channel, 30–80 ms apart, with glitches in the quiet between."""
    truth: list[list[Edge]] = [[] for _ in range(channels)]
    for channel in range(channels):
        t = 0.010 + rng.uniform(0, 0.02)
        level = False
        for _ in range(edges_each):
            level = not level
            settled = contacts.set(channel, level, at=t)
            truth[channel].append(Edge(channel, t, level, settled))
            gap = rng.uniform(0.030, 0.080)
            if glitches:
                quiet_start, quiet_end = settled + 0.012, t + gap - 0.005
                g = quiet_start + rng.uniform(0, 0.004)
                while g < quiet_end:
                    width = rng.uniform(0.00005, 0.0009)  # under one fast scan period
                    contacts.glitch(channel, g, width)
                    g += width + rng.uniform(0.003, 0.012)
            t += gap
    return truth


def check(truth: list[list[Edge]], frames: list[tuple[float, frozenset[int]]]) -> list[float]:
    """Every edge passes exactly once, in order, never early; the latencies.

    A frame may come before the last bounce ends (when four scans in a row happen to read
    the final level): that is the level the contact settles at, so it is no false frame.
    """
    latencies = []
    for channel, edges in enumerate(truth):
        seen = transitions(frames, channel)
        assert [level for _, level in seen] == [e.closed for e in edges], f"channel {channel}"
        for (at, _), edge in zip(seen, edges, strict=True):
            assert at >= edge.at
            # And at most an idle period plus `agree` fast scans after it.
            limit = TIMING.idle_ms + TIMING.agree * TIMING.fast_ms
            assert at - max(edge.settled, edge.at + TIMING.idle_ms / 1000) <= limit / 1000 + 1e-9
            latencies.append(at - edge.at)
    return latencies


def timed(topology: Topology = "matrix", **wiring: Any) -> GpioConfig:
    """A wiring scanned with TIMING's timing."""
    return GpioConfig(topology, **wiring, idle_ms=8, fast_ms=1, agree=4)


def test_bouncing_edges_pass_exactly_once(mock_factory: MockFactory) -> None:
    clock = VirtualClock()
    contacts = BouncingContacts(len(PINS), clock, seed=1)
    DirectWiring(mock_factory, PINS, contacts)
    truth = schedule(contacts, len(PINS), 600, random.Random(1), glitches=False)
    config = timed("direct", pins=PINS)
    with GpioBoard(config, NO_LEDS, 0, clock=clock) as board:
        frames = run(board, clock, until=max(e[-1].settled for e in truth) + 0.05)
    latencies = check(truth, frames)
    assert len(latencies) == 2400
    assert max(latencies) < 0.020  # DESIGN.md: edge to frame well under 20 ms


def test_edges_with_glitches_between_them(mock_factory: MockFactory) -> None:
    clock = VirtualClock()
    contacts = BouncingContacts(len(PINS), clock, seed=2)
    DirectWiring(mock_factory, PINS, contacts)
    truth = schedule(contacts, len(PINS), 400, random.Random(2), glitches=True)
    config = timed("direct", pins=PINS)
    with GpioBoard(config, NO_LEDS, 0, clock=clock) as board:
        frames = run(board, clock, until=max(e[-1].settled for e in truth) + 0.05)
    check(truth, frames)


def test_thousands_of_glitches_make_no_frame(mock_factory: MockFactory) -> None:
    clock = VirtualClock()
    contacts = BouncingContacts(len(PINS), clock, seed=3)
    DirectWiring(mock_factory, PINS, contacts)
    rng = random.Random(3)
    for channel in range(len(PINS)):
        if channel % 2:  # half the contacts rest closed, so glitches go both ways
            contacts.set(channel, True, at=0.0)
        t = 0.01
        for _ in range(1000):
            t += rng.uniform(0.002, 0.030)
            width = rng.uniform(0.00005, 0.0009)
            contacts.glitch(channel, t, width)
            t += width
    config = timed("direct", pins=PINS)
    with GpioBoard(config, NO_LEDS, 0, clock=clock) as board:
        frames = run(board, clock, until=t + 0.05)
        counters = board.status().counters
    # Only the contacts resting closed change, once each; no glitch makes a frame.
    assert frames[-1][1] == {1, 3}
    assert [len(transitions(frames, channel)) for channel in range(4)] == [0, 1, 0, 1]
    # The glitches were seen (they set off confirmation scans), and rejected.
    assert counters["fast_scans"] > 1000


def test_a_pulse_longer_than_the_window_does_pass(mock_factory: MockFactory) -> None:
    """The harness can see a false frame: a 12 ms pulse (a real, brief touch) gets through."""
    clock = VirtualClock()
    contacts = BouncingContacts(1, clock, seed=4)
    DirectWiring(mock_factory, PINS[:1], contacts)
    contacts.glitch(0, 0.0105, 0.012)
    config = timed("direct", pins=PINS[:1])
    with GpioBoard(config, NO_LEDS, 0, clock=clock) as board:
        frames = run(board, clock, until=0.05)
    assert [active for _, active in frames] == [frozenset({0}), frozenset()]


def test_bouncing_matrix(mock_factory: MockFactory) -> None:
    """The same guarantee through the diode matrix, where a scan reads 36 switches."""
    rows, cols = (4, 17, 27, 22, 5, 6), (13, 19, 26, 16, 20, 21)
    clock = VirtualClock()
    contacts = BouncingContacts(36, clock, seed=5)
    DiodeMatrix(mock_factory, rows, cols, contacts)
    truth = schedule(contacts, 36, 12, random.Random(5), glitches=True)
    config = timed(rows=rows, cols=cols)
    with GpioBoard(config, NO_LEDS, 0, clock=clock) as board:
        frames = run(board, clock, until=max(e[-1].settled for e in truth) + 0.05)
    assert len(check(truth, frames)) == 36 * 12


@pytest.mark.parametrize("agree", [2, 3, 4, 8])
def test_any_one_scan_glitch_is_rejected(agree: int) -> None:
    policy = AdaptiveScan(GpioConfig(idle_ms=8, fast_ms=1, agree=agree))
    rng = random.Random(agree)
    state = 0
    for _ in range(2000):
        glitch = state ^ (1 << rng.randrange(8))
        assert policy.feed(glitch)[0] is None
        for _ in range(agree):
            assert policy.feed(state)[0] is None
        assert not policy.busy


def test_scan_period_is_fast_only_while_something_changes() -> None:
    policy = AdaptiveScan(TIMING)
    assert policy.feed(0) == (None, 0.008)
    delays = [policy.feed(0b10)[1] for _ in range(4)]
    assert delays == [0.001, 0.001, 0.001, 0.008]
    assert policy.state == 0b10

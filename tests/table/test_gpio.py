"""The Table on the gpio adapter: reed switches in a diode matrix on gpiozero mock pins,
scanned and debounced by the adapter's own thread, LEDs decoded from the SPI wires."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.games.perlen.record import PerlenRecord
from controller.games.perlen.record import replay as replay_perlen
from controller.games.perlen.snapshot import BonusView, PearlView
from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.games.pyramidos.record import PyramidosRecord
from controller.games.pyramidos.record import last_state as replay_pyramidos
from controller.games.pyramidos.snapshot import parts_of as pyramidos_parts
from controller.games.registry import parse_record
from controller.palette import parse_hex
from controller.referee.commands import NewGame
from controller.referee.snapshot import Snapshot
from rigs.circuits import BouncingContacts
from rigs.poll import wait_until
from rigs.scripts import perlen_script, play, pyramidos_script
from rigs.table import GpioHarness

RED, BLUE = (0xD6, 0x27, 0x28), (0x1F, 0x77, 0xB4)


def scanned_past(h: GpioHarness, moment: float, scans: int = 8) -> None:
    """Wait until the board's scan thread has scanned ``scans`` times after ``moment``
    (on the contacts' clock, the real one): by then anything the contacts did before it
    has either become a frame or been filtered out, so a test can assert that nothing
    came without sleeping and hoping the scanner kept up."""
    wait_until(lambda: time.monotonic() > moment, timeout=5.0)
    start = h.board.status().counters.get("scans", 0)
    wait_until(lambda: h.board.status().counters.get("scans", 0) >= start + scans, timeout=5.0)


@pytest.fixture
def h(tmp_path: Path) -> Iterator[GpioHarness]:
    harness = GpioHarness(tmp_path / "g.sqlite3")
    harness.start()
    try:
        yield harness
    finally:
        harness.stop()


def test_a_whole_perlen_game_through_the_matrix(h: GpioHarness) -> None:
    assert h.submit(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"))).ok
    seat0, seat1 = h.cmap.led("seat:0"), h.cmap.led("seat:1")
    assert seat0 is not None and seat1 is not None
    h.strip.wait_for(lambda colours: colours[seat0] == RED)
    steps = perlen_script(11)
    for n, step in enumerate(steps):
        play(h, step)
        if n == 0:  # the LED chain itself shows the next player's seat
            h.strip.wait_for(lambda c: c[seat1] == BLUE and not any(c[seat0]))
    snap = h.wait(lambda s: s.status == "over")
    assert snap.game_id is not None
    stored = h.table.history.game(snap.game_id)
    assert stored is not None
    record = parse_record(dict(stored.record))
    assert isinstance(record, PerlenRecord)
    state = replay_perlen(record).state
    views: tuple[PearlView | BonusView, ...] = (
        *perlen_parts(snap).pearls,
        *perlen_parts(snap).pending,
    )
    shown = {(q.pos, q.colour) for q in views}  # the last bonus
    assert {(str(p), c) for p, c in state.pearls()} == shown  # pearls finish the pyramid
    status = h.board.status()
    assert status.counters["frames"] >= sum(1 for s in steps if s.action == "place")
    assert h.strip.malformed == 0


def test_a_whole_pyramidos_game_through_the_matrix(h: GpioHarness) -> None:
    assert h.submit(NewGame("pyramidos", ("Anna", "Ben", "Cleo"))).ok
    for step in pyramidos_script(4, 3):
        play(h, step)
    snap = h.wait(lambda s: s.status == "over")
    assert snap.game_id is not None
    stored = h.table.history.game(snap.game_id)
    assert stored is not None
    record = parse_record(dict(stored.record))
    assert isinstance(record, PyramidosRecord)
    state = replay_pyramidos(record)
    assert dict(pyramidos_parts(snap).targets) == state.targets()
    winner = snap.players[snap.winners[0]]
    rgb = parse_hex(winner.colour)
    seat = h.cmap.led(f"seat:{winner.seat}")
    assert seat is not None
    h.strip.wait_for(lambda c: c[seat] == rgb)


def test_bouncing_contacts_and_glitches_make_exactly_the_moves_made(tmp_path: Path) -> None:
    contacts = BouncingContacts(36, time.monotonic, seed=5, bounce_ms=(1.0, 6.0))
    h = GpioHarness(tmp_path / "g.sqlite3", contacts=contacts).start()
    rng = random.Random(5)
    try:
        assert h.submit(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"))).ok
        placed: list[str] = []
        for cell in ("c3", "d4", "d3", "b2", "e5", "e4"):
            contacts.set(h.cmap.channel(cell), True)  # chatters for up to 6 ms, then rests
            placed.append(cell)
            want = tuple(sorted(placed))

            def settled(s: Snapshot, want: tuple[str, ...] = want) -> bool:
                return s.moves == len(want) and s.sensors == want

            h.wait(settled)
            # Glitches shorter than the adapter's glitch window on empty cells and a bumped
            # board's brief drop-outs on occupied ones: never a frame, never a move.
            frames = h.board.read().seq
            now = time.monotonic()
            for k in range(20):
                cell_index = rng.randrange(25)
                contacts.glitch(cell_index, now + 0.002 + k * 0.004, rng.uniform(0.0002, 0.0015))
            scanned_past(h, now + 0.002 + 20 * 0.004)
            assert h.board.read().seq == frames  # the scanner saw them all and sent nothing
        assert h.table.flush()
        snap = h.snap
        assert snap.moves == len(placed) and snap.status in ("playing", "bonus")
        assert snap.game_id is not None
        stored = h.table.history.game(snap.game_id)
        assert stored is not None
        moves = [e.data["cell"] for e in stored.events if e.kind == "move"]
        assert moves == placed
    finally:
        h.stop()

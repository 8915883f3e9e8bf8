"""Drive a real Table on a SimBoard and a real SQLite store, as players and a page would.

Used by the tests here and by ``driver.py`` (the process the SIGKILL test kills).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.hardware.channels import ChannelMap
from controller.hardware.sim import SimBoard
from controller.rules import perlen, pyramidos
from controller.store import Store
from controller.table import Command, Reply, Snapshot, Table, TableSettings

FAST = TableSettings(settle_s=0.05, together_s=0.0, sweep_s=0.3, sweep_step_s=0.05)
"""Short holds so that tests run quickly; the logic is the same as with the defaults."""


class Harness:
    """A SimBoard, a store at ``path`` and a Table over them."""

    board: Any

    def __init__(
        self,
        path: Path,
        settings: TableSettings = FAST,
        channel_map: ChannelMap | None = None,
    ) -> None:
        self.cmap = channel_map or ChannelMap.default()
        self.board = self._make_board()
        self.path = path
        self.store = Store(path)
        self.table = Table(self.board, self.cmap, self.store, settings)

    def _make_board(self) -> Any:
        return SimBoard(self.cmap.channel_count, self.cmap.led_count)

    def start(self) -> Harness:
        self.table.start()
        self.wait(lambda s: s.link is not None and s.sensor_seq >= self.board.read().seq)
        return self

    def stop(self) -> None:
        self.table.stop()
        self.store.close()

    def __enter__(self) -> Harness:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what the table sees ----------------------------------------------------------------
    @property
    def snap(self) -> Snapshot:
        return self.table.snapshot

    def wait(self, predicate: Callable[[Snapshot], bool], timeout: float = 5.0) -> Snapshot:
        """Wait until the published snapshot satisfies ``predicate``."""
        end = time.monotonic() + timeout
        while True:
            snap = self.table.snapshot
            if predicate(snap):
                return snap
            if time.monotonic() > end:
                raise AssertionError(f"timed out; last snapshot: {snap.to_dict()}")
            time.sleep(0.002)

    # -- what players do --------------------------------------------------------------------
    def set_names(self, names: Iterable[str]) -> Snapshot:
        """Make exactly ``names`` active and wait until the Table has handled the frame."""
        frame = self.board.set_active(self.cmap.channel(n) for n in names)
        seq = self.board.read().seq if frame is None else frame.seq
        return self.wait(lambda s: s.sensor_seq >= seq)

    def active(self) -> set[str]:
        return set(self.cmap.names_of(self.board.read().active))

    def put(self, *names: str) -> Snapshot:
        return self.set_names(self.active() | set(names))

    def lift(self, *names: str) -> Snapshot:
        return self.set_names(self.active() - set(names))

    def press(self, button: str) -> Snapshot:
        self.put(button)
        return self.lift(button)

    def submit(self, command: Command) -> Reply:
        return self.table.submit(command)


@dataclass(frozen=True)
class Step:
    """One thing players do in a scripted game."""

    action: str
    """``place`` (a base pearl), ``lift`` (take the last back), ``confirm`` / ``page``
    (acknowledge a bonus by button or page), ``undo`` (button), ``land``, ``leave``,
    ``end`` (Pyramidos; ``end`` by button)."""
    name: str = ""


def perlen_script(seed: int, options: perlen.PerlenOptions | None = None) -> list[Step]:
    """A whole random game of Perlen-Pyramide as players would play it.

    Bonus pearls are acknowledged by the confirm button, the page, or the next pearl, at
    random; now and then a player lifts their pearl again (a take-back) and plays another.
    """
    rng = random.Random(seed)
    state = perlen.new_game(options)
    steps: list[Step] = []
    pending = 0
    while not state.over:
        cells = perlen.legal_moves(state)
        cell = rng.choice(cells).short
        # Acknowledge some or all waiting bonuses first; the rest go with the next pearl.
        while pending and rng.random() < 0.6:
            steps.append(Step(rng.choice(("confirm", "page"))))
            pending -= 1
        before = state
        state, bonuses = perlen.play(state, cell)
        steps.append(Step("place", cell))
        if not bonuses and not state.over and rng.random() < 0.1:
            steps.append(Step("lift", cell))
            state = before
            pending = 0
            continue
        pending = len(bonuses)
    steps.extend(Step(rng.choice(("confirm", "page"))) for _ in range(pending))
    return steps


def pyramidos_script(seed: int, seats: int = 3) -> list[Step]:
    """A whole random game of Pyramidos (landings, knock-offs, ended turns)."""
    rng = random.Random(seed)
    state = pyramidos.new_game(seats)
    steps: list[Step] = []
    while not state.over:
        event = rng.choice(pyramidos.legal_events(state))
        if isinstance(event, pyramidos.Leave) and rng.random() < 0.75:
            continue  # balls are knocked off now and then, not every other turn
        if isinstance(event, pyramidos.Land):
            steps.append(Step("land", str(event.target)))
        elif isinstance(event, pyramidos.Leave):
            steps.append(Step("leave", str(event.target)))
        else:
            steps.append(Step("end"))
        state = pyramidos.apply(state, event)
    return steps


def play(h: Harness, step: Step) -> Snapshot:
    """Do ``step`` on the board (or the page) and wait until the Table has taken it."""
    from controller.table import ConfirmBonus

    before = h.snap
    if step.action == "place":
        snap = h.put(step.name)
        assert snap.moves == before.moves + 1, snap.to_dict()
        return snap
    if step.action == "lift":
        h.lift(step.name)
        return h.wait(lambda s: s.moves == before.moves - 1)
    if step.action in ("confirm", "page"):
        if step.action == "confirm":
            snap = h.press("button:confirm")
        else:
            assert h.submit(ConfirmBonus()).ok
            snap = h.snap
        assert len(snap.pending) == len(before.pending) - 1, snap.to_dict()
        return snap
    if step.action == "land":
        snap = h.put(step.name)
        assert snap.moves == before.moves + 1, snap.to_dict()
        return snap
    if step.action == "leave":
        h.lift(step.name)
        return h.wait(lambda s: s.moves == before.moves + 1)
    if step.action == "end":
        snap = h.press("button:end_turn")
        assert snap.moves == before.moves + 1, snap.to_dict()
        return snap
    raise ValueError(f"unknown step {step}")


def lit(h: Harness) -> dict[str, object]:
    """The lit LEDs of the board's current frame, by name."""
    frame = h.board.led_frame
    return {
        name: frame.leds[index]
        for name, index in h.cmap.led_by_name.items()
        if index < len(frame) and frame.leds[index].lit
    }


NAMES = {"perlen-pyramide": ("Anna", "Ben", "Cleo"), "pyramidos": ("Anna", "Ben", "Cleo")}


def script_for(game: str, seed: int) -> list[Step]:
    return perlen_script(seed) if game == "perlen-pyramide" else pyramidos_script(seed, 3)


def expected_events(game: str, steps: list[Step]) -> list[list[tuple[str, dict]]]:
    """The events the store must hold for each step of ``steps`` (what the Table commits)."""
    from controller.table import PerlenGame, PyramidosGame

    out: list[list[tuple[str, dict]]] = []
    if game == "perlen-pyramide":
        g = PerlenGame.new(perlen.PerlenOptions())
        for step in steps:
            if step.action == "place":
                mover = g.state.to_move
                acks = [
                    ("bonus", {"pos": str(b.position), "colour": b.colour, "by": "pearl"})
                    for b in g.pending
                ]
                out.append([*acks, ("move", {"cell": step.name, "colour": mover})])
                g = g.acknowledge_all().move(step.name)
            elif step.action in ("confirm", "page"):
                b = g.pending[0]
                by = "button" if step.action == "confirm" else "page"
                out.append([("bonus", {"pos": str(b.position), "colour": b.colour, "by": by})])
                g = g.acknowledge()
            elif step.action == "lift":
                out.append([("undo", {"by": "lift", "what": step.name})])
                g = g.undo()
        return out
    p = PyramidosGame.new(pyramidos.PyramidosOptions(seats=3))
    for step in steps:
        seat = p.state.to_move
        if step.action == "land":
            out.append([("land", {"target": step.name, "seat": seat})])
            p = p.event(f"land {step.name}")
        elif step.action == "leave":
            owner = p.state.targets()[step.name]
            out.append([("leave", {"target": step.name, "seat": owner})])
            p = p.event(f"leave {step.name}")
        else:
            out.append([("end", {"seat": seat, "by": "button"})])
            p = p.event("end")
    return out


def physical_after(board: set[str], step: Step) -> set[str]:
    """What lies on the board after a person did ``step`` (buttons are let go again)."""
    if step.action in ("place", "land"):
        return board | {step.name}
    if step.action in ("lift", "leave"):
        return board - {step.name}
    return board


class GpioHarness(Harness):
    """The same, on the gpio adapter: a diode matrix of reed switches on gpiozero mock pins
    (the default 6×6 wiring) and an APA102 chain on SPI that decodes what the Pi sends.

    Sensors change by closing switches; the board's own scan thread debounces them.
    """

    def __init__(self, path: Path, settings: TableSettings = FAST, contacts: Any = None) -> None:
        self._contacts = contacts
        super().__init__(path, settings)

    def _make_board(self) -> Any:
        from gpiozero import Device
        from gpiozero.pins.mock import MockFactory

        from controller.config import GpioConfig, LedConfig
        from controller.hardware.gpio import GpioBoard
        from controller.hardware.mock_circuits import Apa102Strip, DiodeMatrix

        gpio = GpioConfig()
        self.factory = MockFactory()
        # gpiozero's SPI (software, on mock pins) asks Device.pin_factory; put it back later.
        self._saved_factory = Device.pin_factory
        Device.pin_factory = self.factory
        self.matrix = DiodeMatrix(self.factory, gpio.rows, gpio.cols, contacts=self._contacts)
        self.strip = Apa102Strip(self.factory, self.cmap.led_count)
        leds = LedConfig(brightness=1.0)
        return GpioBoard(gpio, leds, self.cmap.led_count, pin_factory=self.factory)

    def stop(self) -> None:
        from gpiozero import Device

        try:
            super().stop()
            self.board.close()
        finally:
            self.factory.reset()
            Device.pin_factory = self._saved_factory

    def set_names(self, names: Iterable[str]) -> Snapshot:
        want = tuple(sorted(set(names)))
        self.matrix.switches.set_closed(self.cmap.channel(n) for n in want)
        return self.wait(lambda s: s.sensors == want)

    def active(self) -> set[str]:
        return set(self.cmap.names_of(self.matrix.contacts.closed_set()))

    def strip_lit(self) -> dict[str, tuple[int, int, int]]:
        """What the LED chain shows now (steady LEDs; blinking ones may be dark), by name."""
        colours = self.strip.colours()
        return {n: colours[i] for n, i in self.cmap.led_by_name.items() if any(colours[i])}

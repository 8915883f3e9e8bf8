"""The acceptance check's state machine in virtual time: a person, a board, no threads.

The board is the mock diode matrix (:class:`DiodeMatrix` on gpiozero's ``MockFactory``),
scanned by hand the way the gpio adapter scans it (one row low, the columns read); the
person places pearls through :class:`PearlBoard` and presses Enter. Faults no circuit
model has (a slow column, a bridge) are fed as the frames such a board would send.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory

from controller.commands.acceptance import (
    Check,
    Kind,
    Layout,
    Pass,
    Step,
    Timing,
    causes,
    done,
    neighbours,
    next_deadline,
    seen,
    start,
    timer,
)
from controller.config import load_config
from controller.hardware.channels import ChannelMap
from tests.rigs.circuits import DiodeMatrix
from tests.rigs.pearls import CrossTalk, PearlBoard

MATRIX = Path(__file__).resolve().parents[2] / "configs" / "matrix.toml"
TIMING = Timing(settle=0.3, grace=0.5, patience=20.0)
CMAP = load_config(MATRIX).board.channel_map  # rows are ranks, columns files (and targets)
LAYOUT = Layout.of(CMAP, columns=6)


def scanner(factory: MockFactory, matrix: DiodeMatrix) -> Callable[[], frozenset[int]]:
    """One scan of ``matrix`` as the gpio adapter does it: each row low in turn."""
    rows = [factory.pin(g) for g in matrix.rows]
    cols = [factory.pin(g) for g in matrix.cols]
    for col in cols:
        col.input_with_pull("up")

    def scan() -> frozenset[int]:
        active: set[int] = set()
        for r, row in enumerate(rows):
            row.output_with_state(False)
            active.update(r * len(cols) + c for c, col in enumerate(cols) if not col.state)
            row.input_with_pull("floating")
        return frozenset(active)

    return scan


class Person:
    """Does what each step asks, a tenth of a second per pearl, then presses Enter."""

    def __init__(self, pearls: PearlBoard, read: Callable[[], frozenset[int]]) -> None:
        self.pearls = pearls
        self.read = read
        self.now = 0.0

    def change(self, check: Check, do: Callable[[str], None], name: str) -> Check:
        do(name)
        self.now += 0.1
        return seen(check, self.read(), self.now)

    def through(self, check: Check, limit: int = 200) -> Check:
        for _ in range(limit):
            if check.finished:
                return check
            step = check.step
            check = self.act(check, step)
            self.now += TIMING.settle
            check = timer(check, self.now)
            if check.step is step:
                check = done(check, self.now)
                self.now += TIMING.grace
                check = timer(check, self.now)
            assert check.step is not step, f"{step} was not judged"
        raise AssertionError("the check did not finish")

    def act(self, check: Check, step: Step) -> Check:
        board = self.pearls
        if step.touch:
            first, then = (
                (board.lift, board.place)
                if step.pass_ is Pass.LIFT
                else (
                    board.place,
                    board.lift,
                )
            )
            check = self.change(check, first, step.target)
            return self.change(check, then, step.target)
        board.set(board.pearls & set(step.pearls))
        check = seen(check, self.read(), self.now)
        for name in step.pearls:
            if name not in board.pearls:
                check = self.change(check, board.place, name)
        return check


def run(
    factory: MockFactory, circuit: dict[str, Any] | None = None, **pearls: Any
) -> tuple[Check, list[tuple[str, tuple[str, ...]]]]:
    gpio = load_config(MATRIX).board.gpio
    matrix = DiodeMatrix(factory, gpio.rows, gpio.cols, **(circuit or {}))
    placed = PearlBoard(CMAP.channel_by_name, matrix.switches.set_closed, **pearls)
    person = Person(placed, scanner(factory, matrix))
    check = start(LAYOUT, TIMING, now=0.0)
    check = person.through(seen(check, person.read(), 0.0))
    return check, [(c.kind, c.names) for c in causes(check)]


def test_a_healthy_board_passes_every_pass(mock_factory: MockFactory) -> None:
    check, found = run(mock_factory)
    assert check.findings == () and found == []
    assert check.steps_done == 1 + 33 + 1 + 30  # empty, one at a time, fill, lift


def test_faults_are_found_in_virtual_time(mock_factory: MockFactory) -> None:
    """The same faults as over the real adapters (tests/commands/test_acceptance_matrix.py,
    tests/serial/test_acceptance_serial.py), each alone, in a fraction of the time."""
    cases: list[tuple[dict[str, Any], dict[str, Any], list[tuple[str, tuple[str, ...]]]]] = [
        ({}, {"swapped": [("c3", "d3")]}, [("swapped", ("c3", "d3"))]),
        ({"reversed_diodes": [14]}, {}, [("dead sensor", ("c3",))]),
        ({}, {"stuck": ["d4"]}, [("stuck", ("d4",))]),
        ({"cut_columns": [4]}, {}, [("dead column", ("e1", "e2", "e3", "e4", "e5"))]),
        ({}, {"crosstalk": {"b2": CrossTalk("b3", 30.0)}}, [("cross-talk", ("b2",))]),
    ]
    for circuit, pearls, expected in cases:
        with_fault = MockFactory()
        _, found = run(with_fault, circuit, **pearls)
        assert found == expected, (circuit, pearls)


def test_a_missing_diode_is_found_where_its_ghosts_cross(mock_factory: MockFactory) -> None:
    check, found = run(mock_factory, {"missing_diodes": [3 * 6 + 4]})  # e4
    stayed = [f.asked for f in check.findings if f.kind is Kind.STAYED]
    # Every lifted crossing off e4's row (rank 4) and column (file e) is a fourth corner.
    assert len(stayed) == 4 * 5
    assert not {"a4", "b4", "e1", "e5", "t4"} & set(stayed)
    assert found == [("missing diode", ("e4", *stayed))]
    # The fill pass flags the placements that lit a ghost with them.
    assert any(f.kind is Kind.TOGETHER for f in check.findings)
    assert not any(s.pass_ is Pass.NEIGHBOURS for s in [check.step])


def test_a_neighbour_that_closes_a_reed_alone_is_seen_in_both_passes(
    mock_factory: MockFactory,
) -> None:
    check, found = run(mock_factory, crosstalk={"c3": CrossTalk("d3", 20.0)})
    texts = [f.text for f in check.findings]
    assert "asked for d3, it changed and so did c3" in texts
    assert "lifted c3 with the rest full, it stayed occupied" in texts
    assert "c3 read occupied with only its neighbours full (b2, c2, d2, b3, d3, b4, c4, d4)" in (
        texts
    )
    assert found == [("cross-talk", ("c3",))]


def test_two_faults_at_once(mock_factory: MockFactory) -> None:
    _, found = run(mock_factory, swapped=[("a1", "b1")], stuck=["e5"])
    assert found == [("stuck", ("e5",)), ("swapped", ("a1", "b1"))]


# -- steps fed by hand ----------------------------------------------------------------------


def ch(*names: str) -> frozenset[int]:
    return LAYOUT.channels(names)


def to_one_at_a_time(layout: Layout = LAYOUT) -> Check:
    check = seen(start(layout, TIMING, now=0.0), frozenset(), 0.0)
    check = timer(check, 1.0)
    assert check.step.pass_ is Pass.ONE
    return check


def touch(check: Check, *frames: Iterable[str], at: float) -> Check:
    """The board's frames during one touch step, then time for it to be judged."""
    for i, names in enumerate(frames):
        check = seen(check, ch(*names), at + 0.1 * i)
    return timer(done(check, at + 1), at + 2)


def test_a_slow_column_drags_the_next_row_with_every_pearl() -> None:
    check = to_one_at_a_time()
    # a1 (row 0, column 0) also shows a2 (row 1, column 0): the column was still low.
    check = touch(check, ["a1", "a2"], [], at=1)
    check = touch(check, ["b1"], [], at=3)
    for name in ("c1", "d1", "e1"):
        check = touch(check, [name], [], at=check.began + 1)
    check = touch(check, ["a2", "a3"], [], at=check.began + 1)
    kinds = [(c.kind, c.names) for c in causes(check)]
    assert kinds == [("slow column", ("a2", "a3"))]
    assert "matrix column 0 rises too slowly" in causes(check)[0].text


def test_a_pearl_that_lights_a_far_cell_is_a_bridge() -> None:
    check = touch(to_one_at_a_time(), ["a1", "e5"], [], at=1)
    assert [(c.kind, c.names) for c in causes(check)] == [("bridge", ("a1", "e5"))]


def test_one_way_wrong_wire_and_a_reed_that_sticks() -> None:
    check = touch(to_one_at_a_time(), ["c1"], [], at=1)  # a1 asked, c1 changed
    check = touch(check, ["b1"], at=3)  # b1 stayed on after the pearl was lifted
    texts = [f.text for f in check.findings]
    assert texts == ["asked for a1, c1 changed", "after b1, still occupied: b1"]
    assert [(c.kind, c.names) for c in causes(check)] == [
        ("wrong crossing", ("a1", "c1")),
        ("sticks", ("b1",)),
    ]


def test_without_a_matrix_dead_sensors_are_named_one_by_one() -> None:
    layout = Layout.of(ChannelMap.default(), columns=None)  # a mux or direct board
    check = to_one_at_a_time(layout)
    check = touch(check, at=1)
    check = touch(check, at=3)
    assert [(c.kind, c.names) for c in causes(check)] == [
        ("dead sensor", ("a1",)),
        ("dead sensor", ("b1",)),
    ]


def test_a_step_waits_for_the_person_then_judges() -> None:
    check = to_one_at_a_time()
    began = check.began
    assert next_deadline(check) == began + TIMING.patience
    check = timer(check, began + 5)
    assert check.step.target == "a1"  # nothing happened yet: still waiting
    check = seen(check, ch("a1"), began + 6)
    check = seen(check, ch(), began + 6.1)
    assert check.step.target == "a1"  # back where it was, but not yet for long enough
    assert next_deadline(check) == began + 6.1 + TIMING.settle
    check = timer(check, began + 6.1 + TIMING.settle)
    assert check.step.target == "b1" and check.findings == ()
    check = timer(check, check.began + TIMING.patience)  # nobody there: judged as it is
    assert check.step.target == "c1"
    assert [f.text for f in check.findings] == ["asked for b1, nothing changed"]


def test_neighbours_of_a_corner_and_the_middle() -> None:
    assert neighbours("e5") == ("d4", "e4", "d5")
    assert neighbours("c3") == ("b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4")
    assert neighbours("top") == ()


def test_a_cell_that_stays_only_with_the_board_full_is_a_ghost() -> None:
    """c3 reads occupied whenever twenty pearls lie on the board and none on c3 (a fault
    no circuit model has: the frames are made up), but not with its neighbours alone."""
    closed: list[frozenset[int]] = [frozenset()]
    placed = PearlBoard(CMAP.channel_by_name, closed.append)
    c3 = CMAP.channel("c3")

    def read() -> frozenset[int]:
        far = len(placed.pearls) >= 20 and "c3" not in placed.pearls
        return closed[-1] | ({c3} if far else set())

    person = Person(placed, read)
    check = person.through(seen(start(LAYOUT, TIMING, now=0.0), frozenset(), 0.0))
    before_neighbours = replace(check, surrounded=())  # as if Ctrl-C had come first
    assert [c.kind for c in causes(before_neighbours)] == ["ghost or cross-talk"]
    assert [f.text for f in check.findings] == ["lifted c3 with the rest full, it stayed occupied"]
    assert check.surrounded == ("c3",)
    assert [(c.kind, c.names) for c in causes(check)] == [("ghost", ("c3",))]

"""The acceptance check's state machine in virtual time: a person, a board, no threads.

The board is the mock diode matrix (:class:`DiodeMatrix` on gpiozero's ``MockFactory``),
scanned by hand the way the gpio adapter scans it (one row low, the columns read, in the
config's order of GPIOs); the person places pearls through :class:`PearlBoard` and
presses Enter when the check does not go on by itself. Faults no circuit model has (a
slow column, a bridge) are fed as the frames such a board would send.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory

from controller.cli.acceptance import (
    Check,
    Kind,
    Layout,
    Pass,
    Step,
    Timing,
    done,
    neighbours,
    next_deadline,
    seen,
    spoken,
    start,
    timer,
)
from controller.cli.causes import causes
from controller.cli.diag import check_layout
from controller.config import load_config
from controller.hardware.channels import ChannelMap
from rigs.circuits import DiodeMatrix
from rigs.pearls import CrossTalk, PearlBoard

MATRIX = Path(__file__).resolve().parents[2] / "configs" / "matrix.toml"
TIMING = Timing(settle=0.3, grace=0.5, patience=20.0, still=3.0)
HAND = 0.5
"""Seconds a careful hand takes per pearl (longer than ``settle``: one placement at a time)."""
GLANCE = 4.0
"""Seconds the person watches the screen before pressing Enter (longer than ``still``)."""
CONFIG = load_config(MATRIX)
CMAP = CONFIG.board.channel_map  # rows are ranks, columns files (and targets)
LAYOUT = check_layout(CONFIG, CMAP)  # the wires: GPIOs and header pins of matrix.toml


def scanner(
    factory: MockFactory, gpios: tuple[list[int], list[int]]
) -> Callable[[], frozenset[int]]:
    """One scan as the gpio adapter does it: each row low in turn, in the config's order."""
    rows = [factory.pin(g) for g in gpios[0]]
    cols = [factory.pin(g) for g in gpios[1]]
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
    """A careful maker in virtual time: one pearl at a time, :data:`HAND` seconds a move;
    after a step they watch the screen for :data:`GLANCE` seconds and press Enter only if
    the check has not gone on by itself (:attr:`enters` lists those steps)."""

    def __init__(self, pearls: PearlBoard, read: Callable[[], frozenset[int]]) -> None:
        self.pearls = pearls
        self.read = read
        self.now = 0.0
        self.enters: list[Step] = []

    def change(self, check: Check, do: Callable[[str], None], name: str) -> Check:
        do(name)
        check = seen(check, self.read(), self.now)
        self.now += HAND
        return timer(check, self.now)

    def through(self, check: Check, limit: int = 200) -> Check:
        for _ in range(limit):
            if check.finished:
                return check
            step, count = check.step, check.steps_done
            check = self.act(check, step)
            if check.steps_done == count:
                self.now += GLANCE
                check = timer(check, self.now)
            if check.steps_done == count:
                self.enters.append(check.step)
                check = done(check, self.now)
                self.now += TIMING.grace
                check = timer(check, self.now)
            assert check.steps_done > count, f"{step} was not judged"
        raise AssertionError("the check did not finish")

    def act(self, check: Check, step: Step) -> Check:
        board = self.pearls
        if step.touch:
            first, then = (
                (board.lift, board.place) if step.pass_ is Pass.LIFT else (board.place, board.lift)
            )
            check = self.change(check, first, step.target)
            return self.change(check, then, step.target)
        keep = () if step.about else step.pearls  # "clear the board, then place ..."
        board.set(board.pearls & set(keep))
        check = seen(check, self.read(), self.now)
        for name in step.pearls:
            if name not in board.pearls:
                check = self.change(check, board.place, name)
        return check


def run(
    factory: MockFactory, circuit: dict[str, Any] | None = None, **pearls: Any
) -> tuple[Check, list[tuple[str, tuple[str, ...]]]]:
    check, _ = walk(factory, circuit, **pearls)
    return check, [(c.kind, c.names) for c in causes(check)]


def walk(
    factory: MockFactory,
    circuit: dict[str, Any] | None = None,
    layout: Layout = LAYOUT,
    wired: dict[str, list[int]] | None = None,
    **pearls: Any,
) -> tuple[Check, Person]:
    """The check on the board with ``circuit``'s faults and ``pearls``' mistakes; ``wired``
    gives the GPIOs its rows and columns really are on (default: the config's)."""
    gpio = CONFIG.board.gpio
    rows, cols = list(gpio.rows), list(gpio.cols)
    matrix = DiodeMatrix(
        factory, (wired or {}).get("rows", rows), (wired or {}).get("cols", cols), **(circuit or {})
    )
    placed = PearlBoard(CMAP.channel_by_name, matrix.switches.set_closed, **pearls)
    person = Person(placed, scanner(factory, (rows, cols)))
    check = start(layout, TIMING, now=0.0)
    return person.through(seen(check, person.read(), 0.0)), person


def test_a_healthy_board_passes_every_pass(mock_factory: MockFactory) -> None:
    check, person = walk(mock_factory)
    assert check.findings == () and causes(check) == ()
    assert check.steps_done == 1 + 33 + 1 + 30  # empty, one at a time, fill, lift
    assert person.enters == []  # every step went on by itself once the board showed it


def test_faults_are_found_in_virtual_time(mock_factory: MockFactory) -> None:
    """The same faults as over the real adapters (tests/cli/test_acceptance_matrix.py,
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
    check, person = walk(mock_factory, {"missing_diodes": [3 * 6 + 4]})  # e4
    stayed = [f.asked for f in check.findings if f.kind is Kind.STAYED]
    ghosts = {f"{file}{rank}" for file in "abcd" for rank in (1, 2, 3, 5)}
    ghosts |= {"t1", "t2", "t3", "top"}  # every crossing off e4's row (rank 4) and column
    # The lift pass asked for every cell whose lift can show something, then skipped
    # those that e4 keeps occupied with the board full: 4 lifts that stayed, not 20.
    assert stayed == ["a1", "b1", "c1", "d1"]
    assert set(check.skipped) == ghosts - set(stayed)
    assert [s.target for s in person.enters] == stayed  # nothing to see: Enter
    assert not {"a4", "b4", "e1", "e5", "t4"} & set(stayed + list(check.skipped))
    # The fill pass flagged the placement that lit a ghost with it (t4 closed top's
    # rectangle); the cause names e4, and the ghosts the check saw.
    assert "while filling, came on at the same moment: t4, top" in [f.text for f in check.findings]
    assert [(c.kind, c.names) for c in causes(check)] == [
        ("missing diode", ("e4", "a1", "b1", "c1", "d1", "top"))
    ]
    text = causes(check)[0].text
    assert "(top came on with t4 while filling; a1 b1 c1 d1 stayed occupied when lifted)" in text
    assert "The lift pass skipped " in text and "check again once it is fitted" in text
    assert check.step.pass_ is Pass.FINISHED and not check.surrounded  # no neighbours pass


def test_the_fill_pass_already_shows_a_missing_diode(mock_factory: MockFactory) -> None:
    """b2 missing: filling rank after rank, each rank's pearl on file b lights the rest of
    its rank (their rectangles' other corners are full); a few lifts rule out the
    crossings that would look the same, and the rest are skipped."""
    check, _ = walk(mock_factory, {"missing_diodes": [1 * 6 + 1]})
    together = [f.text for f in check.findings if f.kind is Kind.TOGETHER]
    assert together[:3] == [
        "while filling, came on at the same moment: b3, c3, d3, e3",
        "while filling, came on at the same moment: b4, c4, d4, e4",
        "while filling, came on at the same moment: b5, c5, d5, e5",
    ]
    found = causes(check)
    assert [c.kind for c in found] == ["missing diode"] and found[0].names[0] == "b2"
    lifted = check.steps_done - 1 - 33 - 1
    assert lifted + len(check.skipped) == 30 and lifted < 15


def test_two_missing_diodes_are_both_named(mock_factory: MockFactory) -> None:
    check, _ = walk(mock_factory, {"missing_diodes": [1 * 6 + 1, 3 * 6 + 3]})  # b2, d4
    assert check.skipped == ()  # no one diode explains it all: every cell is lifted
    assert [(c.kind, c.names[0]) for c in causes(check)] == [
        ("missing diode", "b2"),
        ("missing diode", "d4"),
    ]


def test_two_swapped_column_wires_are_one_cause(mock_factory: MockFactory) -> None:
    """Columns 2 and 3 (files c and d) on each other's GPIO: not five swapped pairs."""
    check, person = walk(mock_factory, wired={"cols": [13, 19, 16, 26, 20, 21]})
    found = causes(check)
    assert [(c.kind, c.names) for c in found] == [
        ("swapped columns", ("c1", "d1", "c2", "d2", "c3", "d3", "c4", "d4", "c5", "d5",
                             "button:undo")),
    ]  # fmt: skip
    assert found[0].text == (
        "matrix columns 2 and 3 are swapped (c1 reads as d1, d1 reads as c1, c2 reads as "
        "d2, …): the wires on GPIO 26 (header pin 37) and GPIO 16 (header pin 36) are "
        "exchanged: swap them, or swap 26 and 16 in [board.gpio] cols"
    )
    assert [s.target for s in person.enters] == ["button:undo"]  # it reads at spare 33
    # Without the wiring (a layout that does not know the pins), still one line.
    check, _ = walk(
        MockFactory(), layout=Layout.of(CMAP, 6), wired={"cols": [13, 19, 16, 26, 20, 21]}
    )
    assert [c.text.split(":")[1] for c in causes(check)] == [" their wires are exchanged"]


def test_two_swapped_row_wires_are_one_cause(mock_factory: MockFactory) -> None:
    check, _ = walk(mock_factory, wired={"rows": [4, 17, 22, 27, 5, 6]})  # rows 2 and 3
    found = causes(check)
    assert [(c.kind, c.names) for c in found] == [
        ("swapped rows", ("a3", "b3", "c3", "d3", "e3", "a4", "b4", "c4", "d4", "e4", "t3",
                          "t4")),
    ]  # fmt: skip
    assert "the wires on GPIO 27 (header pin 13) and GPIO 22 (header pin 15)" in found[0].text
    assert found[0].text.endswith("swap 27 and 22 in [board.gpio] rows")


def test_one_swapped_pair_is_not_a_swapped_wire(mock_factory: MockFactory) -> None:
    """Only one crossing of the two columns reads the other's: two reeds, not two wires."""
    _, found = run(mock_factory, swapped=[("c2", "d2")])
    assert found == [("swapped", ("c2", "d2"))]


def test_a_stuck_switch_lets_the_empty_board_go_on_by_itself(mock_factory: MockFactory) -> None:
    check, person = walk(mock_factory, stuck=["d4"])
    assert [f.text for f in check.findings] == ["with the board empty, occupied: d4"]
    assert person.enters == []
    assert check.steps_done == 1 + 32 + 1 + 29  # d4 is neither asked for alone nor lifted


def test_a_pearl_left_on_the_board_is_not_a_stuck_switch() -> None:
    """The empty board goes on by itself with c3 still occupied; when c3 then clears, it
    was a pearl left there: not stuck, and asked for at the end of the pass."""
    check = seen(start(LAYOUT, TIMING, now=0.0), ch("c3"), 0.0)
    assert next_deadline(check) == TIMING.still
    check = timer(check, TIMING.still)
    assert check.step.pass_ is Pass.ONE and check.step.of == 32
    assert [f.text for f in check.findings] == ["with the board empty, occupied: c3"]
    check = seen(check, ch(), 4.0)  # the pearl taken off while a1 is asked for
    assert check.findings == () and check.step.target == "a1" and check.step.of == 33
    assert check.went == frozenset()  # not a change of a1's step
    assert check.queue[-1].target == "c3"


def test_a_neighbours_step_goes_on_by_itself_when_its_cell_closes(
    mock_factory: MockFactory,
) -> None:
    check, person = walk(mock_factory, crosstalk={"c3": CrossTalk("d3", 30.0)})
    assert [(c.kind, c.names) for c in causes(check)] == [("cross-talk", ("c3",))]
    assert [s.pass_ for s in person.enters] == [Pass.LIFT]  # the lift showed nothing


def test_buttons_are_named_as_the_page_names_them() -> None:
    assert spoken("button:end_turn") == "the End turn button" and spoken("c3") == "c3"
    check = to_one_at_a_time(Layout.of(CMAP, columns=None))  # no matrix: causes per sensor
    while check.step.target != "button:end_turn":
        check = timer(check, check.began + TIMING.patience)
    assert check.step.text == "press the End turn button"
    check = timer(check, check.began + TIMING.patience)
    texts = [f.text for f in check.findings]
    assert texts[-1] == "asked for the End turn button, nothing changed"
    assert "the End turn button never closed" in causes(check)[-1].text


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
    assert "matrix column 0 (GPIO 13, header pin 33) rises too slowly" in causes(check)[0].text


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

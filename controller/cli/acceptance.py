"""The acceptance test behind ``pyramid diag --check``: a pure state machine over what the
board reports, with time passed in, and what it found.

The causes named from what it found are in :mod:`controller.cli.causes`, the shell
that prints and reads in :mod:`controller.cli.diag`, the model of a diode matrix's
wiring in :mod:`controller.cli.matrix`.

A person at the board is asked for one thing at a time (:class:`Step`); the machine
watches the board's debounced frames (:func:`seen`), the person's "done" (:func:`done`,
Enter on the terminal) and the clock (:func:`timer`), judges each step and moves on by
itself as soon as the board shows the step's answer. The shell
(``controller/cli/diag.py``) only carries frames, keys and time in and prints what
comes out. The passes, in order:

1. **empty** — nothing on the board: whatever reads occupied is stuck. The step goes on
   by itself once the board is empty, or once it has not changed for
   :attr:`Timing.still` (a stuck switch never clears). A channel taken for stuck that
   reads empty later in the next pass was a pearl left on the board: it is asked for
   again at the end of that pass.
2. **one at a time** — each sensor alone: place the probe pearl on a cell and lift it (a
   ball on a target, press a button). Exactly the channel asked for must change: "asked
   for c3, d3 changed" is a swapped wire; when every sensor of two matrix columns (rows)
   reads as its neighbour in the other, the two column (row) wires are exchanged. A
   placement that changes more than one channel is a bridge, a slow column or a
   neighbour's magnet.
3. **fill** — a pearl on every cell and a ball on every target, one after another. What
   comes on within :attr:`Timing.settle` of one placement came with it.
4. **lift** — with the board full, lift each in turn and put it back: exactly that
   channel must clear. One pearl at a time can never show a missing diode; three
   pearls on three corners of a rectangle make the fourth corner read occupied without
   it (a ghost), and with the board full every lifted pearl is such a fourth corner. The
   fill pass usually shows the ghosts already (they come on with the pearl that closes
   their rectangle); once one missing diode explains everything seen, the lifts it
   would hide (every cell off its row and column) are skipped, since they can show
   nothing. An empty cell with its eight neighbours full is also the worst case for a
   neighbour's magnet.
5. **neighbours** — only for a cell that stayed occupied when lifted and that no missing
   diode explains: pearls on its eight neighbours, itself empty. A cell that closes now
   is closed by its neighbours' magnets; one that stays open was a ghost of a diode not
   found.

Sensors are named as the maker reads them: cells and targets by name, the buttons as
the web page names them (:func:`spoken`). How a cause names the wiring comes from
:class:`Wires` (a GPIO and its header pin, or a Pico pin), when the shell knows it.

>>> from controller.hardware.channels import ChannelMap
>>> layout = Layout.of(ChannelMap.default(cells=False), columns=None)
>>> check = start(layout, Timing(settle=0.1, grace=0.2, patience=5.0), now=0.0)
>>> check.step.text
'take every pearl and ball off the board and keep your hands off the buttons'
>>> check = timer(seen(check, frozenset(), 0.0), 0.2)
>>> check.step.text
'put a ball on t1 and take it off'
>>> check = seen(check, frozenset({1}), 1.0)            # t2 came on instead
>>> check = timer(seen(check, frozenset(), 1.1), 1.3)
>>> [f.text for f in check.findings]
['asked for t1, t2 changed']
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from controller.cli import matrix
from controller.cli.matrix import Layout, Sighting, Wire, Wires
from controller.hardware.channels import BUTTONS, CELLS, FILES, TARGETS

__all__ = [
    "BUTTON_WORDS",
    "Check",
    "Finding",
    "Kind",
    "Layout",
    "Pass",
    "Sighting",
    "Step",
    "Timing",
    "Wire",
    "Wires",
    "done",
    "missing_diodes_of",
    "names_of_kind",
    "neighbours",
    "next_deadline",
    "seen",
    "spoken",
    "spoken_all",
    "start",
    "suspects",
    "timer",
]

BUTTON_WORDS: Mapping[str, str] = {
    "button:confirm": "Confirm",
    "button:end_turn": "End turn",
    "button:undo": "Undo",
}
"""The board's buttons in the words of the web page's diagnostics ("End turn button",
web_ui/render.py ``sensor_name``; tests/cli/test_diag.py keeps the two the same)."""


def spoken(name: str) -> str:
    """A sensor as the maker reads it: cells and targets by name, buttons as the page.

    >>> spoken("c3"), spoken("button:end_turn")
    ('c3', 'the End turn button')
    """
    if name in BUTTON_WORDS:
        return f"the {BUTTON_WORDS[name]} button"
    return name


def spoken_all(names: Iterable[str], sep: str = ", ") -> str:
    return sep.join(spoken(n) for n in names)


class Pass(enum.Enum):
    """The passes of the check, in the order they run."""

    EMPTY = "empty board"
    ONE = "one at a time"
    FILL = "fill"
    LIFT = "lift"
    NEIGHBOURS = "neighbours"
    FINISHED = "finished"


@dataclass(frozen=True)
class Timing:
    """How long the check waits (seconds)."""

    settle: float = 0.4
    """A step that reached what it asked for is judged once the board stayed so this long
    (a neighbour's reed may close a moment after the pearl's own); in the fill pass, what
    comes on within this long of a placement came with it."""
    grace: float = 0.5
    """After the person said "done", how long the board has to show it."""
    patience: float = 20.0
    """A step that nothing more happens in for this long is judged as it stands."""
    still: float = 3.0
    """The empty-board step is judged as it stands once the board has not changed for
    this long: a stuck switch never clears, so waiting longer shows nothing more."""


def neighbours(cell: str) -> tuple[str, ...]:
    """The up to eight cells around a base cell (none for targets and buttons).

    >>> neighbours("a1"), len(neighbours("c3"))
    (('b1', 'a2', 'b2'), 8)
    """
    if cell not in CELLS:
        return ()
    file, rank = FILES.index(cell[0]), int(cell[1:])
    around = []
    for r in (rank - 1, rank, rank + 1):
        for f in (file - 1, file, file + 1):
            if (f, r) != (file, rank) and 0 <= f < len(FILES) and 1 <= r <= 5:
                around.append((r, f))
    return tuple(f"{FILES[f]}{r}" for r, f in sorted(around))


class Kind(enum.Enum):
    """What a step found, as an observation (the causes come from them:
    :func:`controller.cli.causes.causes`)."""

    OCCUPIED_EMPTY = "occupied with the board empty"
    NOTHING = "nothing changed"
    WRONG = "another channel changed"
    ALSO = "more than one channel changed"
    NOT_BACK = "did not clear again"
    TOGETHER = "came on together"
    NOT_FILLED = "not occupied with the board full"
    STAYED = "stayed occupied when lifted"
    SURROUNDED = "occupied with only its neighbours full"


@dataclass(frozen=True)
class Finding:
    """One thing a step saw that a good board would not do."""

    pass_: Pass
    kind: Kind
    asked: str
    """The sensor the step was about ("" for a whole-board step)."""
    names: tuple[str, ...] = ()
    """The other sensors concerned."""

    @property
    def text(self) -> str:
        return _SAYS[self.kind].format(asked=spoken(self.asked), others=spoken_all(self.names))


_SAYS: dict[Kind, str] = {
    Kind.OCCUPIED_EMPTY: "with the board empty, occupied: {others}",
    Kind.NOTHING: "asked for {asked}, nothing changed",
    Kind.WRONG: "asked for {asked}, {others} changed",
    Kind.ALSO: "asked for {asked}, it changed and so did {others}",
    Kind.NOT_BACK: "after {asked}, still occupied: {others}",
    Kind.TOGETHER: "while filling, came on at the same moment: {others}",
    Kind.NOT_FILLED: "with the board full, not occupied: {others}",
    Kind.STAYED: "lifted {asked} with the rest full, it stayed occupied",
    Kind.SURROUNDED: "{asked} read occupied with only its neighbours full ({others})",
}


@dataclass(frozen=True)
class Step:
    """What the person is asked to do now."""

    pass_: Pass
    text: str
    """The instruction, in the person's words."""
    target: str = ""
    """A touch step's sensor: it is changed and changed back (place and lift, lift and
    put back, press and let go). Empty for a set step."""
    pearls: tuple[str, ...] = ()
    """A set step's board: exactly these sensors hold a pearl or ball when it is done."""
    about: str = ""
    """A neighbours step's cell: the one left empty."""
    number: int = 0
    """This step's place in its pass (from 1), and the pass's length as known now (the
    lift pass shortens when it skips lifts a missing diode hides)."""
    of: int = 0

    @property
    def touch(self) -> bool:
        return bool(self.target)


@dataclass(frozen=True)
class Check:
    """The whole check: the step asked for now, what the board shows, what was found."""

    layout: Layout
    timing: Timing
    step: Step
    queue: tuple[Step, ...]
    """The steps after :attr:`step` in this pass."""
    active: frozenset[int]
    """The named channels occupied now."""
    start: frozenset[int]
    """:attr:`active` when the step began."""
    began: float
    changed_at: float
    """When :attr:`active` last changed (or the step began)."""
    went: frozenset[int] = frozenset()
    """Channels that differed from :attr:`start` at some moment of this step."""
    done_at: float | None = None
    findings: tuple[Finding, ...] = ()
    full: frozenset[int] = frozenset()
    """What the board read when the fill pass ended."""
    steps_done: int = 0
    surrounded: tuple[str, ...] = ()
    """Cells whose neighbours step was judged (occupied or not)."""
    placing: frozenset[int] = frozenset()
    """Fill pass: what came on with the placement under way (within ``settle``)."""
    placed_at: float = 0.0
    placing_reading: frozenset[int] = frozenset()
    lifted: frozenset[int] | None = None
    """Lift pass: what the board read the moment the lifted sensor cleared."""
    possible: frozenset[int] | None = None
    """Crossings whose missing diode agrees with every settled reading of the fill and
    lift passes so far (None: no reading yet), see :func:`_read`."""
    sightings: tuple[Sighting, ...] = ()
    skipped: tuple[str, ...] = ()
    """Lifts left out because a missing diode keeps those cells occupied anyway."""

    @property
    def finished(self) -> bool:
        return self.step.pass_ is Pass.FINISHED

    def names(self, channels: Iterable[int]) -> tuple[str, ...]:
        return self.layout.names_of(channels)


FINISHED = Step(Pass.FINISHED, "the check is finished")


def _ask(name: str) -> str:
    if name in BUTTONS:
        return f"press {spoken(name)}"
    if name in TARGETS:
        return f"put a ball on {name} and take it off"
    return f"place the probe pearl on {name} and lift it"


def _one(name: str) -> Step:
    return Step(Pass.ONE, _ask(name), target=name)


def _pass_steps(check: Check, which: Pass) -> tuple[Step, ...]:
    layout = check.layout
    stuck = set(names_of_kind(check, Kind.OCCUPIED_EMPTY))
    dead = {f.asked for f in check.findings if f.kind in (Kind.NOTHING, Kind.WRONG)}
    if which is Pass.EMPTY:
        text = "take every pearl and ball off the board and keep your hands off the buttons"
        return (Step(which, text, pearls=()),)
    if which is Pass.ONE:
        return tuple(_one(n) for n in layout.names if n not in stuck)
    if which is Pass.FILL:
        what = "a pearl on every cell" if "a1" in layout.channel_by_name else ""
        if "t1" in layout.channel_by_name:
            what += (" and " if what else "") + "a ball on every target"
        return (Step(which, f"fill the board: {what}", pearls=layout.fillable),)
    if which is Pass.LIFT:
        names = [n for n in layout.fillable if n not in stuck | dead]
        return tuple(
            Step(which, f"lift {n} and put it back (leave the rest)", target=n) for n in names
        )
    if which is Pass.NEIGHBOURS:
        steps = []
        for cell in suspects(check):
            around = neighbours(cell)
            text = (
                f"clear the board, then place pearls on the neighbours of {cell} "
                f"({' '.join(around)}) and leave {cell} empty"
            )
            steps.append(Step(which, text, pearls=around, about=cell))
        return tuple(steps)
    return (FINISHED,)


def names_of_kind(check: Check, kind: Kind) -> tuple[str, ...]:
    return tuple(n for f in check.findings if f.kind is kind for n in f.names)


def suspects(check: Check) -> list[str]:
    """Cells that stayed occupied when lifted and that no missing diode explains."""
    stayed = [f.asked for f in check.findings if f.kind is Kind.STAYED]
    explained = {g for missing in missing_diodes_of(check) for g in missing.ghosts}
    return [c for c in stayed if check.layout.channel_by_name[c] not in explained and neighbours(c)]


def start(layout: Layout, timing: Timing, now: float) -> Check:
    """A new check, asking for the empty board."""
    first, *rest = _pass_steps(_blank(layout, timing, now), Pass.EMPTY)
    first = replace(first, number=1, of=1 + len(rest))
    return Check(layout, timing, first, tuple(rest), frozenset(), frozenset(), now, now)


def _blank(layout: Layout, timing: Timing, now: float) -> Check:
    return Check(layout, timing, FINISHED, (), frozenset(), frozenset(), now, now)


def seen(check: Check, active: frozenset[int], now: float) -> Check:
    """The board reports ``active`` (a debounced frame; unnamed channels are ignored)."""
    named = active & check.layout.named
    if named == check.active or check.finished:
        return timer(check, now)
    check = _not_stuck(check, named)
    added = named - check.active
    went = check.went | (named ^ check.start)
    moved = replace(check, active=named, changed_at=now, went=went)
    step = check.step
    if step.pass_ is Pass.FILL and added:
        moved = _placing(moved, added, named, now)
    target = check.layout.channel_by_name.get(step.target)
    if step.pass_ is Pass.LIFT and moved.lifted is None and target not in named:
        moved = replace(moved, lifted=named)
    return timer(moved, now)


def _not_stuck(check: Check, named: frozenset[int]) -> Check:
    """In the one-at-a-time pass, a channel the empty board found occupied that reads
    empty now was a pearl left on the board: not stuck after all, and asked for later."""
    if check.step.pass_ is not Pass.ONE:
        return check
    layout = check.layout
    cleared = layout.channels(names_of_kind(check, Kind.OCCUPIED_EMPTY)) - named
    if not cleared:
        return check
    gone = layout.names_of(cleared)
    findings = []
    for f in check.findings:
        if f.kind is Kind.OCCUPIED_EMPTY:
            f = replace(f, names=tuple(n for n in f.names if n not in gone))
            if not f.names:
                continue
        findings.append(f)
    return replace(
        check,
        findings=tuple(findings),
        queue=check.queue + tuple(_one(n) for n in gone),
        step=replace(check.step, of=check.step.of + len(gone)),
        start=check.start - cleared,
        went=check.went - cleared,
    )


def _placing(check: Check, added: frozenset[int], named: frozenset[int], now: float) -> Check:
    """A fill frame that added channels: part of the placement under way, or a new one."""
    if check.placing and now - check.placed_at <= check.timing.settle:
        return replace(check, placing=check.placing | added, placed_at=now, placing_reading=named)
    return replace(_placed(check), placing=added, placed_at=now, placing_reading=named)


def _placed(check: Check) -> Check:
    """The placement under way is over: its reading, and a sighting if it lit more."""
    if not check.placing:
        return check
    sightings = check.sightings
    if len(check.placing) > 1:
        sightings = (*sightings, Sighting(check.placing, check.placing_reading, pearls=1))
    return replace(_read(check, check.placing_reading), placing=frozenset(), sightings=sightings)


def done(check: Check, now: float) -> Check:
    """The person says they did what the step asks (Enter)."""
    if check.finished:
        return check
    return timer(replace(check, done_at=now), now)


def next_deadline(check: Check) -> float | None:
    """When :func:`timer` may next move the check on by itself (None: never)."""
    if check.finished:
        return None
    t = check.timing
    quiet = max(check.began, check.changed_at)
    times = [quiet + t.patience]
    if _reached(check):
        times.append(quiet + t.settle)
    elif check.step.pass_ is Pass.EMPTY:
        times.append(quiet + t.still)
    if check.done_at is not None:
        times.append(max(check.done_at, check.changed_at) + t.grace)
    return min(times)


def timer(check: Check, now: float) -> Check:
    """Judge the step if it is complete, or waited for long enough; then the next one."""
    deadline = next_deadline(check)
    if deadline is None or now < deadline:
        return check
    return _next(_judged(check), now)


def _reached(check: Check) -> bool:
    """The board shows the step's answer: a touch changed and changed back; a set step's
    board as asked; or a neighbours step's board as asked with the empty cell closed by
    them (seen empty first, so it is not a pearl still on it)."""
    if check.step.touch:
        return check.active == check.start and bool(check.went)
    wanted = _wanted(check)
    if check.active == wanted:
        return True
    if not check.step.about:
        return False
    about = check.layout.channel_by_name[check.step.about]
    return check.active == wanted | {about} and about in check.went


def _wanted(check: Check) -> frozenset[int]:
    """What a set step's board should read: its pearls, less dead sensors, plus stuck ones."""
    dead = {f.asked for f in check.findings if f.pass_ is Pass.ONE and f.kind is Kind.NOTHING}
    stuck = check.layout.channels(names_of_kind(check, Kind.OCCUPIED_EMPTY))
    return check.layout.channels(n for n in check.step.pearls if n not in dead) | stuck


def _judged(check: Check) -> Check:
    """The step's findings, added to the check's."""
    step, layout = check.step, check.layout
    found: list[Finding] = []
    if step.touch:
        target = layout.channel_by_name[step.target]
        went = check.went
        if step.pass_ is Pass.LIFT and target not in went:
            found.append(Finding(step.pass_, Kind.STAYED, step.target))
            check = _sighted(check, Sighting(frozenset({target}), check.start, pearls=0))
        elif not went:
            found.append(Finding(step.pass_, Kind.NOTHING, step.target))
        elif target not in went:
            found.append(Finding(step.pass_, Kind.WRONG, step.target, check.names(went)))
        elif went - {target}:
            found.append(Finding(step.pass_, Kind.ALSO, step.target, check.names(went - {target})))
        if step.pass_ is Pass.LIFT and check.lifted is not None:
            check = _read(check, check.lifted)
        left = (check.active ^ check.start) & went  # changed, and not back when judged
        if left:
            found.append(Finding(step.pass_, Kind.NOT_BACK, step.target, check.names(left)))
    elif step.pass_ is Pass.EMPTY and check.active:
        found.append(Finding(step.pass_, Kind.OCCUPIED_EMPTY, "", check.names(check.active)))
    elif step.pass_ is Pass.FILL:
        check = _placed(check)
        for sighting in check.sightings:
            found.append(Finding(step.pass_, Kind.TOGETHER, "", check.names(sighting.came)))
        missing = _wanted(check) - check.active
        if missing:
            found.append(Finding(step.pass_, Kind.NOT_FILLED, "", check.names(missing)))
        check = replace(_read(check, check.active), full=check.active)
    elif step.pass_ is Pass.NEIGHBOURS:
        cell = step.about
        if layout.channel_by_name[cell] in check.active:
            found.append(Finding(step.pass_, Kind.SURROUNDED, cell, step.pearls))
        check = replace(check, surrounded=(*check.surrounded, cell))
    return replace(check, findings=check.findings + tuple(found))


def _sighted(check: Check, sighting: Sighting) -> Check:
    return replace(check, sightings=(*check.sightings, sighting))


def _next(check: Check, now: float) -> Check:
    """The next step of this pass, or the first of the next pass that has any."""
    queue = check.queue
    which = check.step.pass_
    skipped: tuple[str, ...] = ()
    order = list(Pass)
    while True:
        if which is Pass.LIFT:
            queue, hidden = _unhidden(check, queue)
            skipped += hidden
        if queue:
            break
        which = order[order.index(which) + 1]
        queue = _pass_steps(check, which)
        if which is Pass.FINISHED:
            break
    step, *rest = queue
    number = check.step.number + 1 if step.pass_ is check.step.pass_ else 1
    return replace(
        check,
        step=replace(step, number=number, of=number + len(rest)),
        queue=tuple(rest),
        start=check.active,
        began=now,
        changed_at=now,
        went=frozenset(),
        done_at=None,
        lifted=None,
        steps_done=check.steps_done + 1,
        skipped=check.skipped + skipped,
    )


# -- missing diodes (the matrix model is controller/cli/matrix.py) --------------------


def _read(check: Check, reading: frozenset[int]) -> Check:
    """A settled reading of the fill or lift pass: what it rules out of the missing diodes."""
    if check.layout.columns is None:
        return check
    return replace(check, possible=matrix.allowed(check.layout, check.possible, reading))


def _possible_diodes(check: Check) -> tuple[int, ...]:
    """Crossings of the full board whose missing diode agrees with every settled reading,
    once something came on that may have no pearl of its own."""
    if check.possible is None or not check.sightings:
        return ()
    return tuple(sorted(check.possible & check.full))


def _unhidden(check: Check, queue: tuple[Step, ...]) -> tuple[tuple[Step, ...], tuple[str, ...]]:
    """The lift steps still worth asking for: not those of cells a missing diode keeps
    occupied with the board full (:func:`matrix.hidden`), whose lift can show nothing."""
    layout = check.layout
    hidden = matrix.hidden(layout, _possible_diodes(check), check.sightings, check.full)
    kept = tuple(s for s in queue if layout.channel_by_name[s.target] not in hidden)
    return kept, tuple(s.target for s in queue if s not in kept)


def missing_diodes_of(check: Check) -> list[matrix.MissingDiode]:
    return matrix.missing_diodes(check.layout, _possible_diodes(check), check.sightings)

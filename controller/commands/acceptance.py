"""The acceptance test behind ``pyramid diag --check``: a pure state machine over what the
board reports, with time passed in, and the maker's mistakes it names.

(Longer than most modules: one state machine whose five passes share the step, the
record of what was seen and the causes; the causes are named from all passes at once.
The shell that prints and reads is apart in :mod:`controller.commands.diag`.)

A person at the board is asked for one thing at a time (:class:`Step`); the machine
watches the board's debounced frames (:func:`seen`), the person's "done" (:func:`done`,
Enter on the terminal) and the clock (:func:`timer`), judges each step and moves on. The
shell (``controller/commands/diag.py``) only carries frames, keys and time in and prints
what comes out. The passes, in order:

1. **empty** — nothing on the board: whatever reads occupied is stuck.
2. **one at a time** — each sensor alone: place the probe pearl on a cell and lift it (a
   ball on a target, press a button). Exactly the channel asked for must change: "asked
   for c3, d3 changed" is a swapped wire; a placement that changes more than one channel
   is a bridge, a slow column or a neighbour's magnet.
3. **fill** — a pearl on every cell and a ball on every target.
4. **lift** — with the board full, lift each in turn and put it back: exactly that
   channel must clear. One pearl at a time can never show a missing diode; three pearls
   on three corners of a rectangle make the fourth corner read occupied without it, and
   with the board full every lifted pearl is such a fourth corner. An empty cell with its
   eight neighbours full is also the worst case for a neighbour's magnet.
5. **neighbours** — only for a cell that stayed occupied when lifted and that no missing
   diode explains (a missing diode leaves a ghost at every lifted cell it forms a
   rectangle with, so the lift pass names it by many cells): the board cleared, pearls
   on its eight neighbours, itself empty. A cell that closes now is closed by its
   neighbours' magnets; one that stays open was a ghost of a diode not found.

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
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from controller.hardware.channels import BUTTONS, CELLS, FILES, TARGETS, ChannelMap

__all__ = [
    "Cause",
    "Check",
    "Finding",
    "Kind",
    "Layout",
    "Pass",
    "Step",
    "Timing",
    "causes",
    "done",
    "next_deadline",
    "seen",
    "start",
    "timer",
]


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
    (a neighbour's reed may close a moment after the pearl's own)."""
    grace: float = 0.5
    """After the person said "done", how long the board has to show it."""
    patience: float = 20.0
    """A step that nothing more happens in for this long is judged as it stands."""


@dataclass(frozen=True)
class Layout:
    """What the check knows of the board: the named channels and the matrix wiring."""

    channel_by_name: Mapping[str, int]
    columns: int | None
    """Columns of the diode matrix (channel = row * columns + column); None: no matrix
    (mux or direct wiring), so no diode or column causes are named."""

    @classmethod
    def of(cls, cmap: ChannelMap, columns: int | None) -> Layout:
        return cls(dict(cmap.channel_by_name), columns)

    @property
    def names(self) -> tuple[str, ...]:
        """The named sensors in the order the check asks for them."""
        return tuple(n for n in CELLS + TARGETS + BUTTONS if n in self.channel_by_name)

    @property
    def fillable(self) -> tuple[str, ...]:
        """Cells and targets: what can all be occupied at once (not the buttons)."""
        return tuple(n for n in self.names if n not in BUTTONS)

    def name(self, channel: int) -> str | None:
        for name, number in self.channel_by_name.items():
            if number == channel:
                return name
        return None

    def channels(self, names: Iterable[str]) -> frozenset[int]:
        return frozenset(self.channel_by_name[n] for n in names)

    def names_of(self, channels: Iterable[int]) -> tuple[str, ...]:
        """Named channels among ``channels``, in the check's order."""
        wanted = set(channels)
        return tuple(n for n in self.names if self.channel_by_name[n] in wanted)

    def crossing(self, name: str) -> tuple[int, int] | None:
        """(row, column) of a sensor in the matrix wiring, or None without a matrix."""
        if self.columns is None:
            return None
        return divmod(self.channel_by_name[name], self.columns)

    def at(self, row: int, column: int) -> str | None:
        """The named sensor at a matrix crossing, if any."""
        if self.columns is None or not 0 <= column < self.columns:
            return None
        return self.name(row * self.columns + column)


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
    """What a step found, as an observation (the causes come from them, see :func:`causes`)."""

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
        return _SAYS[self.kind].format(asked=self.asked, others=", ".join(self.names))


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
    """This step's place in its pass (from 1), and the pass's length."""
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
    together: tuple[frozenset[int], ...] = ()
    """Fill pass: frames that added more than one channel at once."""
    findings: tuple[Finding, ...] = ()
    full: frozenset[int] = frozenset()
    """What the board read when the fill pass ended."""
    steps_done: int = 0
    surrounded: tuple[str, ...] = ()
    """Cells whose neighbours step was judged (occupied or not)."""

    @property
    def finished(self) -> bool:
        return self.step.pass_ is Pass.FINISHED

    def names(self, channels: Iterable[int]) -> tuple[str, ...]:
        return self.layout.names_of(channels)


FINISHED = Step(Pass.FINISHED, "the check is finished")


def _ask(name: str) -> str:
    if name.startswith("button:"):
        return f"press {name.removeprefix('button:').replace('_', ' ')}"
    if name in TARGETS:
        return f"put a ball on {name} and take it off"
    return f"place the probe pearl on {name} and lift it"


def _numbered(steps: list[Step]) -> tuple[Step, ...]:
    return tuple(replace(s, number=i + 1, of=len(steps)) for i, s in enumerate(steps))


def _pass_steps(check: Check, which: Pass) -> tuple[Step, ...]:
    layout = check.layout
    stuck = set(_names_of_kind(check, Kind.OCCUPIED_EMPTY))
    dead = {f.asked for f in check.findings if f.kind in (Kind.NOTHING, Kind.WRONG)}
    if which is Pass.EMPTY:
        text = "take every pearl and ball off the board and keep your hands off the buttons"
        return _numbered([Step(which, text, pearls=())])
    if which is Pass.ONE:
        return _numbered([Step(which, _ask(n), target=n) for n in layout.names if n not in stuck])
    if which is Pass.FILL:
        what = "a pearl on every cell" if "a1" in layout.channel_by_name else ""
        if "t1" in layout.channel_by_name:
            what += (" and " if what else "") + "a ball on every target"
        return _numbered([Step(which, f"fill the board: {what}", pearls=layout.fillable)])
    if which is Pass.LIFT:
        names = [n for n in layout.fillable if n not in stuck | dead]
        return _numbered(
            [Step(which, f"lift {n} and put it back (leave the rest)", target=n) for n in names]
        )
    if which is Pass.NEIGHBOURS:
        steps = []
        for cell in _suspects(check):
            around = neighbours(cell)
            text = (
                f"clear the board, then place pearls on the neighbours of {cell} "
                f"({' '.join(around)}) and leave {cell} empty"
            )
            steps.append(Step(which, text, pearls=around, about=cell))
        return _numbered(steps)
    return (FINISHED,)


def _names_of_kind(check: Check, kind: Kind) -> tuple[str, ...]:
    return tuple(n for f in check.findings if f.kind is kind for n in f.names)


def _suspects(check: Check) -> list[str]:
    """Cells that stayed occupied when lifted and that no missing diode explains."""
    stayed = [f.asked for f in check.findings if f.kind is Kind.STAYED]
    explained = {
        g for _, ghosts in _missing_diodes(check.layout, check.full, stayed) for g in ghosts
    }
    return [c for c in stayed if c not in explained and neighbours(c)]


def start(layout: Layout, timing: Timing, now: float) -> Check:
    """A new check, asking for the empty board."""
    first, *rest = _pass_steps(_blank(layout, timing, now), Pass.EMPTY)
    return Check(layout, timing, first, tuple(rest), frozenset(), frozenset(), now, now)


def _blank(layout: Layout, timing: Timing, now: float) -> Check:
    return Check(layout, timing, FINISHED, (), frozenset(), frozenset(), now, now)


def seen(check: Check, active: frozenset[int], now: float) -> Check:
    """The board reports ``active`` (a debounced frame; unnamed channels are ignored)."""
    named = active & check.layout.channels(check.layout.names)
    if named == check.active or check.finished:
        return timer(check, now)
    together = check.together
    added = named - check.active
    if check.step.pass_ is Pass.FILL and len(added) > 1:
        together = (*together, added)
    went = check.went | (named ^ check.start)
    moved = replace(check, active=named, changed_at=now, went=went, together=together)
    return timer(moved, now)


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
    """The board shows what the step asked for: a touch changed and changed back."""
    if check.step.touch:
        return check.active == check.start and bool(check.went)
    return check.active == _wanted(check)


def _wanted(check: Check) -> frozenset[int]:
    """What a set step's board should read: its pearls, less dead sensors, plus stuck ones."""
    dead = {f.asked for f in check.findings if f.pass_ is Pass.ONE and f.kind is Kind.NOTHING}
    stuck = check.layout.channels(_names_of_kind(check, Kind.OCCUPIED_EMPTY))
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
        elif not went:
            found.append(Finding(step.pass_, Kind.NOTHING, step.target))
        elif target not in went:
            found.append(Finding(step.pass_, Kind.WRONG, step.target, check.names(went)))
        elif went - {target}:
            found.append(Finding(step.pass_, Kind.ALSO, step.target, check.names(went - {target})))
        left = (check.active ^ check.start) & went  # changed, and not back when judged
        if left:
            found.append(Finding(step.pass_, Kind.NOT_BACK, step.target, check.names(left)))
    elif step.pass_ is Pass.EMPTY and check.active:
        found.append(Finding(step.pass_, Kind.OCCUPIED_EMPTY, "", check.names(check.active)))
    elif step.pass_ is Pass.FILL:
        for added in check.together:
            found.append(Finding(step.pass_, Kind.TOGETHER, "", check.names(added)))
        missing = _wanted(check) - check.active
        if missing:
            found.append(Finding(step.pass_, Kind.NOT_FILLED, "", check.names(missing)))
    elif step.pass_ is Pass.NEIGHBOURS:
        cell = step.about
        if layout.channel_by_name[cell] in check.active:
            found.append(Finding(step.pass_, Kind.SURROUNDED, cell, step.pearls))
        check = replace(check, surrounded=(*check.surrounded, cell))
    full = check.active if step.pass_ is Pass.FILL else check.full
    return replace(check, findings=check.findings + tuple(found), full=full)


def _next(check: Check, now: float) -> Check:
    """The next step of this pass, or the first of the next pass that has any."""
    queue = check.queue
    which = check.step.pass_
    order = list(Pass)
    while not queue:
        which = order[order.index(which) + 1]
        queue = _pass_steps(check, which)
        if which is Pass.FINISHED:
            break
    step, *rest = queue
    return replace(
        check,
        step=step,
        queue=tuple(rest),
        start=check.active,
        began=now,
        changed_at=now,
        went=frozenset(),
        done_at=None,
        together=(),
        steps_done=check.steps_done + 1,
    )


# -- causes -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cause:
    """A likely mistake in the build, named for the maker, with the sensors concerned."""

    kind: str
    """One of: swapped, wrong crossing, stuck, dead column, dead row, dead sensor,
    missing diode, ghost, ghost or cross-talk, cross-talk, slow column, bridge, sticks."""
    names: tuple[str, ...]
    text: str


def _missing_diodes(
    layout: Layout, full: frozenset[int], stayed: Iterable[str]
) -> list[tuple[str, tuple[str, ...]]]:
    """Diodes whose absence explains the cells that stayed occupied when lifted.

    A cell G at (r2, c2) lifted from a full board still reads occupied when row r2, pulled
    low, reaches column c2 by a sneak path: down G's row to a closed (r2, c), up column c
    backwards through a switch (r, c) that has no diode, along row r to a closed (r, c2).
    Each candidate (r, c) explains every G it forms such a rectangle with; the fewest
    candidates that explain the most, each explaining at least two (one alone could be
    any of several), are named.
    """
    ghosts = [g for g in stayed if layout.crossing(g) is not None]
    if layout.columns is None or not ghosts:
        return []
    closed = {layout.crossing(n) for n in layout.names_of(full)}
    explains: dict[str, list[str]] = {}
    for ghost in ghosts:
        spot = layout.crossing(ghost)
        assert spot is not None
        r2, c2 = spot
        for candidate in layout.names_of(full):
            where = layout.crossing(candidate)
            assert where is not None
            r, c = where
            if r != r2 and c != c2 and (r2, c) in closed and (r, c2) in closed:
                explains.setdefault(candidate, []).append(ghost)
    named: list[tuple[str, tuple[str, ...]]] = []
    left = set(ghosts)
    while True:
        best = max(explains, key=lambda c: (len(left.intersection(explains[c])), c), default=None)
        if best is None or len(left.intersection(explains[best])) < 2:
            return named
        covered = tuple(g for g in explains[best] if g in left)
        named.append((best, covered))
        left -= set(covered)


def causes(check: Check) -> tuple[Cause, ...]:
    """The likely causes of everything the check found (so far), most basic first."""
    layout, findings = check.layout, check.findings
    found: list[Cause] = []
    stuck = _names_of_kind(check, Kind.OCCUPIED_EMPTY)
    for name in stuck:
        found.append(
            Cause(
                "stuck",
                (name,),
                f"{name} is stuck closed: a welded reed, a solder bridge across its switch, "
                "or a magnet left nearby",
            )
        )
    dead = [f.asked for f in findings if f.pass_ is Pass.ONE and f.kind is Kind.NOTHING]
    explained: set[str] = set()
    if layout.columns is not None and dead:
        for axis, label in ((1, "column"), (0, "row")):
            lines: dict[int, list[str]] = {}
            for name in layout.names:
                spot = layout.crossing(name)
                assert spot is not None
                lines.setdefault(spot[axis], []).append(name)
            for index, members in sorted(lines.items()):
                if len(members) >= 2 and all(m in dead for m in members):
                    explained.update(members)
                    found.append(
                        Cause(
                            f"dead {label}",
                            tuple(members),
                            f"matrix {label} {index} is dead ({' '.join(members)} never "
                            f"closed): its wire or its GPIO (`pyramid diag --pins` shows which)",
                        )
                    )
    for name in dead:
        if name not in explained:
            found.append(
                Cause(
                    "dead sensor",
                    (name,),
                    f"{name} never closed: a reversed diode (its band must face the row), a "
                    "broken or cracked reed, a cold joint, or the magnet too far from the reed",
                )
            )
    wrong = {f.asked: f.names for f in findings if f.pass_ is Pass.ONE and f.kind is Kind.WRONG}
    for asked, got in wrong.items():
        if len(got) == 1 and wrong.get(got[0]) == (asked,):
            if asked < got[0]:
                found.append(
                    Cause(
                        "swapped",
                        (asked, got[0]),
                        f"{asked} and {got[0]} are swapped: their reeds' wires are exchanged "
                        "(or their [board.channels] numbers are)",
                    )
                )
        else:
            found.append(
                Cause(
                    "wrong crossing",
                    (asked, *got),
                    f"{asked} reads as {', '.join(got)}: its reed is wired to the wrong "
                    "crossing (or [board.channels] gives it the wrong number)",
                )
            )
    found.extend(_also_causes(check))
    stayed = [f.asked for f in findings if f.kind is Kind.STAYED]
    missing = _missing_diodes(layout, check.full, stayed)
    for diode, ghosts in missing:
        found.append(
            Cause(
                "missing diode",
                (diode, *ghosts),
                f"the diode at {diode} is missing or shorted: with the board full, "
                f"{' '.join(ghosts)} stayed occupied when lifted (a ghost through {diode}'s "
                "switch, which conducts backwards)",
            )
        )
    surrounded = [f.asked for f in findings if f.kind is Kind.SURROUNDED]
    for cell in surrounded:
        found.append(
            Cause(
                "cross-talk",
                (cell,),
                f"{cell}'s reed is closed by its neighbours' magnets (cross-talk): turn it "
                "so neither end lies under a neighbouring cell, or use a less sensitive "
                "reed (hardware/README.md, 'Magnets, pearls and balls')",
            )
        )
    for cell in _suspects(check):
        if cell not in check.surrounded:
            found.append(
                Cause(
                    "ghost or cross-talk",
                    (cell,),
                    f"{cell} stayed occupied when lifted from a full board: cross-talk or "
                    "a ghost; the neighbours step (which tells them apart) did not run",
                )
            )
        elif cell not in surrounded:
            found.append(
                Cause(
                    "ghost",
                    (cell,),
                    f"{cell} stayed occupied when lifted from a full board, but not with "
                    "only its neighbours full: a ghost through a missing or shorted diode "
                    "at a corner of a rectangle with it, or the field of pearls further "
                    "away",
                )
            )
    for f in findings:
        if f.kind is Kind.NOT_BACK and f.pass_ is Pass.ONE:
            found.append(
                Cause(
                    "sticks",
                    f.names,
                    f"{' '.join(f.names)} stayed occupied after the pearl was lifted: a "
                    "reed that sticks (a cracked glass, a magnetised reed) or a slow release",
                )
            )
    once: dict[tuple[str, tuple[str, ...]], Cause] = {}
    for cause in found:  # a neighbour's magnet shows in two passes: name it once
        once.setdefault((cause.kind, cause.names), cause)
    return tuple(once.values())


def _also_causes(check: Check) -> list[Cause]:
    """One pearl on an empty board changed more than one channel: why."""
    layout = check.layout
    pairs = [
        (f.asked, other)
        for f in check.findings
        if f.pass_ is Pass.ONE and f.kind is Kind.ALSO
        for other in f.names
    ]
    # A column that rises too slowly after its row lets go reads low on the next row
    # scanned: the pearl's crossing (r, c) drags (r + 1, c) with it, on every row.
    slow: Counter[int] = Counter()
    for asked, other in pairs:
        a, o = layout.crossing(asked), layout.crossing(other)
        if a is not None and o is not None and o == (a[0] + 1, a[1]):
            slow[a[1]] += 1
    found: list[Cause] = []
    for column, count in sorted(slow.items()):
        if count >= 2:
            members = [(a, o) for a, o in pairs if (layout.crossing(a) or (0, -1))[1] == column]
            found.append(
                Cause(
                    "slow column",
                    tuple(o for _, o in members),
                    f"matrix column {column} rises too slowly: each pearl also shows on the "
                    "next row scanned. Fit the column's 10 kΩ pull-up and raise settle_us",
                )
            )
    for asked, other in pairs:
        spot = layout.crossing(asked)
        if spot is not None and slow[spot[1]] >= 2:
            continue
        if other in neighbours(asked):
            found.append(
                Cause(
                    "cross-talk",
                    (other,),
                    f"a pearl on {asked} also closes the reed of {other}, its neighbour "
                    f"(cross-talk): turn {other}'s reed so neither end lies under {asked}, "
                    "or use a less sensitive reed",
                )
            )
        else:
            found.append(
                Cause(
                    "bridge",
                    (asked, other),
                    f"a pearl on {asked} also changes {other}: a solder bridge or a shared "
                    "wire between their switches",
                )
            )
    return found

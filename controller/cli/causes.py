"""The likely causes of what ``pyramid diag --check`` saw, named for the maker.

:mod:`controller.cli.acceptance` walks the passes and keeps the findings; here each
family of causes (a :data:`Namer`) reads all of them at once: two exchanged wires named
as the two wires (with their GPIO and header pin, or the Pico pin), a stuck switch, a
dead line or sensor, a missing diode (the diode matrix's model is
:mod:`controller.cli.matrix`), cross-talk, a ghost, a bridge. The shell that prints
them is :mod:`controller.cli.diag`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from controller.cli import matrix
from controller.cli.acceptance import (
    Check,
    Kind,
    Layout,
    Pass,
    missing_diodes_of,
    names_of_kind,
    neighbours,
    spoken,
    spoken_all,
    suspects,
)

__all__ = ["NAMERS", "Cause", "Namer", "causes"]


@dataclass(frozen=True)
class Cause:
    """A likely mistake in the build, named for the maker, with the sensors concerned."""

    kind: str
    """One of: swapped columns, swapped rows, swapped, wrong crossing, stuck, dead
    column, dead row, dead sensor, missing diode, ghost, ghost or cross-talk,
    cross-talk, slow column, bridge, sticks."""
    names: tuple[str, ...]
    text: str


Namer = Callable[[Check], list[Cause]]
"""One family of causes, from the check's findings (see :data:`NAMERS`)."""


def causes(check: Check) -> tuple[Cause, ...]:
    """The likely causes of everything the check found (so far), most basic first."""
    found = [cause for namer in NAMERS for cause in namer(check)]
    once: dict[tuple[str, tuple[str, ...]], Cause] = {}
    for cause in found:  # a neighbour's magnet shows in two passes: name it once
        once.setdefault((cause.kind, cause.names), cause)
    return tuple(once.values())


def _stuck(check: Check) -> list[Cause]:
    return [
        Cause(
            "stuck",
            (name,),
            f"{spoken(name)} is stuck closed: a welded reed, a solder bridge across its "
            "switch, or a magnet left nearby",
        )
        for name in names_of_kind(check, Kind.OCCUPIED_EMPTY)
    ]


def _dead(check: Check) -> list[str]:
    return [f.asked for f in check.findings if f.pass_ is Pass.ONE and f.kind is Kind.NOTHING]


def _lines(layout: Layout, axis: int) -> dict[int, list[str]]:
    """The named sensors on each matrix row (axis 0) or column (axis 1)."""
    lines: dict[int, list[str]] = {}
    for name in layout.names:
        spot = layout.crossing(name)
        assert spot is not None
        lines.setdefault(spot[axis], []).append(name)
    return lines


def _dead_lines(check: Check) -> list[tuple[str, int, list[str]]]:
    layout, dead = check.layout, set(_dead(check))
    if layout.columns is None or not dead:
        return []
    found = []
    for axis, label in ((1, "column"), (0, "row")):
        for index, members in sorted(_lines(layout, axis).items()):
            if len(members) >= 2 and all(m in dead for m in members):
                found.append((label, index, members))
    return found


def _dead_line_causes(check: Check) -> list[Cause]:
    return [
        Cause(
            f"dead {label}",
            tuple(members),
            f"{check.layout.line(label, index)} is dead ({spoken_all(members, ' ')} never "
            f"closed): its wire or its pin (`pyramid diag --pins` shows which)",
        )
        for label, index, members in _dead_lines(check)
    ]


def _dead_sensors(check: Check) -> list[Cause]:
    explained = {m for _, _, members in _dead_lines(check) for m in members}
    explained |= {m for _, _, _, members in _swapped_lines(check) for m in members}
    return [
        Cause(
            "dead sensor",
            (name,),
            f"{spoken(name)} never closed: a reversed diode (its band must face the row), a "
            "broken or cracked reed, a cold joint, or the magnet too far from the reed",
        )
        for name in _dead(check)
        if name not in explained
    ]


def _wrong(check: Check) -> dict[str, tuple[str, ...]]:
    return {
        f.asked: f.names for f in check.findings if f.pass_ is Pass.ONE and f.kind is Kind.WRONG
    }


def _swapped_lines(check: Check) -> list[tuple[str, int, int, tuple[str, ...]]]:
    """Two matrix columns (rows) whose wires are exchanged: every sensor asked for on one
    changed its neighbour on the other, in at least two rows (columns), and nothing on
    either read right. (axis, first, second, the sensors on them.)"""
    layout = check.layout
    if layout.columns is None:
        return []
    wrong, dead = _wrong(check), set(_dead(check))
    stuck = set(names_of_kind(check, Kind.OCCUPIED_EMPTY))
    found = []
    for axis, label in ((1, "column"), (0, "row")):
        support: dict[tuple[int, int], set[int]] = {}
        for asked, got in wrong.items():
            if len(got) != 1:
                continue
            a, g = layout.crossing(asked), layout.crossing(got[0])
            if a is None or g is None:
                continue
            if a[1 - axis] == g[1 - axis] and a[axis] != g[axis]:
                key = (min(a[axis], g[axis]), max(a[axis], g[axis]))
                support.setdefault(key, set()).add(a[1 - axis])
        for (first, second), across in sorted(support.items()):
            if len(across) < 2:
                continue
            lines = _lines(layout, axis)
            members = [m for m in layout.names if m in lines.get(first, []) + lines.get(second, [])]
            across_ok = [
                m in stuck or _reads_across(layout, m, axis, first, second, wrong, dead)
                for m in members
            ]
            if all(across_ok):
                found.append((label, first, second, tuple(members)))
    return found


def _reads_across(
    layout: Layout,
    name: str,
    axis: int,
    first: int,
    second: int,
    wrong: Mapping[str, tuple[str, ...]],
    dead: set[str],
) -> bool:
    """``name`` read as the crossing on the other of two lines (nothing, if unnamed)."""
    spot = layout.crossing(name)
    assert spot is not None
    other = second if spot[axis] == first else first
    row, column = (other, spot[1]) if axis == 0 else (spot[0], other)
    partner = layout.at(row, column)
    if partner is None:
        return name in dead
    return wrong.get(name) == (partner,)


def _swapped_line_causes(check: Check) -> list[Cause]:
    found = []
    wires = check.layout.wires
    for label, first, second, members in _swapped_lines(check):
        pairs: list[str] = []
        for name, got in _wrong(check).items():
            if name in members and len(pairs) < 3:
                pairs.append(f"{spoken(name)} reads as {spoken(got[0])}")
        lines = None if wires is None else getattr(wires, f"{label}s")
        if wires is not None and lines is not None and max(first, second) < len(lines):
            a, b = lines[first], lines[second]
            where = getattr(wires, f"{label}s_list")
            fix = (
                f"the wires on {a.where} and {b.where} are exchanged: swap them, or swap "
                f"{a.entry} and {b.entry} in {where}"
            )
        else:
            fix = (
                f"their wires are exchanged: swap them, or their order in the config's {label} list"
            )
        found.append(
            Cause(
                f"swapped {label}s",
                members,
                f"matrix {label}s {first} and {second} are swapped ({', '.join(pairs)}, …): {fix}",
            )
        )
    return found


def _swapped_pairs(check: Check) -> list[Cause]:
    explained = {m for _, _, _, members in _swapped_lines(check) for m in members}
    wrong = {k: v for k, v in _wrong(check).items() if k not in explained}
    found = []
    for asked, got in wrong.items():
        if len(got) == 1 and wrong.get(got[0]) == (asked,):
            if asked < got[0]:
                found.append(
                    Cause(
                        "swapped",
                        (asked, got[0]),
                        f"{spoken(asked)} and {spoken(got[0])} are swapped: their reeds' "
                        "wires are exchanged (or their [board.channels] numbers are)",
                    )
                )
        else:
            found.append(
                Cause(
                    "wrong crossing",
                    (asked, *got),
                    f"{spoken(asked)} reads as {spoken_all(got)}: its reed is wired to the "
                    "wrong crossing (or [board.channels] gives it the wrong number)",
                )
            )
    return found


def _diode_causes(check: Check) -> list[Cause]:
    layout = check.layout
    found = []
    for missing in missing_diodes_of(check):
        diode = missing.name
        seen_how = []
        for s in missing.sightings:
            came = matrix.explains(layout, layout.channel_by_name[diode], s)
            if s.pearls:
                pearl = check.names(s.came - came)
                with_ = f" with {spoken_all(pearl, ' ')}" if pearl else ""
                seen_how.append(
                    f"{spoken_all(check.names(came), ' ')} came on{with_} while filling"
                )
        stayed = [n for s in missing.sightings if not s.pearls for n in check.names(s.came)]
        if stayed:
            seen_how.append(f"{' '.join(stayed)} stayed occupied when lifted")
        hidden = matrix.ghosts(layout, layout.channel_by_name[diode], check.full)
        skipped = [n for n in check.skipped if layout.channel_by_name[n] in hidden]
        text = (
            f"the diode at {diode} is missing or shorted: its switch conducts backwards, so "
            f"three occupied corners of a rectangle with it make the fourth read occupied "
            f"({'; '.join(seen_how)}). Fit it, band towards the row"
        )
        if skipped:
            text += (
                f". The lift pass skipped {' '.join(skipped)}, which it keeps occupied: "
                "check again once it is fitted"
            )
        found.append(Cause("missing diode", (diode, *check.names(missing.ghosts)), text))
    return found


def _crosstalk(check: Check) -> list[Cause]:
    return [
        Cause(
            "cross-talk",
            (f.asked,),
            f"{f.asked}'s reed is closed by its neighbours' magnets (cross-talk): turn it "
            "so neither end lies under a neighbouring cell, or use a less sensitive "
            "reed (hardware/README.md, 'Magnets, pearls and balls')",
        )
        for f in check.findings
        if f.kind is Kind.SURROUNDED
    ]


def _ghost_causes(check: Check) -> list[Cause]:
    surrounded = {f.asked for f in check.findings if f.kind is Kind.SURROUNDED}
    found = []
    for cell in suspects(check):
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
    return found


def _sticks(check: Check) -> list[Cause]:
    return [
        Cause(
            "sticks",
            f.names,
            f"{spoken_all(f.names, ' ')} stayed occupied after the pearl was lifted: a "
            "reed that sticks (a cracked glass, a magnetised reed) or a slow release",
        )
        for f in check.findings
        if f.kind is Kind.NOT_BACK and f.pass_ is Pass.ONE
    ]


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
                    f"{layout.line('column', column)} rises too slowly: each pearl also "
                    "shows on the next row scanned. Fit the column's 10 kΩ pull-up and raise "
                    "settle_us",
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
                    f"a pearl on {spoken(asked)} also changes {spoken(other)}: a solder "
                    "bridge or a shared wire between their switches",
                )
            )
    return found


NAMERS: tuple[Namer, ...] = (
    _stuck,
    _dead_line_causes,
    _dead_sensors,
    _swapped_line_causes,
    _swapped_pairs,
    _also_causes,
    _diode_causes,
    _crosstalk,
    _ghost_causes,
    _sticks,
)
"""The families of causes, most basic first. A board of another sensing principle
(a hall sensor per cell, say) adds its own namer here and leaves the matrix ones to
find nothing (its :class:`Layout` has no ``columns``)."""

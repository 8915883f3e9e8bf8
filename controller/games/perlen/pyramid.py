"""The pyramid of Perlen-Pyramide as integers: its geometry and the bonus cascade.

This is the one implementation of how the pyramid fits together and of what a base
pearl sets off: the referee (:func:`controller.games.perlen.rules.play`) and the computer
player (:mod:`controller.games.perlen.bot`) both move pearls with :func:`place`, so they cannot
disagree.

A position is a :data:`Pyramid`, a plain tuple ``(rules, occupied, board, mover,
legal)``:

- ``rules``: the :class:`Rules` the game's options make;
- ``occupied``: bit ``i`` set when ``POSITIONS[i]`` holds a pearl (reading order: bits
  0–24 the base, 25–40 layer 2, 41–49 layer 3, 50–53 layer 4, 54 the apex);
- ``board``: two bits per position, bits ``2i`` and ``2i + 1`` holding the colour of the
  pearl at ``POSITIONS[i]`` plus one (0 where it is empty), so that the four pearls under
  a position are two short runs of bits and one table look-up tells the bonus colour;
- ``mover``: the colour to move, or None once the pyramid is complete;
- ``legal``: the base cells the mover may take.

:class:`controller.games.perlen.rules.PerlenState` is this tuple with names.

>>> from controller.games.perlen.rules import new_game
>>> pyramid = tuple(new_game())
>>> for cell in ("c3", "d4", "d3"):
...     pyramid = place(pyramid, cell_number(cell))
>>> bonuses: list[Bonus] = []
>>> pyramid = place(pyramid, cell_number("c4"), bonuses)
>>> [(str(b.position), b.colour, b.rule.value) for b in bonuses]
[('2:c3', 0, 'majority')]
>>> mover, board = pyramid[3], pyramid[2]
>>> mover, colour_of(board, cell_number("c4")), scores(board, LOW)
(1, 0, (3, 1, 1))

Speed is the point of this module (the computer's search places millions of pearls),
so tables are made once at import (about 30 ms) and :func:`place` is written for
CPython's sake; ``bench/engine.py`` measures it. It is longer than most modules because
geometry, bonus rule and cascade belong together: splitting them would put the one
implementation in several places again.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from controller.games.perlen.options import COLOURS, PerlenOptions
from controller.rules.notation import BASE, POSITIONS, Position, parse_cell

POOL = 25
"""Pearls of each colour in a set."""
BASE_CELLS = 25
PEARLS = 55

# -- geometry ------------------------------------------------------------------------------

BASE_MASK = (1 << BASE_CELLS) - 1
"""The 25 base cells."""
ALL_MASK = (1 << PEARLS) - 1
"""All 55 positions."""
CENTRE = parse_cell("c3").index


def _touching(cell: Position) -> int:
    return sum(
        1 << other.index
        for other in BASE
        if other is not cell
        and abs(other.file - cell.file) <= 1
        and abs(other.rank - cell.rank) <= 1
    )


NEIGHBOURS: tuple[int, ...] = tuple(_touching(cell) for cell in BASE)
"""The base cells touching each base cell orthogonally or diagonally, as masks."""
SUPPORTS: tuple[int, ...] = tuple(sum(1 << s.index for s in p.supports) for p in POSITIONS)
"""The four pearls each position rests on, as a mask (0 on the base)."""
PARENTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(q.index for q in POSITIONS if p in q.supports) for p in POSITIONS
)
"""The positions each position helps support (one to four), in reading order."""
FOOTPRINTS: tuple[int, ...] = tuple(
    sum(1 << parse_cell(cell).index for cell in p.footprint) for p in POSITIONS
)
"""The base cells under each position, as masks."""
VISIBLE_MASK = sum(1 << p.index for p in POSITIONS if p.visible)
"""The 41 positions on the outer ring of their layer, seen from outside the pyramid."""


def _symmetries() -> tuple[tuple[int, ...], ...]:
    where = {(p.layer, p.file, p.rank): p.index for p in POSITIONS}
    out = []
    for turn in range(4):
        for mirror in (False, True):
            image = []
            for p in POSITIONS:
                last = 5 - p.layer  # the highest file (and rank) of this layer
                f, r = p.file, p.rank
                if mirror:
                    f = last - f
                for _ in range(turn):  # a quarter turn: (f, r) -> (r, last - f)
                    f, r = r, last - f
                image.append(where[(p.layer, f, r)])
            out.append(tuple(image))
    return tuple(out)


SYMMETRIES: tuple[tuple[int, ...], ...] = _symmetries()
"""The eight turns and mirror images of the square, each as the image of every position
(``SYMMETRIES[k][i]`` is where ``POSITIONS[i]`` goes; ``SYMMETRIES[0]`` is the
identity). Neighbours, supports and the visible ring are the same in each, so a pyramid
and its image play alike (see :func:`distinct_cells`)."""


def image(board: int, symmetry: tuple[int, ...]) -> int:
    """``board`` turned or mirrored by one of :data:`SYMMETRIES`."""
    out = 0
    for i, j in enumerate(symmetry):
        out |= (board >> 2 * i & 3) << 2 * j
    return out


def _moved(bits: int, symmetry: tuple[int, ...]) -> int:
    """A mask of positions (one bit each) turned or mirrored by ``symmetry``."""
    out = 0
    while bits:
        low = bits & -bits
        out |= 1 << symmetry[low.bit_length() - 1]
        bits ^= low
    return out


def turned(pyramid: Pyramid, symmetry: tuple[int, ...]) -> Pyramid:
    """``pyramid`` turned or mirrored by one of :data:`SYMMETRIES`: its pearls, and so
    its legal cells, moved with it (the rules, the mover and the pools stay)."""
    rules, occupied, board, mover, legal = pyramid
    moved = _moved(occupied, symmetry), image(board, symmetry), _moved(legal, symmetry)
    return (rules, moved[0], moved[1], mover, moved[2])


@dataclass(frozen=True, slots=True)
class Canonical:
    """A pyramid's canonical image: the one of its eight turns and mirror images with the
    lowest board, so that a position and all its images have the same one.

    >>> from controller.games.perlen.rules import new_game
    >>> pyramid = tuple(new_game())
    >>> a1, e1, e5 = cell_number("a1"), cell_number("e1"), cell_number("e5")
    >>> one, other = canonical(place(pyramid, a1)), canonical(place(pyramid, e5))
    >>> one.pyramid == other.pyramid, one.cell(a1) == other.cell(e5), one.cell(a1) == one.cell(e1)
    (True, True, False)
    >>> BASE[one.back(one.cell(a1))].short, BASE[other.back(one.cell(a1))].short
    ('a1', 'e5')
    """

    pyramid: Pyramid
    """The image (a position exactly like the one it stands for; see :func:`distinct_cells`
    for the one exception)."""
    symmetries: tuple[tuple[int, ...], ...]
    """Every symmetry that takes the position to :attr:`pyramid`, the first in
    :data:`SYMMETRIES` order first (more than one when the position is symmetric)."""

    def cell(self, cell: int) -> int:
        """The image of a cell of the position, as the first in reading order of the
        cells that are images of each other on :attr:`pyramid`, so that cells alike are
        one cell."""
        return min(s[cell] for s in self.symmetries)

    def back(self, cell: int) -> int:
        """The cell of the position whose image is ``cell`` under the first symmetry."""
        return self.symmetries[0].index(cell)


def canonical(pyramid: Pyramid) -> Canonical:
    """The :class:`Canonical` image of ``pyramid`` (eight boards turned: about 0.2 ms)."""
    board = pyramid[2]
    images = [(image(board, s), s) for s in SYMMETRIES]
    lowest = min(b for b, _ in images)
    chosen = tuple(s for b, s in images if b == lowest)
    return Canonical(turned(pyramid, chosen[0]), chosen)


def distinct_cells(board: int, cells: tuple[int, ...]) -> tuple[int, ...]:
    """``cells`` without those that are a turn or mirror image of an earlier one under a
    symmetry that leaves ``board`` as it is: on a symmetric pyramid they play alike
    (exactly, but where a pool runs dry in the middle of a cascade and reading order,
    which no turn keeps, decides which pearl passes on).

    >>> len(distinct_cells(0, tuple(range(25))))  # the empty base: 6 kinds of cell
    6
    """
    keep = [s for s in SYMMETRIES[1:] if image(board, s) == board]
    if not keep:
        return cells
    seen: set[int] = set()
    out = []
    for cell in cells:
        if cell not in seen:
            out.append(cell)
            seen.update(s[cell] for s in keep)
    return tuple(out)


# -- bonus pearls --------------------------------------------------------------------------


class BonusRule(enum.Enum):
    """Which rule gave a bonus pearl its colour."""

    MAJORITY = "majority"
    """3:1 or 2:1:1: the colour with most pearls in the group."""
    TWO_TWO = "two-two"
    """2:2: the third colour, absent from the group."""
    FOUR_OF_A_KIND = "four-of-a-kind"
    """4 of colour c: colour (c + 1) mod 3."""
    PASSED_ON = "passed-on"
    """The rule's colour had no pearls left; the next colour in turn order got it."""


def bonus_rule(counts: tuple[int, int, int]) -> tuple[int, BonusRule]:
    """The colour and rule for a complete group holding ``counts`` pearls of each colour.

    The one place the bonus rules of RULES.md are written down; :func:`place` works from
    a table made of it.

    >>> bonus_rule((2, 0, 2))
    (1, <BonusRule.TWO_TWO: 'two-two'>)
    """
    top = max(counts)
    c = counts.index(top)
    if top == 4:
        return (c + 1) % COLOURS, BonusRule.FOUR_OF_A_KIND
    if top == 3 or sorted(counts) == [1, 1, 2]:
        return c, BonusRule.MAJORITY
    # 2:2 -> the colour absent from the group
    return counts.index(0), BonusRule.TWO_TWO


@dataclass(frozen=True, slots=True)
class Bonus:
    """A bonus pearl the rules place on top of a completed 2×2 group."""

    position: Position
    """Where it goes (layer 2 to 5)."""
    colour: int
    """The colour it is."""
    rule: BonusRule
    """The group's rule (never PASSED_ON)."""
    passed_from: int | None = None
    """The colour the rule named, when that pool was empty and it passed on."""

    @property
    def reason(self) -> BonusRule:
        """The rule, or PASSED_ON when the pearl went to another colour."""
        return BonusRule.PASSED_ON if self.passed_from is not None else self.rule


_RULE_ORDER = (BonusRule.MAJORITY, BonusRule.TWO_TWO, BonusRule.FOUR_OF_A_KIND)


# -- the board's bits ----------------------------------------------------------------------

LOW = sum(1 << 2 * i for i in range(PEARLS))
"""The low bit of every position's two on a board; :func:`scores` with it counts every
pearl."""
VISIBLE = sum(1 << 2 * p.index for p in POSITIONS if p.visible)
"""``LOW`` for the 41 visible positions only: what :func:`scores` counts by default."""


def cell_number(cell: str) -> int:
    """The number (0–24, reading order) of a base cell named like ``c3``."""
    return parse_cell(cell).index


def colour_of(board: int, index: int) -> int | None:
    """The colour of the pearl at ``POSITIONS[index]``, or None where there is none."""
    code = board >> 2 * index & 3
    return code - 1 if code else None


def scores(board: int, mask: int = VISIBLE) -> tuple[int, int, int]:
    """Each colour's pearls on the positions of ``mask`` (:data:`VISIBLE` or :data:`LOW`)."""
    low = board & mask
    high = board >> 1 & mask
    both = (low & high).bit_count()  # colour 2 is 3, both bits
    return low.bit_count() - both, high.bit_count() - both, both


def colour_mask(board: int, colour: int) -> int:
    """The positions holding ``colour``'s pearls, one bit each (bit ``i`` for
    ``POSITIONS[i]``)."""
    code = colour + 1
    mask = 0
    for i in range(PEARLS):
        if board >> 2 * i & 3 == code:
            mask |= 1 << i
    return mask


LOW_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(13) if bits >> i & 1) for bits in range(1 << 13)
)
"""The base cell numbers in each pattern of the low 13 bits of a mask."""
HIGH_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(13 + i for i in range(12) if bits >> i & 1) for bits in range(1 << 12)
)
"""The base cell numbers in each pattern of bits 13 to 24 of a mask."""


def cells_of(mask: int) -> tuple[int, ...]:
    """The base cell numbers set in ``mask``, in reading order (two table look-ups).

    >>> cells_of(0b101)
    (0, 2)
    """
    return LOW_CELLS[mask & 0x1FFF] + HIGH_CELLS[mask >> 13 & 0xFFF]


# -- rules and positions -------------------------------------------------------------------


class Rules(NamedTuple):
    """What a game's options change in how pearls are placed, resolved once per game
    (:func:`controller.games.perlen.rules.rules_for` makes it)."""

    options: PerlenOptions
    strict: bool
    """``pools = strict``: a colour has 25 pearls; bonuses and turns pass it by when empty."""
    opens: tuple[int, ...]
    """For each base cell, the cells a pearl there makes legal: its :data:`NEIGHBOURS`,
    or every cell with ``placement = free``."""
    first: int
    """The cells the first pearl may take (c3 alone with ``start = centre``)."""
    score: int
    """What :func:`scores` counts for winning: :data:`VISIBLE`, or :data:`LOW` for
    ``score = all``."""


FREE_OPENS: tuple[int, ...] = (BASE_MASK,) * BASE_CELLS
"""``Rules.opens`` for ``placement = free``."""

Pyramid = tuple[Rules, int, int, "int | None", int]
"""``(rules, occupied, board, mover, legal)``; see the module's docstring."""


def start(rules: Rules) -> Pyramid:
    """The empty pyramid: colour 0 to move."""
    return (rules, 0, 0, 0, rules.first)


# -- the cascade ---------------------------------------------------------------------------


def _group_table(width: int) -> tuple[int, ...]:
    """What a position above a layer ``width`` pearls wide gets, by the two runs of bits
    from its first support to its last: 0 while a support is empty, else
    ``rule << 4 | colour << 2 | colour + 1`` (rules numbered majority, two-two, four)."""
    out = []
    for window in range(1 << 2 * width + 4):
        codes = [window >> 2 * offset & 3 for offset in (0, 1, width, width + 1)]
        if 0 in codes:
            out.append(0)
            continue
        colour, rule = bonus_rule((codes.count(1), codes.count(2), codes.count(3)))
        out.append(_RULE_ORDER.index(rule) << 4 | colour << 2 | colour + 1)
    return tuple(out)


_GROUPS: dict[int, tuple[int, ...]] = {width: _group_table(width) for width in (5, 4, 3, 2)}


def _bonuses_at(q: int) -> tuple[Bonus | None, ...]:
    """The Bonus value for each group-table value (its last two bits the colour placed)."""
    out: list[Bonus | None] = []
    for value in range(64):
        named, placed = value >> 2 & 3, (value & 3) - 1
        if value >> 4 > 2 or named > 2 or placed < 0:
            out.append(None)
            continue
        passed = None if placed == named else named
        out.append(Bonus(POSITIONS[q], placed, _RULE_ORDER[value >> 4], passed))
    return tuple(out)


# A position the cascade fills, as it reads it: (the shift of its first support's bits,
# the table of its layer, the mask of that table's window, the shift of its own bits,
# its Bonus values by table value).
_Entry = tuple[int, tuple[int, ...], int, int, tuple["Bonus | None", ...]]


_BONUSES_AT: dict[int, tuple[Bonus | None, ...]] = {
    q: _bonuses_at(q) for q in range(BASE_CELLS, PEARLS)
}


def _entry(q: int) -> _Entry:
    first = POSITIONS[q].supports[0]
    width = 6 - first.layer
    return (2 * first.index, _GROUPS[width], (1 << 2 * width + 4) - 1, 2 * q, _BONUSES_AT[q])


class _Plan(NamedTuple):
    """Positions of one layer that a placement completes at once, and how to find what
    they complete in turn."""

    entries: tuple[_Entry, ...]
    """The positions, in reading order."""
    placed: int
    """Their mask."""
    region: int
    """Every support of every position they help support: which of those are occupied
    decides what completes next."""
    above: _Above
    """The plan for the layer above by ``occupied & region``."""


class _Above(dict[int, "_Plan | None"]):
    """What a plan's positions complete (a plan, or None) by the occupied part of its
    region, worked out when a pattern first occurs: a plan meets at most 2^8 patterns,
    so all of them together stay below 60,000 entries."""

    __slots__ = ("parents",)

    def __init__(self, placed: int) -> None:
        super().__init__()
        self.parents = tuple(
            sorted({q for p in range(PEARLS) if placed >> p & 1 for q in PARENTS[p]})
        )

    def __missing__(self, pattern: int) -> _Plan | None:
        done = 0
        for q in self.parents:
            if pattern & SUPPORTS[q] == SUPPORTS[q]:
                done |= 1 << q
        above = _plan(done) if done else None
        self[pattern] = above
        return above


# Plans by their ``placed`` mask: about 350 occur, each made once.
_PLANS: dict[int, _Plan] = {}


def _plan(placed: int) -> _Plan:
    known = _PLANS.get(placed)
    if known is not None:
        return known
    positions = [q for q in range(PEARLS) if placed >> q & 1]
    region = 0
    for p in positions:
        for q in PARENTS[p]:
            region |= SUPPORTS[q]
    plan = _Plan(tuple(_entry(q) for q in positions), placed, region, _Above(placed))
    _PLANS[placed] = plan
    return plan


# The layer-2 groups a base pearl completes depend only on which of its (up to eight)
# neighbours are occupied: for each cell, (the neighbours' mask, {their occupancy: the
# plan of the groups it completes, or None}).
def _completes(cell: int) -> tuple[int, dict[int, _Plan | None]]:
    around = NEIGHBOURS[cell]
    cells = [c for c in range(BASE_CELLS) if around >> c & 1]
    table: dict[int, _Plan | None] = {}
    for pattern in range(1 << len(cells)):
        occupied = 1 << cell
        for i, c in enumerate(cells):
            if pattern >> i & 1:
                occupied |= 1 << c
        done = 0
        for q in PARENTS[cell]:
            if occupied & SUPPORTS[q] == SUPPORTS[q]:
                done |= 1 << q
        table[occupied & around] = _plan(done) if done else None
    return around, table


_LAYER2: tuple[tuple[int, dict[int, _Plan | None]], ...] = tuple(
    _completes(cell) for cell in range(BASE_CELLS)
)
_MARKS: tuple[tuple[int, ...], ...] = tuple(
    tuple((colour + 1) << 2 * cell for cell in range(BASE_CELLS)) for colour in range(COLOURS)
)
"""A pearl of each colour on each base cell, as board bits."""
_NEXT = (1, 2, 0)
"""The colour after each in turn order."""


def completes(occupied: int, cell: int) -> bool:
    """Whether a pearl on base cell ``cell`` completes a 2×2 group (and so earns bonus
    pearls) in a pyramid with these ``occupied`` positions: one table look-up.

    >>> completes(0b11 | 0b11 << 5, 6), completes(0b11 | 0b11 << 5, 12)
    (True, False)
    """
    around, plans = _LAYER2[cell]
    return plans[(occupied | 1 << cell) & around] is not None


def place(
    pyramid: Pyramid, cell: int, record: list[Bonus] | None = None, *, counted: bool = False
) -> Pyramid:
    """Put the mover's pearl on base cell number ``cell`` and every bonus pearl it earns.

    ``cell`` must be one of the pyramid's legal cells (checking is the caller's
    business). Returns the next pyramid: its mover is the colour after this one that
    has pearls left (``strict`` pools), or None once the base is full.

    Bonus pearls go in reading order (each layer's completed groups, then the layer
    above), which puts every pearl's supports before it. With ``strict`` pools a bonus
    owed to a colour with 25 pearls out goes to the next colour in turn order that has
    some (55 < 75, so one always has). ``record``, when given, gets the bonus pearls in
    that order.
    """
    rules, occupied, board, mover, legal = pyramid
    assert mover is not None, "the pyramid is complete"
    after = occupied | 1 << cell
    marked = board | _MARKS[mover][cell]
    counts = list(scores(marked, LOW)) if counted else None
    around, completes = _LAYER2[cell]
    plan = completes[after & around]
    while plan is not None:
        entries, placed, region, above = plan
        for shift, table, window, qshift, bonuses in entries:
            value = table[marked >> shift & window]
            if counts is not None:
                value = _pass_on(counts, value)
            marked |= (value & 3) << qshift
            if record is not None:
                record.append(bonuses[value])  # type: ignore[arg-type]
        after |= placed
        plan = above[after & region]
    opened = ((legal if occupied else 0) | rules[2][cell]) & ~after  # rules.opens
    if rules[1] and after.bit_count() >= POOL:  # rules.strict
        # Pools matter once 25 pearls are out. A colour that was owed a pearl with its
        # 25 out shows more than 25: then the cascade is placed again, counting.
        low = marked & LOW
        high = marked >> 1 & LOW
        n2 = (low & high).bit_count()
        n0 = low.bit_count() - n2
        n1 = high.bit_count() - n2
        if max(n0, n1, n2) > POOL:
            assert not counted
            if record is not None:
                record.clear()
            return place(pyramid, cell, record, counted=True)
        if not opened:
            return (rules, after, marked, None, 0)
        # A player whose pool is empty passes (55 < 75: someone has pearls).
        out = (n0, n1, n2)
        mover = _NEXT[mover]
        while out[mover] >= POOL:
            mover = _NEXT[mover]
        return (rules, after, marked, mover, opened)
    if not opened:
        return (rules, after, marked, None, 0)  # the base is full: no cell is empty
    return (rules, after, marked, _NEXT[mover], opened)


def _pass_on(counts: list[int], value: int) -> int:
    """``value`` from a group table, its colour moved on in turn order past every colour
    whose 25 pearls are out; ``counts`` (pearls out by colour) counts the pearl."""
    colour = (value & 3) - 1
    for _ in range(COLOURS):
        if counts[colour] < POOL:
            counts[colour] += 1
            return (value & ~3) | colour + 1
        colour = (colour + 1) % COLOURS
    raise AssertionError("every pool is empty, but 55 pearls fit in three of 25")

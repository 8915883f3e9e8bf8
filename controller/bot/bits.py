"""The pyramid as plain integers, for searches that visit millions of positions.

:func:`controller.rules.perlen.play` builds a state object and a tuple of :class:`Bonus`
values per move, which is right for the Table and too slow for a search. Here a position
is a :data:`BitState` tuple ``(occupied, colour 0, colour 1, colour 2, to_move, reach)``
of bitmasks (bit ``i`` is ``POSITIONS[i]``), ``to_move`` is :data:`OVER` once the pyramid
is complete, and :meth:`Rules.step` places a base pearl with its bonus cascade in a couple of
microseconds. ``tests/bot/test_bits.py`` plays thousands of games under every option
through both and asserts that they agree pearl for pearl, so the two cannot drift apart.

>>> from controller.rules.perlen import new_game, play
>>> rules = Rules.of(new_game().options)
>>> bits = from_state(new_game())
>>> for cell in ("a1", "b1", "a2", "b2"):
...     bits = rules.step(bits, cell_index(cell))
>>> state = new_game()
>>> for cell in ("a1", "b1", "a2", "b2"):
...     state, _ = play(state, cell)
>>> bits == from_state(state)
True
>>> rules.scores(bits)
(2, 1, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from controller.rules.notation import BASE, POSITIONS, parse_cell
from controller.rules.perlen import (
    COLOURS,
    POOL,
    PerlenOptions,
    PerlenState,
    Placement,
    Pools,
    Score,
    Start,
    bonus_rule,
)

BitState = tuple[int, int, int, int, int, int]
"""``(occupied, colour 0, colour 1, colour 2, to_move, reach)``; see the module docstring."""

OVER = 3
"""``to_move`` of a complete pyramid (the engine says None)."""
BASE_MASK = (1 << len(BASE)) - 1
CENTRE = parse_cell("c3").index

NEIGHBOURS: tuple[int, ...] = tuple(
    sum(
        1 << other.index
        for other in BASE
        if other is not cell
        and abs(other.file - cell.file) <= 1
        and abs(other.rank - cell.rank) <= 1
    )
    for cell in BASE
)
"""Base cells touching each base cell orthogonally or diagonally."""
SUPPORTS: tuple[int, ...] = tuple(sum(1 << s.index for s in p.supports) for p in POSITIONS)
"""The four pearls each position rests on, as a mask (0 on the base)."""
PARENTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(q.index for q in POSITIONS if p in q.supports) for p in POSITIONS
)
"""The positions each position helps support, in reading order."""
VISIBLE_MASK = sum(1 << p.index for p in POSITIONS if p.visible)
ALL_MASK = (1 << len(POSITIONS)) - 1


BONUS_COLOUR: tuple[int, ...] = tuple(
    bonus_rule((n0, n1, 4 - n0 - n1))[0] if n0 + n1 <= 4 else -1
    for n0 in range(5)
    for n1 in range(5)
)
"""The bonus colour by ``n0 * 5 + n1`` (pearls of colour 0 and 1 in the group)."""

# The base cell numbers in each pattern of the low 13 and the high 12 bits of a mask.
CELLS_LOW: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(13) if bits >> i & 1) for bits in range(1 << 13)
)
CELLS_HIGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(13 + i for i in range(12) if bits >> i & 1) for bits in range(1 << 12)
)


def cells_of(mask: int) -> tuple[int, ...]:
    """The base cell numbers set in ``mask``, in reading order.

    >>> cells_of(0b101)
    (0, 2)
    """
    return CELLS_LOW[mask & 0x1FFF] + CELLS_HIGH[mask >> 13 & 0xFFF]


def cell_index(cell: str) -> int:
    """The number (0–24, reading order) of a base cell named like ``c3``."""
    return parse_cell(cell).index


def from_state(state: PerlenState) -> BitState:
    """The engine's state as a :data:`BitState`."""
    c0, c1, c2 = state.colours
    to_move = OVER if state.to_move is None else state.to_move
    return (state.occupied, c0, c1, c2, to_move, state.reach)


@dataclass(frozen=True, slots=True)
class Rules:
    """The options that change how positions move on, resolved once per search."""

    strict: bool
    """``pools = strict``: a colour has 25 pearls; bonuses and turns pass it by when empty."""
    free: bool
    """``placement = free``: any empty base cell, touching or not."""
    centre: bool
    """``start = centre``: the first pearl goes on c3."""
    score_mask: int
    """The positions whose pearls score (the 41 visible, or all 55)."""

    @classmethod
    def of(cls, options: PerlenOptions) -> Rules:
        return cls(
            strict=options.pools is Pools.STRICT,
            free=options.placement is Placement.FREE,
            centre=options.start is Start.CENTRE,
            score_mask=ALL_MASK if options.score is Score.ALL else VISIBLE_MASK,
        )

    @property
    def total(self) -> int:
        """What the three scores of a complete pyramid add up to (41, or 55)."""
        return self.score_mask.bit_count()

    def legal_mask(self, bits: BitState) -> int:
        """The base cells the player to move may take, as a mask (0 once it is over)."""
        occupied = bits[0]
        if bits[4] == OVER:
            return 0
        if occupied == 0:
            return 1 << CENTRE if self.centre else BASE_MASK
        if self.free:
            return ~occupied & BASE_MASK
        return bits[5] & ~occupied & BASE_MASK

    def legal_cells(self, bits: BitState) -> tuple[int, ...]:
        return cells_of(self.legal_mask(bits))

    def scores(self, bits: BitState) -> tuple[int, int, int]:
        """Each colour's score as the pyramid stands (final once it is complete)."""
        mask = self.score_mask
        return (
            (bits[1] & mask).bit_count(),
            (bits[2] & mask).bit_count(),
            (bits[3] & mask).bit_count(),
        )

    def step(self, bits: BitState, cell: int) -> BitState:
        """Place the mover's pearl on base cell number ``cell`` (which must be legal).

        Exactly what :func:`controller.rules.perlen.play` does, bonus cascade and pools
        included, without checking legality or building :class:`Bonus` values.
        """
        occupied, c0, c1, c2, mover, reach = bits
        occupied, c0, c1, c2 = place(occupied, c0, c1, c2, mover, cell, self.strict)
        if occupied & BASE_MASK == BASE_MASK:
            return (occupied, c0, c1, c2, OVER, reach | NEIGHBOURS[cell])
        return (
            occupied,
            c0,
            c1,
            c2,
            next_mover(c0, c1, c2, mover, self.strict),
            reach | NEIGHBOURS[cell],
        )


# (position, its support mask) for each position a position helps support: the cascade's
# inner loop reads both at once.
_UP: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((q, SUPPORTS[q]) for q in PARENTS[p]) for p in range(len(POSITIONS))
)


def place(
    occupied: int, c0: int, c1: int, c2: int, mover: int, cell: int, strict: bool
) -> tuple[int, int, int, int]:
    """Put ``mover``'s pearl on base cell ``cell`` and every bonus pearl it earns.

    Returns the new ``(occupied, colour 0, colour 1, colour 2)`` masks. Bonus pearls go in
    the engine's order (each layer's completed groups in reading order, then the layer
    above), which matters only for which pool runs dry first.
    """
    bit = 1 << cell
    if mover == 0:
        c0 |= bit
    elif mover == 1:
        c1 |= bit
    else:
        c2 |= bit
    occupied |= bit
    frontier = _UP[cell]
    while frontier:
        placed: list[int] | None = None
        for p, support in frontier:
            if occupied & support != support or occupied >> p & 1:
                continue
            colour = BONUS_COLOUR[(c0 & support).bit_count() * 5 + (c1 & support).bit_count()]
            if strict and (c0 if colour == 0 else c1 if colour == 1 else c2).bit_count() >= POOL:
                # An empty pool passes the bonus on in turn order (55 < 75: one has some).
                colour = (colour + 1) % COLOURS
                if (c0 if colour == 0 else c1 if colour == 1 else c2).bit_count() >= POOL:
                    colour = (colour + 1) % COLOURS
            pbit = 1 << p
            if colour == 0:
                c0 |= pbit
            elif colour == 1:
                c1 |= pbit
            else:
                c2 |= pbit
            occupied |= pbit
            if placed is None:
                placed = [p]
            else:
                placed.append(p)
        if placed is None:
            break
        if len(placed) == 1:
            frontier = _UP[placed[0]]
        else:
            frontier = tuple(
                (q, SUPPORTS[q]) for q in sorted({q for p in placed for q in PARENTS[p]})
            )
    return occupied, c0, c1, c2


def next_mover(c0: int, c1: int, c2: int, mover: int, strict: bool) -> int:
    """Who moves after ``mover`` (the pyramid not yet complete): a player with no pearls passes."""
    mover = (mover + 1) % COLOURS
    if strict:
        while (c0 if mover == 0 else c1 if mover == 1 else c2).bit_count() >= POOL:
            mover = (mover + 1) % COLOURS
    return mover


def playout(bits: BitState, rules: Rules, random: Callable[[], float]) -> tuple[int, int, int]:
    """Play on with uniformly random legal cells until the pyramid is complete; its scores.

    ``random`` is a ``random.Random().random``: the same generator state gives the same game.
    """
    occupied, c0, c1, c2, mover, reach = bits
    if mover == OVER:
        return rules.scores(bits)
    strict = rules.strict
    if occupied == 0:
        # The first pearl: anywhere, or c3 with centre start.
        first = rules.legal_cells(bits)
        cell = first[int(random() * len(first))]
        occupied, c0, c1, c2 = place(occupied, c0, c1, c2, mover, cell, strict)
        reach = NEIGHBOURS[cell]
        mover = next_mover(c0, c1, c2, mover, strict)
    low, high, base, free = CELLS_LOW, CELLS_HIGH, BASE_MASK, rules.free
    while occupied & base != base:
        legal = ~occupied & base if free else reach & ~occupied
        cells = low[legal & 0x1FFF] + high[legal >> 13 & 0xFFF]
        cell = cells[int(random() * len(cells))]
        occupied, c0, c1, c2 = place(occupied, c0, c1, c2, mover, cell, strict)
        reach |= NEIGHBOURS[cell]
        mover = next_mover(c0, c1, c2, mover, strict)
    mask = rules.score_mask
    return (c0 & mask).bit_count(), (c1 & mask).bit_count(), (c2 & mask).bit_count()

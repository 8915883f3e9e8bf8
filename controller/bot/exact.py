"""Perfect play for the last placements: max^n over every order of the empty base cells.

Each colour, when it is to move, takes the cell that gives it the highest final score of
its own (the value of a complete pyramid for a colour is its score under the game's
``score`` option). Scores are small numbers, so a colour often has several cells worth
the same to it, and which one it takes decides the others' results. The search is made
for one colour, the *viewpoint* (the player who asks): the viewpoint breaks its own ties
by leaving the better of its two rivals lowest (the cell that keeps its chance of
winning), and expects a rival who does not care to take the cell worst for the viewpoint
(cautious: ``bench/bot.py`` players gained a third of a pearl a game by it over breaking
every tie alike). A tie after that goes to the first cell in reading order. So every
position has one value for a viewpoint, whichever way the search reached it, and one
transposition table serves the whole search and later searches from the positions after
it:

>>> from controller.bot.bits import Rules, from_state
>>> from controller.rules.notation import BASE
>>> from controller.rules.perlen import new_game, play
>>> state = new_game()
>>> for cell in "a1 b1 c1 d1 e1 a2 b2 c2 d2 e2 a3 b3 c3 d3 e3 a4 b4 c4 d4 e4".split():
...     state, _ = play(state, cell)
>>> state.to_move
2
>>> search = ExactSearch(Rules.of(state.options), viewpoint=2)
>>> values = search.move_values(from_state(state))
>>> {BASE[cell].short: scores for cell, scores in values.items()}
{'a5': (16, 14, 11), 'b5': (12, 15, 14), 'c5': (13, 12, 16), 'd5': (15, 13, 13), 'e5': (18, 13, 10)}
>>> search.value(from_state(state))
(13, 12, 16)

Colour 2 takes ``c5``, which gives it 16 visible pearls.

The number of positions grows about fourfold with each empty cell; ``bench/bot.py``
prints how many empty cells one second and five seconds solve.
"""

from __future__ import annotations

import threading
import time

from controller.bot.bits import (
    BASE_MASK,
    CELLS_HIGH,
    CELLS_LOW,
    NEIGHBOURS,
    OVER,
    BitState,
    Rules,
    next_mover,
    place,
)
from controller.rules.notation import POSITIONS
from controller.rules.perlen import POOL

# A value packs the three final scores into one int, 7 bits each (a score is at most 55).
_SHIFT = (0, 7, 14)
_FIELD = 0x7F


def pack(scores: tuple[int, int, int]) -> int:
    return scores[0] | scores[1] << 7 | scores[2] << 14


def unpack(value: int) -> tuple[int, int, int]:
    return value & _FIELD, value >> 7 & _FIELD, value >> 14 & _FIELD


class OutOfBudget(Exception):
    """The search ran past its deadline, was cancelled, or its table grew too large."""


def _pools_can_run_dry(bits: BitState) -> bool:
    """Whether any colour could still reach 25 pearls (only then do pools change play)."""
    occupied, c0, c1, c2 = bits[:4]
    still_to_come = len(POSITIONS) - occupied.bit_count()
    return any(c.bit_count() + still_to_come >= POOL for c in (c0, c1, c2))


class ExactSearch:
    """A max^n search for ``viewpoint`` with one transposition table, reusable for later
    positions (the same viewpoint's).

    ``deadline`` is a :func:`time.perf_counter` instant; past it (or once ``cancel`` is
    set, or the table holds ``max_entries`` positions) the search raises
    :class:`OutOfBudget`. The table keeps what was solved, so a second call after a
    timeout starts where the first stopped.
    """

    CHECK_EVERY = 128
    """Positions between looks at the clock: a few milliseconds of work."""

    def __init__(
        self,
        rules: Rules,
        *,
        viewpoint: int,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
        max_entries: int = 1_000_000,
    ) -> None:
        if viewpoint not in (0, 1, 2):
            raise ValueError(f"viewpoint must be a colour 0, 1 or 2, not {viewpoint!r}")
        self.rules = rules
        self.viewpoint = viewpoint
        self.deadline = deadline
        self.cancel = cancel
        self.max_entries = max_entries
        self.table: dict[int, int] = {}
        self.nodes = 0
        """Positions expanded (each once: a second visit is a table hit)."""
        self.edges = 0
        """Placements made, pearl and bonus cascade, across all expanded positions."""

    def value(self, bits: BitState) -> tuple[int, int, int]:
        """The final scores of all three colours when everyone plays perfectly from ``bits``."""
        if bits[4] == OVER:
            return self.rules.scores(bits)
        return unpack(self._solve(bits, self.rules.strict and _pools_can_run_dry(bits)))

    def move_values(self, bits: BitState) -> dict[int, tuple[int, int, int]]:
        """For each legal cell of the player to move: the final scores after taking it."""
        if bits[4] == OVER:
            raise ValueError("the pyramid is complete: there is no move to value")
        strict = self.rules.strict and _pools_can_run_dry(bits)
        rules = self.rules
        out: dict[int, tuple[int, int, int]] = {}
        for cell in rules.legal_cells(bits):
            child = rules.step(bits, cell)
            if child[4] == OVER:
                out[cell] = rules.scores(child)
            else:
                out[cell] = unpack(self._solve(child, strict))
        return out

    def _solve(self, bits: BitState, strict: bool) -> int:
        # Locals and one closure: this is the loop that decides how deep "perfect" reaches.
        table = self.table
        get = table.get
        low, high, base = CELLS_LOW, CELLS_HIGH, BASE_MASK
        neighbours = NEIGHBOURS
        mask = self.rules.score_mask
        free = self.rules.free
        first = self.rules.legal_mask((0, 0, 0, 0, 0, 0))
        check = self.CHECK_EVERY
        clock = time.perf_counter
        deadline = self.deadline if self.deadline is not None else float("inf")
        cancel = self.cancel
        max_entries = self.max_entries
        viewpoint = self.viewpoint
        watched = _SHIFT[viewpoint]
        edges = 0

        def solve(occupied: int, c0: int, c1: int, c2: int, mover: int, reach: int) -> int:
            nonlocal edges
            key = c0 | c1 << 55 | c2 << 110 | mover << 165
            known = get(key)
            if known is not None:
                return known
            self.nodes += 1
            if self.nodes % check == 0:
                if clock() > deadline or (cancel is not None and cancel.is_set()):
                    raise OutOfBudget("out of time")
                if len(table) >= max_entries:
                    raise OutOfBudget("transposition table full")
            if free:
                legal = ~occupied & base
            elif occupied:
                legal = reach & ~occupied & base
            else:
                legal = first
            shift = _SHIFT[mover]
            rival_a = _SHIFT[(mover + 1) % 3]
            rival_b = _SHIFT[(mover + 2) % 3]
            after = (mover + 1) % 3
            best = -1
            best_own = -1
            best_rival = 0
            for cell in low[legal & 0x1FFF] + high[legal >> 13]:
                o, a, b, c = place(occupied, c0, c1, c2, mover, cell, strict)
                edges += 1
                empty = base & ~o
                if empty & (empty - 1) == 0:
                    # At most one cell left, and its move is forced: no table entry needed.
                    if empty:
                        last = next_mover(a, b, c, mover, strict) if strict else after
                        o, a, b, c = place(o, a, b, c, last, empty.bit_length() - 1, strict)
                        edges += 1
                    value = (a & mask).bit_count() | (b & mask).bit_count() << 7
                    value |= (c & mask).bit_count() << 14
                else:
                    value = solve(
                        o,
                        a,
                        b,
                        c,
                        next_mover(a, b, c, mover, strict) if strict else after,
                        reach | neighbours[cell],
                    )
                # Own score first; then the viewpoint keeps its better rival low, and a
                # rival the viewpoint low.
                own = value >> shift & _FIELD
                if own < best_own:
                    continue
                if mover == viewpoint:
                    rival = max(value >> rival_a & _FIELD, value >> rival_b & _FIELD)
                else:
                    rival = value >> watched & _FIELD
                if own > best_own or rival < best_rival:
                    best, best_own, best_rival = value, own, rival
            table[key] = best
            return best

        try:
            return solve(*bits)
        finally:
            self.edges += edges

"""Perfect play for the last placements: alpha-beta over every order of the empty cells.

Three players cannot all be "perfect" in one number, so the search takes the side of one
colour, the *viewpoint* (the player who asks), and assumes the worst of the other two:
they play together against it (the *paranoid* assumption, Sturtevant and Korf 2000).
That makes the game two-sided, so alpha-beta pruning applies, and the value of a
position is what the viewpoint can be sure of whatever its rivals do. The value measured
is the viewpoint's final score (its visible pearls, or all its pearls with ``score =
all``); :data:`MARGIN` measures its lead over the better rival instead.

>>> from controller.games.perlen.rules import new_game, play
>>> state = new_game()
>>> for cell in "a1 b1 c1 d1 e1 a2 b2 c2 d2 e2 a3 b3 c3 d3 e3 a4 b4 c4 d4 e4".split():
...     state, _ = play(state, cell)
>>> state.to_move
2
>>> search = ExactSearch(state.rules, viewpoint=2)
>>> values = search.move_values(state)
>>> from controller.rules.notation import BASE
>>> {BASE[cell].short: value for cell, value in sorted(values.items())}
{'a5': 11, 'b5': 12, 'c5': 14, 'd5': 13, 'e5': 10}
>>> search.value(state)
14

Colour 2 takes ``c5``: 14 visible pearls, whatever colours 0 and 1 do after it.

How: MTD(f) null-window searches over one transposition table; at each position the
table's cell first, then the others ordered by what they give the viewpoint at once
(and, for a rival, what they give the rival), two killer cells per depth and then each
cell's history for that mover (the history heuristic) breaking ties; a child the table
already knows to settle the position ends it (enhanced transposition cut-off), and so
does a child of the viewpoint's that already holds enough pearls, before the rest are
placed; and a lower bound (the pearls the viewpoint holds, plus the scoring cells it
must still take when no other is left for its turns) that settles one position in
seven without searching it. With two empty cells left, each child's value is known
(its last move is forced), so those positions are valued without ordering. Positions
are keyed by their board, which holds every pearl and so the whole game: the
"incremental hash" is Python's hash of one integer.
What else was tried, and why it is not here, is in docs/performance.md.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.games.perlen.pyramid import (
    BASE_MASK,
    LOW,
    POOL,
    Pyramid,
    Rules,
    cells_of,
    place,
    scores,
)
from controller.rules.notation import POSITIONS

OWN = "own"
"""Measure the viewpoint's own final score (the default)."""
MARGIN = "margin"
"""Measure the viewpoint's final score minus the better rival's."""

# Table entries: value + 128 in bits 0-7, the kind of bound in bits 8-9, the best cell
# from bit 10 on.
_EXACT, _LOWER, _UPPER = 0, 1, 2


class OutOfBudget(Exception):
    """The search ran past its deadline or work limit, or was cancelled."""


def empty_cells(pyramid: Pyramid) -> int:
    """How many base cells are still empty."""
    return 25 - (pyramid[1] & BASE_MASK).bit_count()


def pools_can_run_dry(pyramid: Pyramid) -> bool:
    """Whether any colour could still reach 25 pearls (only then do the pools matter)."""
    board = pyramid[2]
    still_to_come = len(POSITIONS) - pyramid[1].bit_count()
    return max(scores(board, LOW)) + still_to_come >= POOL


@dataclass(frozen=True, slots=True)
class Solved:
    """A position's exact value and the cell that reaches it."""

    value: int
    cell: int | None
    """The best cell (None when the pyramid is complete)."""


class ExactSearch:
    """Alpha-beta for ``viewpoint`` with one transposition table, reusable for later
    positions of the same game (the table stays true for them).

    ``deadline`` is an instant of ``clock`` (:func:`time.perf_counter` unless a caller
    passes another: the tests pass a virtual one) and ``max_nodes`` a number of
    positions expanded; past either (or once ``cancel`` is set) the search raises
    :class:`OutOfBudget`. What was solved stays in the table, so a second call after a
    timeout starts where the first stopped.
    """

    CHECK_EVERY = 256
    """Positions between looks at the clock: well under a millisecond of work."""

    def __init__(
        self,
        rules: Rules,
        *,
        viewpoint: int,
        measure: str = OWN,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
        max_nodes: int | None = None,
        max_entries: int = 3_000_000,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if viewpoint not in (0, 1, 2):
            raise ValueError(f"viewpoint must be a colour 0, 1 or 2, not {viewpoint!r}")
        if measure not in (OWN, MARGIN):
            raise ValueError(f"measure must be {OWN!r} or {MARGIN!r}, not {measure!r}")
        self.rules = rules
        self.viewpoint = viewpoint
        self.measure = measure
        self.deadline = deadline
        self.clock = clock
        self.cancel = cancel
        self.max_nodes = max_nodes
        self.max_entries = max_entries
        self.table: dict[int, int] = {}
        self.killers = [-1] * 26
        self.killers2 = [-1] * 26
        self.history = [0] * 100
        """The history heuristic, by base cell and mover (``cell << 2 | mover``): the sum
        of the empty cells squared of every position where that cell cut the search off
        (capped at 2**20 - 1)."""
        self.nodes = 0
        """Positions expanded (a table hit is not counted)."""
        self.placements = 0
        """Placements made, each a pearl and its bonus cascade."""

    # -- answers ------------------------------------------------------------------------

    def value(self, pyramid: Pyramid) -> int:
        """The viewpoint's final score (or margin) when it plays perfectly from here."""
        return self.solve(pyramid).value

    def solve(self, pyramid: Pyramid) -> Solved:
        """The exact value of ``pyramid`` and the viewpoint's best cell when it is to move
        (a rival's worst cell for the viewpoint otherwise)."""
        if pyramid[3] is None:
            return Solved(self._final(pyramid[2]), None)
        root = self._root(pyramid)
        value = self._mtdf(root, self._guess(root))
        entry = self.table[self._key(root)]
        return Solved(value, entry >> 10)

    def at_least(self, pyramid: Pyramid, value: int) -> bool:
        """Whether the viewpoint can make sure of ``value`` from ``pyramid`` (one search
        with a null window: cheaper than the exact value)."""
        root = self._root(pyramid)
        return self._search(root, value - 1, value) >= value

    def move_values(self, pyramid: Pyramid) -> dict[int, int]:
        """The exact value of every legal cell of the player to move."""
        if pyramid[3] is None:
            raise ValueError("the pyramid is complete: there is no move to value")
        root = self._root(pyramid)
        out: dict[int, int] = {}
        for cell in cells_of(root[4]):
            child = place(root, cell)
            self.placements += 1
            out[cell] = self._search(child, -128, 128)
        return out

    def best_below(
        self, pyramid: Pyramid, value: int, *, exclude: tuple[int, ...] = ()
    ) -> tuple[int | None, int | None]:
        """The exact value of the best legal cell outside ``exclude`` for the viewpoint
        (which must be to move), and that cell, when every such cell is worth less than
        ``value``; (None, None) when there is no such cell."""
        root = self._root(pyramid)
        if root[3] != self.viewpoint:
            raise ValueError("best_below is for positions where the viewpoint is to move")
        best: int | None = None
        best_cell: int | None = None
        low = -128
        for cell in cells_of(root[4]):
            if cell in exclude:
                continue
            self.placements += 1
            # A rising lower bound prunes the cells worse than one seen already.
            found = self._search(place(root, cell), low, value)
            if found >= value:
                raise ValueError(f"cell {cell} is worth {value} or more")
            if best is None or found > low:
                best, best_cell, low = found, cell, found
        return best, best_cell

    # -- the search ---------------------------------------------------------------------

    def _root(self, pyramid: Pyramid) -> Pyramid:
        rules = self.rules
        if rules.strict and not pools_can_run_dry(pyramid):
            rules = rules._replace(strict=False)  # same play, and cheaper to place
        return (rules, pyramid[1], pyramid[2], pyramid[3], pyramid[4])

    def _guess(self, pyramid: Pyramid) -> int:
        """A first guess at the value: what the viewpoint has, and a third of what is
        still to come."""
        s = scores(pyramid[2], self.rules.score)
        come = self.rules.score.bit_count() - sum(s)
        if self.measure == OWN:
            return s[self.viewpoint] + come // 3
        return s[self.viewpoint] - max(s[(self.viewpoint + 1) % 3], s[(self.viewpoint + 2) % 3])

    def _mtdf(self, pyramid: Pyramid, guess: int) -> int:
        """The exact value by null-window searches converging on it from ``guess``
        (Plaat's MTD(f)): each prunes more than one search with a wide window."""
        lower, upper = -128, 128
        value = guess
        while lower < upper:
            beta = value + 1 if value == lower else value
            value = self._search(pyramid, beta - 1, beta)
            if value < beta:
                upper = value
            else:
                lower = value
        return value

    def _key(self, pyramid: Pyramid) -> int:
        mover = pyramid[3]
        return pyramid[2] << 2 | (3 if mover is None else mover)

    def _final(self, board: int) -> int:
        s = scores(board, self.rules.score)
        own = s[self.viewpoint]
        if self.measure == OWN:
            return own
        return own - max(s[(self.viewpoint + 1) % 3], s[(self.viewpoint + 2) % 3])

    def _search(self, pyramid: Pyramid, alpha: int, beta: int) -> int:
        # One closure with everything it needs in locals: this is the loop that decides
        # how deep "perfect" reaches.
        table = self.table
        get = table.get
        score_mask = self.rules.score
        viewpoint = self.viewpoint
        rival_a, rival_b = (viewpoint + 1) % 3, (viewpoint + 2) % 3
        own_only = self.measure == OWN
        check = self.CHECK_EVERY
        clock = self.clock
        deadline = self.deadline if self.deadline is not None else float("inf")
        max_nodes = self.max_nodes if self.max_nodes is not None else 1 << 62
        cancel = self.cancel
        max_entries = self.max_entries
        nodes = self.nodes
        placements = 0
        killers = self.killers
        killers2 = self.killers2
        history = self.history

        scoring = sum(1 << p for p in range(len(POSITIONS)) if score_mask >> 2 * p & 1)
        # The viewpoint's pearls on scoring places: where both bits match its colour + 1.
        code = viewpoint + 1
        low_pattern = LOW if code & 1 else 0
        high_pattern = LOW if code & 2 else 0
        patterns = [(LOW if (c + 1) & 1 else 0, LOW if (c + 1) & 2 else 0) for c in range(3)]
        hidden_base = BASE_MASK & ~scoring
        upper = ((1 << len(POSITIONS)) - 1) & ~BASE_MASK
        strict = self.rules.strict
        # turns[e][d]: how many of the next e base placements fall to a colour d places
        # after the mover (no one passing).
        turns = [[(e - d + 2) // 3 if e > d else 0 for d in range(3)] for e in range(26)]

        def final(board: int) -> int:
            if own_only:
                return (
                    score_mask & ~(board ^ low_pattern) & ~((board >> 1) ^ high_pattern)
                ).bit_count()
            s = scores(board, score_mask)
            return s[viewpoint] - max(s[rival_a], s[rival_b])

        def search(node: Pyramid, alpha: int, beta: int) -> int:
            nonlocal nodes, placements
            mover = node[3]
            board = node[2]
            key = board << 2 | mover  # type: ignore[operator]
            entry = get(key)
            best_cell = -1
            low = alpha
            if entry is not None:
                value = (entry & 0xFF) - 128
                kind = entry >> 8 & 3
                if kind == _EXACT:
                    return value
                if kind == _LOWER:
                    if value >= beta:
                        return value
                    if value > alpha:
                        alpha = value
                elif value <= alpha:
                    return value
                elif value < beta:
                    beta = value
                best_cell = entry >> 10
            occupied = node[1]
            left = (~occupied & BASE_MASK).bit_count()
            # Pearls never change colour, so what the viewpoint has is a lower bound; and
            # a player must put a pearl down on each of its turns, on a scoring cell once
            # no other is left. That often settles a position without searching it.
            if own_only:
                floor = (
                    score_mask & ~(board ^ low_pattern) & ~((board >> 1) ^ high_pattern)
                ).bit_count()
                if floor >= beta:
                    return floor
                mine = turns[left][(viewpoint - mover) % 3]  # type: ignore[operator]
                hidden = (hidden_base & ~occupied).bit_count()
                if mine > hidden and (
                    # With strict pools the turns counted hold while it cannot run out.
                    not strict
                    or (LOW & ~(board ^ low_pattern) & ~((board >> 1) ^ high_pattern)).bit_count()
                    + (upper & ~occupied).bit_count()
                    + mine
                    < POOL
                ):
                    floor += mine - hidden
                    if floor >= beta:
                        return floor
            high = beta
            nodes += 1
            if nodes % check == 0:
                if clock() > deadline or (cancel is not None and cancel.is_set()):
                    raise OutOfBudget("out of time")
                if nodes > max_nodes:
                    raise OutOfBudget("out of work")
                if len(table) >= max_entries:
                    table.clear()  # keep memory bounded; what was solved is lost
            maximise = mover == viewpoint
            best = -1000 if maximise else 1000
            chosen = -1
            if left <= 2:
                # Each child is complete or has one cell left, whose move is forced: its
                # value is known without ordering, table or killers.
                cells = cells_of(node[4])
                if best_cell >= 0 and cells[0] != best_cell:
                    cells = (best_cell, *(c for c in cells if c != best_cell))
                for cell in cells:
                    child = place(node, cell)
                    placements += 1
                    rest = ~child[1] & BASE_MASK
                    if rest:
                        child = place(child, rest.bit_length() - 1)
                        placements += 1
                    value = final(child[2])
                    if maximise:
                        if value > best:
                            best, chosen = value, cell
                            if value >= beta:
                                break
                    elif value < best:
                        best, chosen = value, cell
                        if value <= alpha:
                            break
            else:
                if best_cell >= 0:
                    # The table's cell first, before placing the others: often enough.
                    placements += 1
                    best = search(place(node, best_cell), alpha, beta)
                    chosen = best_cell
                    if maximise:
                        if best > alpha:
                            alpha = best
                    elif best < beta:
                        beta = best
                if alpha < beta:
                    # The others, likeliest first by what they give at once; a child the
                    # table already knows to be good enough ends the search at once. Each
                    # is sorted as one integer: its order, its place in ``kids``, its cell.
                    depth = left - 1
                    killer1 = killers[depth]
                    killer2 = killers2[depth]
                    lp, hp = patterns[mover]  # type: ignore[index]
                    keys: list[int] = []
                    kids: list[Pyramid] = []
                    for cell in cells_of(node[4]):
                        if cell == best_cell:
                            continue
                        child = place(node, cell)
                        placements += 1
                        cboard = child[2]
                        known = get(cboard << 2 | child[3])  # type: ignore[operator]
                        guess = (
                            score_mask & ~(cboard ^ low_pattern) & ~((cboard >> 1) ^ high_pattern)
                        ).bit_count()
                        if own_only and maximise and guess >= beta:
                            # The pearls it holds are enough: no need to place the rest.
                            best, chosen = guess, cell
                            break
                        if known is not None:
                            value = (known & 0xFF) - 128
                            kind = known >> 8 & 3
                            if maximise:
                                if kind != _UPPER and value >= beta:
                                    best, chosen = value, cell
                                    break
                            elif kind != _LOWER and value <= alpha:
                                best, chosen = value, cell
                                break
                            guess = value
                        # Ties: the killers, then the history of the cell for this mover.
                        killer = (
                            2 if cell == killer1 else 1 if cell == killer2 else 0
                        ) << 20 | history[cell << 2 | mover]  # type: ignore[operator]
                        if maximise:
                            order = guess << 24 | killer
                        else:
                            theirs = (
                                score_mask & ~(cboard ^ lp) & ~((cboard >> 1) ^ hp)
                            ).bit_count()
                            order = ((theirs - (guess << 6)) << 24) + killer
                        keys.append(order << 10 | len(kids) << 5 | cell)
                        kids.append(child)
                    else:
                        keys.sort(reverse=True)
                        for k in keys:
                            cell = k & 31
                            value = search(kids[k >> 5 & 31], alpha, beta)
                            if maximise:
                                if value > best:
                                    best, chosen = value, cell
                                    if value > alpha:
                                        alpha = value
                            elif value < best:
                                best, chosen = value, cell
                                if value < beta:
                                    beta = value
                            if alpha >= beta:
                                slot = cell << 2 | mover  # type: ignore[operator]
                                count = history[slot] + left * left
                                history[slot] = count if count < 0xFFFFF else 0xFFFFF
                                if killers[depth] != cell:
                                    killers2[depth] = killers[depth]
                                    killers[depth] = cell
                                break
            if best <= low:
                kind = _UPPER
            elif best >= high:
                kind = _LOWER
            else:
                kind = _EXACT
            table[key] = (best + 128) | kind << 8 | chosen << 10
            return best

        try:
            if pyramid[3] is None:
                return final(pyramid[2])
            return search(pyramid, alpha, beta)
        finally:
            self.nodes = nodes
            self.placements += placements


__all__ = [
    "MARGIN",
    "OWN",
    "ExactSearch",
    "OutOfBudget",
    "Solved",
    "empty_cells",
    "pools_can_run_dry",
]

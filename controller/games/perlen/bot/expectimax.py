"""Perfect play against modelled rivals: the exact expected result of every move.

The exact search (:mod:`controller.games.perlen.bot.exact`) plays perfectly against rivals who play
perfectly *together against the mover*. People at a table do not: each plays for
themselves, mostly taking what a move gives at once. Against such rivals the paranoid
cell is often a safe one that wins less. This search instead takes the rivals as the
strongest level's Monte Carlo search models them (:func:`controller.games.perlen.bot.policies.
model_move`): on each of their turns the greedy cell (:func:`controller.games.perlen.bot.policies.
greedy_cell`) with chance ``greedy``, otherwise any legal cell, each as likely. Every
turn of the viewpoint takes its best cell. The value is the viewpoint's expected result
(:func:`controller.games.perlen.bot.mcts.results`: its share of the win, blended with its share of
the pearls), exactly: what the Monte Carlo tree's means approach as it grows, with no
sampling left in it (an *expectimax* over the model).

>>> from controller.games.perlen.rules import new_game, play
>>> state = new_game()
>>> for cell in "a1 b1 c1 d1 e1 a2 b2 c2 d2 e2 a3 b3 c3 d3 e3 a4 b4 c4 d4 e4".split():
...     state, _ = play(state, cell)
>>> search = ModelSearch(state.rules, viewpoint=2, greedy=0.5)
>>> best = search.solve(state)
>>> from controller.rules.notation import BASE
>>> BASE[best.cell].short, round(best.value, 3), search.positions
('c5', 0.645, 145)

Nothing is pruned (a rival's turn averages over every cell), so the work grows with the
positions the game can still reach, 3.7 times as many a cell: about 2,000 at 7 empty
cells, 26,000 at 9 and 97,000 at 10. :data:`WORK` holds them so that the player can
plan; ``max_positions``, a deadline and a cancel stop it beyond.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.games.perlen.bot.exact import OutOfBudget
from controller.games.perlen.bot.mcts import SCORE_WEIGHT, results
from controller.games.perlen.pyramid import Pyramid, Rules, cells_of, place, scores

WORK: tuple[float, ...] = (0, 1, 3, 10, 45, 160, 560, 2.1e3, 7.7e3, 2.8e4, 1.05e5, 3.9e5, 1.45e6)
"""Positions :meth:`ModelSearch.solve` expands by empty base cells (the most of three
random endgames each, which differ by under 10 % since nothing is pruned, rounded up):
about 3.7 times as many a cell. Beyond 12 cells the search is not planned."""


@dataclass(frozen=True, slots=True)
class Expected:
    """The viewpoint's best cell and its exact expected result under the model."""

    value: float
    """The expected result, 0 to 1 (see the module's docstring)."""
    cell: int
    values: dict[int, float]
    """The expected result of every legal cell."""


class ModelSearch:
    """Expectimax for ``viewpoint`` against rivals modelled as :func:`model_move` plays.

    The table of solved positions stays true for later positions of the same game, so
    one search may serve several moves. Past ``deadline`` (an instant of ``clock``,
    :func:`time.perf_counter` unless a caller passes another), ``max_positions``
    positions expanded, or once ``cancel`` is set, it raises
    :class:`controller.games.perlen.bot.exact.OutOfBudget`.
    """

    CHECK_EVERY = 256
    """Positions between looks at the clock."""

    def __init__(
        self,
        rules: Rules,
        *,
        viewpoint: int,
        greedy: float,
        score_weight: float = SCORE_WEIGHT,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
        max_positions: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if viewpoint not in (0, 1, 2):
            raise ValueError(f"viewpoint must be a colour 0, 1 or 2, not {viewpoint!r}")
        if not 0.0 <= greedy <= 1.0:
            raise ValueError(f"greedy is a chance between 0 and 1, not {greedy!r}")
        if not 0.0 <= score_weight <= 1.0:
            raise ValueError(f"score_weight is between 0 and 1, not {score_weight!r}")
        self.rules = rules
        self.viewpoint = viewpoint
        self.greedy = greedy
        self.score_weight = score_weight
        self.deadline = deadline
        self.clock = clock
        self.cancel = cancel
        self.max_positions = max_positions
        self.table: dict[int, float] = {}
        self.positions = 0
        """Positions expanded (every legal cell placed); a table hit is not counted."""

    def solve(self, pyramid: Pyramid) -> Expected:
        """The viewpoint's best cell in ``pyramid`` (the viewpoint must be to move)."""
        if pyramid[3] != self.viewpoint:
            raise ValueError(
                f"the viewpoint {self.viewpoint} is not to move (colour {pyramid[3]} is)"
            )
        root = (self.rules, pyramid[1], pyramid[2], pyramid[3], pyramid[4])
        values = {cell: self.value(place(root, cell)) for cell in cells_of(pyramid[4])}
        cell = max(values, key=lambda c: (values[c], -c))  # the first of equals
        return Expected(values[cell], cell, values)

    def value(self, pyramid: Pyramid) -> float:
        """The viewpoint's expected result from ``pyramid``, whoever is to move."""
        rules = self.rules
        score_mask = rules.score
        viewpoint = self.viewpoint
        greedy = self.greedy
        other = 1.0 - greedy
        weight = self.score_weight
        table = self.table
        get = table.get
        finals: dict[tuple[int, int, int], float] = {}
        check = self.CHECK_EVERY
        clock = self.clock
        deadline = self.deadline if self.deadline is not None else float("inf")
        limit = self.max_positions if self.max_positions is not None else 1 << 62
        cancel = self.cancel
        positions = self.positions

        def final(board: int) -> float:
            s = scores(board, score_mask)
            known = finals.get(s)
            if known is None:
                known = finals[s] = results(s, weight)[viewpoint]
            return known

        def expect(node: Pyramid) -> float:
            nonlocal positions
            mover = node[3]
            board = node[2]
            if mover is None:
                return final(board)
            key = board << 2 | mover
            known = get(key)
            if known is not None:
                return known
            positions += 1
            if positions % check == 0:
                if clock() > deadline or (cancel is not None and cancel.is_set()):
                    raise OutOfBudget("out of time")
                if positions > limit:
                    raise OutOfBudget("out of work")
            cells = cells_of(node[4])
            if mover == viewpoint:
                best = -1.0
                for cell in cells:
                    value = expect(place(node, cell))
                    if value > best:
                        best = value
                table[key] = best
                return best
            # A rival: the greedy cell with chance ``greedy`` (the first of the cells
            # that gain it most, its gain less what they give the others, as
            # greedy_cell chooses), else any cell.
            total = 0.0
            greedy_value = 0.0
            best_key = -99
            for cell in cells:
                after = place(node, cell)
                gained = scores(after[2] ^ board, score_mask)
                gain = 2 * gained[mover] - sum(gained)
                value = expect(after)
                total += value
                if gain > best_key:
                    best_key, greedy_value = gain, value
            result = greedy * greedy_value + other * total / len(cells)
            table[key] = result
            return result

        try:
            # The rules given are those played (as in the exact search).
            return expect((rules, pyramid[1], pyramid[2], pyramid[3], pyramid[4]))
        finally:
            self.positions = positions


__all__ = ["WORK", "Expected", "ModelSearch"]

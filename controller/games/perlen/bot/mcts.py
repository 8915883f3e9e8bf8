"""Monte Carlo tree search for three players, with random playouts over the rules core.

Every node credits the colour that moved into it, so each colour chooses by its own
result, as in max^n (the "max^n" form of UCT for several players). A playout's result
for a colour is its share of the win (1, 1/2 or 1/3 for a win alone or shared, else 0)
blended with its share of the pyramid's scores (:data:`SCORE_WEIGHT`), so the mean of a
move is how likely the mover is to win, with a nudge towards more pearls that breaks
ties between equally winning moves. :attr:`MoveStats.score` tells the mean final score
in pearls, for hints and reviews.

>>> import random
>>> from controller.games.perlen.rules import new_game, play
>>> state, _ = play(new_game(), "c3")
>>> result = search(state, playouts=400, rng=random.Random(1))
>>> result.playouts, len(result.moves)  # 8 cells touch c3, of 2 kinds
(400, 2)
>>> sum(m.visits for m in result.moves)
400

The same generator state gives the same tree: with a fixed seed and a fixed number of
playouts the search is deterministic. A ``deadline`` (an instant of ``clock``, by default
:func:`time.perf_counter`) or ``cancel`` may stop it early; :attr:`SearchResult.complete`
then says so.
"""

from __future__ import annotations

import math
import random as _random
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass

from controller.games.perlen.bot.policies import playout
from controller.games.perlen.pyramid import Pyramid, cells_of, distinct_cells, place, scores

EXPLORATION = 0.25
"""UCT's exploration weight for results in [0, 1]; chosen with ``bench/bot.py
--exploration`` (docs/performance.md)."""
SCORE_WEIGHT = 0.25
"""How much of a playout's result is the mover's share of the scores (the rest is its
share of the win)."""
CHECK_EVERY = 32
"""Playouts between looks at the clock."""

Rollout = Callable[[Pyramid, Callable[[], float]], tuple[int, int, int]]


@dataclass(frozen=True, slots=True)
class MoveStats:
    """What the search learnt about one move at the root."""

    cell: int
    """Base cell number (reading order)."""
    visits: int
    value: float
    """Mean result of the mover after this move (see the module's docstring), 0 to 1."""
    score: float
    """Mean final score of the mover after this move, in pearls."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    moves: tuple[MoveStats, ...]
    """One per move searched, in reading order: every legal one but those that are the
    mirror image of another on a symmetric pyramid, or ``only``."""
    playouts: int
    complete: bool
    """False when the deadline or a cancel stopped it before ``playouts``."""

    @property
    def best(self) -> MoveStats:
        """The most visited move (the most reliable choice), the higher mean on a tie."""
        return max(self.moves, key=lambda m: (m.visits, m.value))


class _Node:
    __slots__ = (
        "by_cell",
        "cell",
        "children",
        "colour",
        "gain",
        "pyramid",
        "score",
        "untried",
        "value",
        "visits",
    )

    def __init__(
        self, pyramid: Pyramid, cell: int, colour: int, untried: list[int], gain: float
    ) -> None:
        self.pyramid = pyramid
        self.cell = cell
        self.colour = colour
        """The colour that moved into this node: whose result it collects."""
        self.untried = untried
        self.gain = gain
        """Pearls the move gained its mover at once, less those it gave the others."""
        self.children: list[_Node] = []
        self.by_cell: dict[int, _Node] = {}
        self.visits = 0
        self.value = 0.0
        self.score = 0.0


def _expand(node: _Node, cell: int, rng: _random.Random) -> _Node:
    pyramid = place(node.pyramid, cell)
    untried = list(cells_of(pyramid[4]))
    rng.shuffle(untried)
    mover = node.pyramid[3]
    assert mover is not None
    new = scores(pyramid[2] ^ node.pyramid[2], pyramid[0].score)
    child = _Node(pyramid, cell, mover, untried, 2 * new[mover] - sum(new))
    node.children.append(child)
    node.by_cell[cell] = child
    return child


def results(scores: tuple[int, int, int], weight: float = SCORE_WEIGHT) -> tuple[float, ...]:
    """Each colour's result of a finished game with these scores, 0 to 1.

    >>> results((14, 14, 13), weight=0.0)
    (0.5, 0.5, 0.0)
    """
    best = max(scores)
    winners = sum(1 for s in scores if s == best)
    total = sum(scores) or 1
    return tuple(
        (1 - weight) * (1 / winners if s == best else 0.0) + weight * s / total for s in scores
    )


def search(
    pyramid: Pyramid,
    *,
    playouts: int,
    rng: _random.Random,
    deadline: float | None = None,
    cancel: threading.Event | None = None,
    only: Collection[int] | None = None,
    exploration: float = EXPLORATION,
    score_weight: float = SCORE_WEIGHT,
    bias: float = 0.0,
    depth: int = 25,
    rollout: Rollout = playout,
    rivals: Callable[[Pyramid, Callable[[], float]], int] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """Grow a tree from ``pyramid`` with ``playouts`` random games (fewer if stopped).

    ``only`` limits the moves at the root to some of the legal cells. ``bias`` favours,
    while a move has few visits, the moves that gain pearls at once ("progressive bias":
    ``bias`` times the net gain, divided by the visits). ``depth`` limits the tree to that
    many moves from the root; below it the playouts decide alone (1: flat Monte Carlo). With
    ``rivals``, a move picker, the tree chooses only the root mover's moves: at a
    rival's turn it follows the rival's move that ``rivals`` picks (a model of the
    rivals, as the playouts are), instead of the rival's best by the tree.
    """
    if pyramid[3] is None:
        raise ValueError("the pyramid is complete: there is no move to search")
    if playouts < 1:
        raise ValueError(f"playouts must be at least 1, not {playouts}")
    untried = list(cells_of(pyramid[4]))
    if only is None:
        # A cell and its mirror image on a symmetric pyramid are one choice.
        untried = list(distinct_cells(pyramid[2], tuple(untried)))
    if only is not None:
        if not only or not set(only) <= set(untried):
            raise ValueError(f"only {sorted(only)} must be some of the legal cells {untried}")
        untried = [cell for cell in untried if cell in only]
    rng.shuffle(untried)
    root = _Node(pyramid, -1, -1, untried, 0.0)
    random = rng.random
    me = pyramid[3]
    stop_at = math.inf if deadline is None else deadline
    sqrt, log = math.sqrt, math.log
    # A playout's result by its scores: most games end in one of a few hundred ways.
    known: dict[tuple[int, int, int], tuple[float, ...]] = {}
    done = 0
    complete = True
    while done < playouts:
        if done % CHECK_EVERY == 0 and (
            clock() > stop_at or (cancel is not None and cancel.is_set())
        ):
            complete = False
            break
        node = root
        path = [root]
        # Selection: down the tree while every move of a node has been tried.
        while True:
            mover = node.pyramid[3]
            if mover is None:
                break
            if rivals is not None and mover != me:
                if len(path) > depth:
                    break
                cell = rivals(node.pyramid, random)
                child = node.by_cell.get(cell)
                if child is None:
                    node.untried.remove(cell)
                    node = _expand(node, cell, rng)
                    path.append(node)
                    break
                node = child
                path.append(node)
                continue
            if node.untried or not node.children:
                # Expansion: one new move (down to ``depth`` moves from the root).
                if node.untried and len(path) <= depth:
                    node = _expand(node, node.untried.pop(), rng)
                    path.append(node)
                break
            scale = exploration * sqrt(log(node.visits))
            best_child = node.children[0]
            best_value = -1.0
            for child in node.children:
                visits = child.visits
                value = (child.value + bias * child.gain) / visits + scale / sqrt(visits)
                if value > best_value:
                    best_value, best_child = value, child
            node = best_child
            path.append(node)
        scores = rollout(node.pyramid, random)
        result = known.get(scores)
        if result is None:
            result = known[scores] = results(scores, score_weight)
        for visited in path:
            visited.visits += 1
            colour = visited.colour
            if colour >= 0:
                visited.value += result[colour]
                visited.score += scores[colour]
        done += 1
    stats = [
        MoveStats(
            child.cell,
            child.visits,
            child.value / child.visits if child.visits else 0.0,
            child.score / child.visits if child.visits else 0.0,
        )
        for child in root.children
    ]
    stats.extend(MoveStats(cell, 0, 0.0, 0.0) for cell in root.untried)
    stats.sort(key=lambda m: m.cell)
    return SearchResult(tuple(stats), done, complete)

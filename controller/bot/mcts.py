"""Monte Carlo tree search for three players, with random playouts over the engine's rules.

Every node credits the colour that moved into it, so each colour chooses by its own
result, as in max^n (this is the "max^n" form of UCT for several players). A playout's
result for a colour is its final score divided by the sum of all three, so the mean of a
move is the share of the pyramid the mover expects; :attr:`MoveStats.score` turns it back
into pearls for hints and reviews.

>>> import random
>>> from controller.bot.bits import Rules, from_state
>>> from controller.rules.perlen import new_game, play
>>> state, _ = play(new_game(), "c3")
>>> result = search(from_state(state), Rules.of(state.options), playouts=400, rng=random.Random(1))
>>> result.playouts, len(result.moves) == 8
(400, True)
>>> sum(m.visits for m in result.moves)
400

The same generator state gives the same tree: with a fixed seed and a fixed number of
playouts the search is deterministic. A ``deadline`` or ``cancel`` may stop it early;
:attr:`SearchResult.complete` then says so.
"""

from __future__ import annotations

import math
import random as _random
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass

from controller.bot.bits import OVER, BitState, Rules, playout

EXPLORATION = 0.25
"""UCT's exploration weight for results in [0, 1] (a share of the pyramid); chosen with
``bench/bot.py --exploration`` against greedy players (docs/performance.md)."""
CHECK_EVERY = 32
"""Playouts between looks at the clock."""


@dataclass(frozen=True, slots=True)
class MoveStats:
    """What the search learnt about one move at the root."""

    cell: int
    """Base cell number (reading order)."""
    visits: int
    share: float
    """Mean share of the final scores the mover got after this move."""
    score: float
    """Mean final score of the mover after this move, in pearls."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    moves: tuple[MoveStats, ...]
    """One per move searched (every legal one, or ``only``), in reading order."""
    playouts: int
    complete: bool
    """False when the deadline or a cancel stopped it before ``playouts``."""

    @property
    def best(self) -> MoveStats:
        """The most visited move (the most reliable choice), the higher mean on a tie."""
        return max(self.moves, key=lambda m: (m.visits, m.share))


class _Node:
    __slots__ = ("bits", "cell", "children", "colour", "score", "share", "untried", "visits")

    def __init__(self, bits: BitState, cell: int, colour: int, untried: list[int]) -> None:
        self.bits = bits
        self.cell = cell
        self.colour = colour
        """The colour that moved into this node: whose result it collects."""
        self.untried = untried
        self.children: list[_Node] = []
        self.visits = 0
        self.share = 0.0
        self.score = 0.0


def _expand(node: _Node, cell: int, rules: Rules, rng: _random.Random) -> _Node:
    bits = rules.step(node.bits, cell)
    untried = list(rules.legal_cells(bits))
    rng.shuffle(untried)
    child = _Node(bits, cell, node.bits[4], untried)
    node.children.append(child)
    return child


def search(
    bits: BitState,
    rules: Rules,
    *,
    playouts: int,
    rng: _random.Random,
    deadline: float | None = None,
    cancel: threading.Event | None = None,
    focus: int | None = None,
    only: Collection[int] | None = None,
    exploration: float = EXPLORATION,
    rollout: Callable[[BitState, Rules, Callable[[], float]], tuple[int, int, int]] = playout,
) -> SearchResult:
    """Grow a tree from ``bits`` with ``playouts`` random games (fewer if stopped).

    ``focus``, a legal cell, gets at least a quarter of the playouts, so that its mean is
    as well founded as the best move's (a review compares the two). ``only`` limits the
    moves at the root to some of the legal cells.
    """
    if bits[4] == OVER:
        raise ValueError("the pyramid is complete: there is no move to search")
    if playouts < 1:
        raise ValueError(f"playouts must be at least 1, not {playouts}")
    untried = list(rules.legal_cells(bits))
    if only is not None:
        if not only or not set(only) <= set(untried):
            raise ValueError(f"only {sorted(only)} must be some of the legal cells {untried}")
        untried = [cell for cell in untried if cell in only]
    if focus is not None and focus not in untried:
        raise ValueError(f"the focus cell {focus} is not a legal move")
    rng.shuffle(untried)
    root = _Node(bits, -1, -1, untried)
    focus_node: _Node | None = None
    if focus is not None:
        untried.remove(focus)
        focus_node = _expand(root, focus, rules, rng)
    total = rules.total
    random = rng.random
    clock = time.perf_counter
    stop_at = math.inf if deadline is None else deadline
    sqrt, log = math.sqrt, math.log
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
        if focus_node is not None and done % 4 == 0:
            node = focus_node
            path.append(node)
        # Selection: down the tree while every move of a node has been tried.
        while not node.untried and node.children:
            scale = exploration * sqrt(log(node.visits))
            best_child = node.children[0]
            best_value = -1.0
            for child in node.children:
                value = child.share / child.visits + scale / sqrt(child.visits)
                if value > best_value:
                    best_value, best_child = value, child
            node = best_child
            path.append(node)
        # Expansion: one new move.
        if node.untried:
            node = _expand(node, node.untried.pop(), rules, rng)
            path.append(node)
        scores = rollout(node.bits, rules, random)
        for visited in path:
            visited.visits += 1
            colour = visited.colour
            if colour >= 0:
                own = scores[colour]
                visited.share += own / total
                visited.score += own
        done += 1
    stats = [
        MoveStats(
            child.cell,
            child.visits,
            child.share / child.visits if child.visits else 0.0,
            child.score / child.visits if child.visits else 0.0,
        )
        for child in root.children
    ]
    stats.extend(MoveStats(cell, 0, 0.0, 0.0) for cell in root.untried)
    stats.sort(key=lambda m: m.cell)
    return SearchResult(tuple(stats), done, complete)

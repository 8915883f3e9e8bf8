"""Quick players that look one placement ahead, and the random games the searches play.

The gentle and easy levels play :func:`sensible_moves` and :func:`greedy_move`;
``bench/bot.py`` measures the searching levels against :func:`random_move` and
:func:`greedy_move` players. A placement's *gain* is what it adds to each colour's score
at once: the pearl itself when it lies on a scoring position, and every scoring bonus
pearl of its cascade.

>>> import random
>>> from controller.rules.notation import BASE
>>> from controller.games.perlen.rules import new_game, play
>>> state = new_game()
>>> for cell in ("a1", "b1", "a2"):
...     state, _ = play(state, cell)
>>> BASE[greedy_move(state, random.Random(1))].short  # b2 earns 2:a1 (2:1:1)
'b2'
>>> for cell in ("c1", "c2"):
...     state, _ = play(state, cell)
>>> "b2" in {BASE[c].short for c in sensible_moves(state)}  # now 2:a1 would go to colour 0
False
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable

from controller.games.perlen.pyramid import (
    HIGH_CELLS,
    LOW,
    LOW_CELLS,
    Pyramid,
    cells_of,
    completes,
    place,
    scores,
)


def gains(pyramid: Pyramid, cell: int) -> tuple[int, int, int, int]:
    """What taking ``cell`` adds at once: ``(own score, rivals' score, own pearls, rivals'
    pearls)`` for the player to move (pearls counted whether they score or not)."""
    rules, _, board, mover, _ = pyramid
    assert mover is not None, "the pyramid is complete"
    # Pearls never move, so the new ones are the bits that changed.
    new = place(pyramid, cell)[2] ^ board
    scored, placed = scores(new, rules.score), scores(new, LOW)
    return (
        scored[mover],
        sum(scored) - scored[mover],
        placed[mover],
        sum(placed) - placed[mover],
    )


def random_move(pyramid: Pyramid, rng: _random.Random) -> int:
    """Any legal cell, each as likely."""
    cells = cells_of(pyramid[4])
    return cells[int(rng.random() * len(cells))]


def sensible_moves(pyramid: Pyramid) -> tuple[int, ...]:
    """The legal cells that hand no rival a bonus pearl (all of them if every one does).

    This is the one piece of advice a child understands at once: do not finish a square
    that gives somebody else a pearl.
    """
    cells = cells_of(pyramid[4])
    kind = tuple(cell for cell in cells if gains(pyramid, cell)[3] == 0)
    return kind or cells


def greedy_move(pyramid: Pyramid, rng: _random.Random) -> int:
    """The cell that adds most to the mover's score minus the rivals', ties by ``rng``.

    Among equal net gains it prefers more pearls of its own (they may score later).
    """
    best: list[int] = []
    best_key: tuple[int, int] | None = None
    for cell in cells_of(pyramid[4]):
        own, rivals, own_pearls, rival_pearls = gains(pyramid, cell)
        key = (own - rivals, own_pearls - rival_pearls)
        if best_key is None or key > best_key:
            best, best_key = [cell], key
        elif key == best_key:
            best.append(cell)
    return best[int(rng.random() * len(best))]


def playout(pyramid: Pyramid, random: Callable[[], float]) -> tuple[int, int, int]:
    """Play on with uniformly random legal cells until the pyramid is complete; its scores.

    ``random`` is a ``random.Random().random``: the same generator state gives the same
    game, the one :func:`controller.games.perlen.rules.play` plays with the same numbers.
    """
    rules = pyramid[0]
    low, high, place_ = LOW_CELLS, HIGH_CELLS, place  # locals: this loop is the search's
    while pyramid[3] is not None:
        legal = pyramid[4]
        cells = low[legal & 0x1FFF] + high[legal >> 13]
        pyramid = place_(pyramid, cells[int(random() * len(cells))])
    return scores(pyramid[2], rules.score)


def greedy_cell(pyramid: Pyramid) -> tuple[int, Pyramid | None]:
    """The cell that gains the mover most pearls now less those it gives the others
    (the first of equals), and the pyramid after it when that was worked out (a cell
    that completes no group gains just its own pearl, which needs no placing)."""
    rules, occupied, board, mover, legal = pyramid
    mask = rules.score
    best = -1
    best_after: Pyramid | None = None
    best_key = -99
    for cell in cells_of(legal):
        if completes(occupied, cell):
            after = place(pyramid, cell)
            gained = scores(after[2] ^ board, mask)
            key = 2 * gained[mover] - sum(gained)  # type: ignore[index]
            if key > best_key:
                best, best_after, best_key = cell, after, key
        elif mask >> 2 * cell & 1 > best_key:
            best, best_after, best_key = cell, None, mask >> 2 * cell & 1
    return best, best_after


def greedy_playout(
    pyramid: Pyramid, random: Callable[[], float], greedy: float = 0.5
) -> tuple[int, int, int]:
    """:func:`playout`, but each move is the greedy cell (:func:`greedy_cell`; the first
    of equals measured better than a random one of them) with chance ``greedy``: games
    more like those people play, at about three times the cost of a random one."""
    rules = pyramid[0]
    while pyramid[3] is not None:
        cells = cells_of(pyramid[4])
        if len(cells) > 1 and random() < greedy:
            cell, after = greedy_cell(pyramid)
            pyramid = place(pyramid, cell) if after is None else after
        else:
            pyramid = place(pyramid, cells[int(random() * len(cells))])
    return scores(pyramid[2], rules.score)


def model_move(pyramid: Pyramid, random: Callable[[], float], greedy: float = 0.5) -> int:
    """A rival's move as the playouts model it: the greedy cell with chance ``greedy``,
    else a random one."""
    cells = cells_of(pyramid[4])
    if len(cells) == 1 or random() >= greedy:
        return cells[int(random() * len(cells))]
    return greedy_cell(pyramid)[0]

"""Quick players that look one placement ahead: the gentle and easy levels, and the
random and greedy opponents ``bench/bot.py`` measures the searching levels against.

A placement's *gain* is what it adds to each colour's score at once: the pearl itself
when it lies on a scoring position, and every scoring bonus pearl of its cascade.

>>> import random
>>> from controller.bot.bits import Rules, from_state, cell_index
>>> from controller.rules.notation import BASE
>>> from controller.rules.perlen import new_game, play
>>> state = new_game()
>>> for cell in ("a1", "b1", "a2"):
...     state, _ = play(state, cell)
>>> bits, rules = from_state(state), Rules.of(state.options)
>>> BASE[greedy_move(bits, rules, random.Random(1))].short  # b2 earns 2:a1 (2:1:1)
'b2'
>>> cell_index("b2") in sensible_moves(bits, rules)
True
"""

from __future__ import annotations

import random as _random

from controller.bot.bits import BitState, Rules


def gains(bits: BitState, rules: Rules, cell: int) -> tuple[int, int, int, int]:
    """What taking ``cell`` adds at once: ``(own score, rivals' score, own pearls, rivals'
    pearls)`` for the player to move (pearls counted whether they score or not)."""
    after = rules.step(bits, cell)
    mover = bits[4]
    mask = rules.score_mask
    own_new = after[1 + mover] ^ bits[1 + mover]
    rivals_new = (after[0] ^ bits[0]) & ~own_new
    return (
        (own_new & mask).bit_count(),
        (rivals_new & mask).bit_count(),
        own_new.bit_count(),
        rivals_new.bit_count(),
    )


def random_move(bits: BitState, rules: Rules, rng: _random.Random) -> int:
    """Any legal cell, each as likely."""
    cells = rules.legal_cells(bits)
    return cells[int(rng.random() * len(cells))]


def sensible_moves(bits: BitState, rules: Rules) -> tuple[int, ...]:
    """The legal cells that hand no rival a bonus pearl (all of them if every one does).

    This is the one piece of advice a child understands at once: do not finish a square
    that gives somebody else a pearl.
    """
    cells = rules.legal_cells(bits)
    kind = tuple(cell for cell in cells if gains(bits, rules, cell)[3] == 0)
    return kind or cells


def greedy_move(bits: BitState, rules: Rules, rng: _random.Random) -> int:
    """The cell that adds most to the mover's score minus the rivals', ties by ``rng``.

    Among equal net gains it prefers more pearls of its own (they may score later).
    """
    best: list[int] = []
    best_key: tuple[int, int] | None = None
    for cell in rules.legal_cells(bits):
        own, rivals, own_pearls, rival_pearls = gains(bits, rules, cell)
        key = (own - rivals, own_pearls - rival_pearls)
        if best_key is None or key > best_key:
            best, best_key = [cell], key
        elif key == best_key:
            best.append(cell)
    return best[int(rng.random() * len(best))]

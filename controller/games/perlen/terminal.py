"""Perlen-Pyramide in a terminal: each layer from above, then the scores
(``pyramid replay`` prints it).

>>> from controller.games.perlen import rules as perlen
>>> state, _ = perlen.play(perlen.new_game(), "c3")
>>> print(drawn(state).splitlines()[3])
  3 · · R · ·
"""

from __future__ import annotations

import io
from typing import TextIO

from controller.games.perlen import rules as perlen
from controller.palette import terminal_mark
from controller.rules.notation import FILES, LAYERS, POSITIONS, layer_size


def drawn(state: object, *, colour: bool = False) -> str:
    """The text of :func:`draw`."""
    assert isinstance(state, perlen.PerlenState), "a Perlen-Pyramide position"
    out = io.StringIO()
    draw(state, out, colour=colour)
    return out.getvalue()


def draw(state: perlen.PerlenState, out: TextIO, *, colour: bool = False) -> None:
    """Each layer from above (rank 5 at the top, as seen from player 1), then the scores."""
    for layer in range(1, LAYERS + 1):
        n = layer_size(layer)
        out.write(f"layer {layer}\n")
        for rank in reversed(range(n)):
            cells = [
                terminal_mark(state.colour_at(p), colour)
                for p in POSITIONS
                if p.layer == layer and p.rank == rank
            ]
            out.write(f"  {rank + 1} " + " ".join(cells) + "\n")
        out.write("    " + " ".join(FILES[:n]) + "\n")
    result = perlen.outcome(state)
    pools = state.pools_left()
    for c in range(perlen.COLOURS):
        pool = "" if pools[c] is None else f", {pools[c]} left in the pool"
        out.write(
            f"colour {c} ({terminal_mark(c, colour)}): {result.visible[c]} visible, "
            f"{result.totals[c]} in all{pool}\n"
        )
    if result.over:
        names = " and ".join(f"colour {c}" for c in result.winners)
        out.write(f"winner: {names}\n" if len(result.winners) == 1 else f"shared win: {names}\n")
    else:
        out.write(f"colour {state.to_move} to move\n")

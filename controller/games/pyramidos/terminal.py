"""Pyramidos in a terminal: the four base targets around the top, then the points
(``pyramid replay`` prints it).

>>> from controller.games.pyramidos import rules as pyramidos
>>> state = pyramidos.apply(pyramidos.new_game(seats=2), pyramidos.parse_event("land t1"))
>>> print(drawn(state).splitlines()[1])
  t1:R  t2:·  t3:·  t4:·
"""

from __future__ import annotations

import io
from typing import TextIO

from controller.games.pyramidos import rules as pyramidos
from controller.palette import terminal_mark
from controller.rules.notation import Target


def drawn(state: object, *, colour: bool = False) -> str:
    """The text of :func:`draw`."""
    assert isinstance(state, pyramidos.PyramidosState), "a Pyramidos position"
    out = io.StringIO()
    draw(state, out, colour=colour)
    return out.getvalue()


def draw(state: pyramidos.PyramidosState, out: TextIO, *, colour: bool = False) -> None:
    """The four base targets around the top, then the points."""

    def at(target: Target) -> str:
        owner = state.owner(target)
        return f"{target}:{terminal_mark(owner, colour)}"

    out.write(f"      {at(Target.TOP)}\n")
    out.write(f"  {at(Target.T1)}  {at(Target.T2)}  {at(Target.T3)}  {at(Target.T4)}\n")
    result = pyramidos.outcome(state)
    for seat, points in enumerate(result.points):
        unit = "point" if points == 1 else "points"
        out.write(f"seat {seat} ({terminal_mark(seat, colour)}): {points} {unit}\n")
    if result.over:
        names = " and ".join(f"seat {s}" for s in result.winners)
        out.write(f"winner: {names}\n" if len(result.winners) == 1 else f"draw: {names}\n")
    else:
        out.write(f"seat {state.to_move} to move" + (", top open\n" if state.top_open else "\n"))

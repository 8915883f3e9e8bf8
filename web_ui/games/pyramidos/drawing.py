"""Pyramidos' pictures, worked out from a snapshot: pure geometry, no markup
(``templates/_svg_pyramidos.html`` turns them into SVG): the targets from above, each
with its owner's swatch, the top open or closed.

>>> from controller.games.pyramidos import rules as pyramidos
>>> from controller.games.pyramidos.kind import PYRAMIDOS
>>> from controller.referee.showing import position
>>> from controller.referee.snapshot import PlayerView
>>> from controller.palette import PALETTE
>>> players = tuple(PlayerView(i, i, "", c.hex, c.name, c.letter, c.pattern_id, None)
...                 for i, c in enumerate(PALETTE[:2]))
>>> state = pyramidos.apply(pyramidos.new_game(seats=2), pyramidos.parse_event("land t2"))
>>> view = board_view(position(players, PYRAMIDOS, state, state.options))
>>> view.target("t2").owner.letter, view.target("top").open
('R', False)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from controller.games.pyramidos.snapshot import parts_of
from controller.referee.snapshot import Snapshot
from web_ui.drawing import ScoreBar, Swatch, at, swatch_of, swatches

TARGET_NAMES: Final = ("t1", "t2", "t3", "t4", "top")
BOARD_SIZE: Final = 300.0


@dataclass(frozen=True, slots=True)
class TargetMark:
    name: str
    x: float
    y: float
    r: float
    owner: Swatch | None
    open: bool
    """Only the top can be closed (until the four base targets hold a ball)."""
    sensed: bool
    missing: bool = False
    extra: bool = False


@dataclass(frozen=True, slots=True)
class BoardView:
    size: float
    targets: tuple[TargetMark, ...]
    steps: tuple[tuple[float, float, float], ...] = field(default=())
    """Concentric squares (x, y, side) drawing the stepped pyramid from above."""

    def target(self, name: str) -> TargetMark:
        for mark in self.targets:
            if mark.name == name:
                return mark
        raise KeyError(name)


# Base targets at the four corners of the second step, counted anticlockwise from the
# near left like the cells (t1 nearest seat 0); the top in the middle.
_TARGET_AT: Final = {
    "t1": (0.27, 0.73),
    "t2": (0.73, 0.73),
    "t3": (0.73, 0.27),
    "t4": (0.27, 0.27),
    "top": (0.5, 0.5),
}


def board_view(snapshot: Snapshot) -> BoardView:
    """The targets from above, each with its owner's swatch; the top open or closed."""
    palette = swatches(snapshot)
    parts = parts_of(snapshot)
    sensed = set(snapshot.sensors)
    missing = {m.cell for m in snapshot.mismatches if m.kind == "missing"}
    extra = {m.cell for m in snapshot.mismatches if m.kind == "extra"}
    size = BOARD_SIZE
    marks = []
    for name in TARGET_NAMES:
        fx, fy = _TARGET_AT[name]
        owner = parts.targets.get(name)
        marks.append(
            TargetMark(
                name=name,
                x=fx * size,
                y=fy * size,
                r=size * (0.1 if name == "top" else 0.085),
                owner=None if owner is None else swatch_of(palette, owner),
                open=parts.top_open if name == "top" else True,
                sensed=name in sensed,
                missing=name in missing,
                extra=name in extra,
            )
        )
    steps = tuple((size * f, size * f, size * (1 - 2 * f)) for f in (0.04, 0.14, 0.36))
    return BoardView(size, tuple(marks), steps)


def score_bars(snapshot: Snapshot) -> tuple[ScoreBar, ...]:
    """One bar per player, in seat order: points out of 6."""
    winners = set(snapshot.winners)
    points = parts_of(snapshot).scores.points
    return tuple(
        ScoreBar(s, at(points, i) or 0, 6, to_move=snapshot.to_move == i, winner=i in winners)
        for i, s in enumerate(swatches(snapshot))
    )

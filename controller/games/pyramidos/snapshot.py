"""Pyramidos' parts of the snapshot: who holds each target, whether the top is open.

>>> from controller.games.pyramidos import rules as pyramidos
>>> state = pyramidos.apply(pyramidos.new_game(seats=2), pyramidos.parse_event("land t1"))
>>> snap = position(state, state.options, (), "t1")
>>> parts_of(snap).targets["t1"], snap.points, snap.to_json()["top_open"]
(0, (1, 0), False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from controller.games.pyramidos import rules as pyramidos
from controller.referee.game import Options, Snapshot, Status


@dataclass(frozen=True, slots=True)
class Scores:
    points: tuple[int, ...] = ()
    """1 per base ball, 2 for the top, by seat."""


@dataclass(frozen=True, slots=True)
class PyramidosParts:
    """What only a snapshot of Pyramidos has."""

    targets: Mapping[str, int | None] = field(default_factory=dict)
    """Whose ball is on each target (None: empty)."""
    top_open: bool = False
    scores: Scores = field(default_factory=Scores)


def parts_of(snap: Snapshot) -> PyramidosParts:
    """The parts of a snapshot of this game."""
    parts = snap.parts
    assert isinstance(parts, PyramidosParts), "a snapshot of Pyramidos"
    return parts


def position(
    state: object, options: Options, pending: Sequence[object], last_move: str | None
) -> Snapshot:
    """The snapshot of a position (:meth:`~controller.referee.game.GameKind.position`)."""
    assert isinstance(state, pyramidos.PyramidosState), "a Pyramidos position"
    out = pyramidos.outcome(state)
    parts = PyramidosParts(state.targets(), state.top_open, Scores(out.points))
    return Snapshot(
        game=pyramidos.NAME,
        status=Status.OVER if out.over else Status.PLAYING,
        to_move=None if state.over else state.to_move,
        parts=parts,
        points=out.points,
        over=out.over,
        winners=out.winners,
        options=options.to_dict(),
        last_move=last_move,
    )

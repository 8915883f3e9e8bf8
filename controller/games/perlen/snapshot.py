"""Perlen-Pyramide's parts of the snapshot: the pearls, the bonus pearls, the scores.

A :class:`~controller.referee.snapshot.Snapshot` of this game carries a
:class:`PerlenParts` (``snap.parts``); its fields are the snapshot's JSON keys beside the
common ones (``docs/api.md``).

>>> from controller.games.perlen import rules as perlen
>>> state, _ = perlen.play(perlen.new_game(), "c3")
>>> snap = position(state, perlen.PerlenOptions(), (), "c3")
>>> snap.to_move, [p.pos for p in parts_of(snap).pearls], snap.to_json()["pools_left"]
(1, ['1:c3'], [24, 25, 25])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from controller.games.perlen import rules as perlen
from controller.referee.game import Options, Snapshot, Status


@dataclass(frozen=True, slots=True)
class PearlView:
    pos: str
    """``1:c3``, ``2:b2`` …"""
    colour: int


@dataclass(frozen=True, slots=True)
class BonusView:
    pos: str
    colour: int
    reason: str
    """The rule that gave it its colour (``majority``, ``two-two``, ``four-of-a-kind``,
    ``passed-on``)."""
    footprint: tuple[str, ...]

    @classmethod
    def of(cls, bonus: perlen.Bonus) -> BonusView:
        return cls(str(bonus.position), bonus.colour, bonus.reason.value, bonus.position.footprint)


@dataclass(frozen=True, slots=True)
class Scores:
    visible: tuple[int, ...] = ()
    totals: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    """What counts: visible pearls, or every pearl with ``score = all``."""


@dataclass(frozen=True, slots=True)
class PerlenParts:
    """What only a snapshot of Perlen-Pyramide has."""

    pearls: tuple[PearlView, ...] = ()
    """Every pearl that should be on the board (waiting bonus pearls are in ``pending``)."""
    pending: tuple[BonusView, ...] = ()
    shown_bonus: int = 0
    """Which of ``pending`` the LEDs show now."""
    removals: tuple[BonusView, ...] = ()
    """Bonus pearls of a move taken back that are still to come off, top first."""
    scores: Scores = field(default_factory=Scores)
    pools_left: tuple[int | None, ...] = ()
    """Pearls each colour has left (None: unlimited pools)."""


def parts_of(snap: Snapshot) -> PerlenParts:
    """The parts of a snapshot of this game."""
    parts = snap.parts
    assert isinstance(parts, PerlenParts), "a snapshot of Perlen-Pyramide"
    return parts


def position(
    state: object, options: Options, pending: Sequence[object], last_move: str | None
) -> Snapshot:
    """The snapshot of a position (:meth:`~controller.referee.game.GameKind.position`)."""
    assert isinstance(state, perlen.PerlenState), "a Perlen-Pyramide position"
    bonuses = tuple(b if isinstance(b, BonusView) else BonusView.of(_bonus(b)) for b in pending)
    out = perlen.outcome(state)
    waiting = {b.pos for b in bonuses}
    parts = PerlenParts(
        pearls=tuple(PearlView(str(p), c) for p, c in state.pearls() if str(p) not in waiting),
        pending=bonuses,
        scores=Scores(out.visible, out.totals, out.scores),
        pools_left=state.pools_left(),
    )
    return Snapshot(
        game=perlen.NAME,
        status=Status.OVER if out.over else Status.PLAYING,
        to_move=state.to_move,
        parts=parts,
        points=out.scores,
        over=out.over,
        winners=out.winners,
        options=options.to_dict(),
        last_move=last_move,
    )


def _bonus(value: object) -> perlen.Bonus:
    assert isinstance(value, perlen.Bonus), "a bonus pearl"
    return value

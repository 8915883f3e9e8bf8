"""Perlen-Pyramide's game record: the base cells in the order they were played.

>>> record = read_record({"game": "perlen-pyramide", "moves": ["c3", "d4", "d3", "c4"]})
>>> [str(b.position) for b in replay(record).bonuses]
['2:c3']
>>> record.to_dict()["moves"], record.summary()["to_move"]
(['c3', 'd4', 'd3', 'c4'], 1)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.games.perlen import rules as perlen
from controller.rules.notation import parse_position
from controller.rules.records import (
    RECORD_VERSION,
    RecordError,
    RecordStep,
    ReplayError,
    only,
    strings,
)

Step = RecordStep[perlen.PerlenState, perlen.Bonus]


@dataclass(frozen=True)
class PerlenRecord:
    moves: tuple[str, ...]
    """Base cells in the order they were played."""
    options: perlen.PerlenOptions = field(default_factory=perlen.PerlenOptions)
    players: tuple[str, ...] = ()
    """Names by colour, when known."""

    @property
    def game(self) -> str:
        return perlen.NAME

    def steps(self) -> Iterator[Step]:
        """Every position, from the empty board; :class:`ReplayError` names the first move
        that cannot be played."""
        state = perlen.new_game(self.options)
        yield RecordStep(0, "", None, (), state, state)
        for number, move in enumerate(self.moves, start=1):
            before = state
            try:
                state, earned = perlen.play(state, move)
            except perlen.IllegalMoveError as exc:
                raise ReplayError("move", number, move, str(exc)) from None
            yield RecordStep(number, move, before.to_move, earned, before, state, move)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": perlen.NAME,
            "version": RECORD_VERSION,
            "moves": list(self.moves),
            "options": self.options.to_dict(),
        }
        if self.players:
            out["players"] = list(self.players)
        return out

    def summary(self) -> dict[str, Any]:
        played = replay(self)
        result = perlen.outcome(played.state)
        return {
            "game": perlen.NAME,
            "placements": [
                {"pos": pos, "colour": colour, "kind": kind}
                for pos, colour, kind in played.placements
            ],
            "visible": list(result.visible),
            "totals": list(result.totals),
            "pools_left": list(played.state.pools_left()),
            "to_move": played.state.to_move,
            "over": result.over,
            "winners": list(result.winners),
        }


def read_record(raw: Mapping[str, Any]) -> PerlenRecord:
    """The record from its decoded JSON (:func:`controller.rules.records.parse_record`
    has checked the version and the game)."""
    only(raw, {"game", "version", "moves", "options", "players"})
    try:
        options = perlen.PerlenOptions.from_dict(raw.get("options", {}))
    except perlen.OptionError as exc:
        raise RecordError(str(exc)) from None
    return PerlenRecord(strings(raw, "moves"), options, strings(raw, "players"))


@dataclass(frozen=True)
class PerlenReplay:
    state: perlen.PerlenState
    placements: tuple[tuple[str, int, str], ...]
    """(position in ``L:xy`` form, colour, ``"base"`` or ``"bonus"``) in placing order."""
    bonuses: tuple[perlen.Bonus, ...]


def replay(record: PerlenRecord) -> PerlenReplay:
    """Play a record through (:meth:`PerlenRecord.steps`); :class:`ReplayError` names the
    first move that fails."""
    placements: list[tuple[str, int, str]] = []
    bonuses: list[perlen.Bonus] = []
    state = perlen.new_game(record.options)
    for step in record.steps():
        state = step.state
        if step.mover is None:
            continue
        placements.append((str(parse_position(step.label)), step.mover, "base"))
        placements.extend((str(b.position), b.colour, "bonus") for b in step.earned)
        bonuses.extend(step.earned)
    return PerlenReplay(state, tuple(placements), tuple(bonuses))

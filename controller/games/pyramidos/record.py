"""Pyramidos' game record: the number of seats and the events (``land t1``, ``leave t1``,
``end``) in order.

>>> record = read_record({"game": "pyramidos", "seats": 2, "events": ["land t1", "end"]})
>>> record.summary()["points"], record.to_dict()["seats"]
([1, 0], 2)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.games.pyramidos import rules as pyramidos
from controller.rules.notation import NotationError
from controller.rules.records import (
    RECORD_VERSION,
    RecordError,
    RecordStep,
    ReplayError,
    only,
    strings,
)

Step = RecordStep[pyramidos.PyramidosState, object]


@dataclass(frozen=True)
class PyramidosRecord:
    events: tuple[str, ...]
    """Events like ``land t1``, ``leave t1``, ``end`` in order."""
    options: pyramidos.PyramidosOptions = field(default_factory=pyramidos.PyramidosOptions)
    players: tuple[str, ...] = ()
    """Names by seat, when known."""

    @property
    def game(self) -> str:
        return pyramidos.NAME

    def steps(self) -> Iterator[Step]:
        """Every position, from the empty board; :class:`ReplayError` names the first event
        that cannot be applied."""
        state = pyramidos.new_game(options=self.options)
        yield RecordStep(0, "", None, (), state, state)
        for number, text in enumerate(self.events, start=1):
            before = state
            try:
                state = pyramidos.apply(state, pyramidos.parse_event(text))
            except (NotationError, pyramidos.ImpossibleEventError) as exc:
                raise ReplayError("event", number, text, str(exc)) from None
            landed = text.split()[1] if text.startswith("land ") else None
            yield RecordStep(number, text, before.to_move, (), before, state, landed)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": pyramidos.NAME,
            "version": RECORD_VERSION,
            "seats": self.options.seats,
            "events": list(self.events),
            "options": self.options.to_dict(),
        }
        if self.players:
            out["players"] = list(self.players)
        return out

    def summary(self) -> dict[str, Any]:
        state = last_state(self)
        result = pyramidos.outcome(state)
        return {
            "game": pyramidos.NAME,
            "targets": state.targets(),
            "points": list(result.points),
            "to_move": None if state.over else state.to_move,
            "over": result.over,
            "winners": list(result.winners),
        }


def read_record(raw: Mapping[str, Any]) -> PyramidosRecord:
    """The record from its decoded JSON (:func:`controller.rules.records.parse_record`
    has checked the version and the game)."""
    only(raw, {"game", "version", "seats", "events", "options", "players"})
    if "seats" not in raw:
        raise RecordError("a Pyramidos record needs 'seats' (2 to 4)")
    try:
        options = pyramidos.PyramidosOptions.from_dict(raw["seats"], raw.get("options", {}))
    except pyramidos.SetupError as exc:
        raise RecordError(str(exc)) from None
    return PyramidosRecord(strings(raw, "events"), options, strings(raw, "players"))


def last_state(record: PyramidosRecord) -> pyramidos.PyramidosState:
    """The last position of a record (:meth:`PyramidosRecord.steps`)."""
    *_, last = record.steps()
    return last.state

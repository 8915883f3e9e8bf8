"""Game records: versioned JSON that replays a whole game of either kind.

>>> record = parse_record('{"game": "perlen-pyramide", "moves": ["c3", "d4"]}')
>>> record.moves
('c3', 'd4')
>>> summary(record)["to_move"]
2
>>> record_to_dict(parse_record({"game": "pyramidos", "seats": 3, "events": ["end"]}))["seats"]
3
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from controller.rules import perlen, pyramidos
from controller.rules.notation import NotationError, parse_position

RECORD_VERSION = 1
PERLEN = "perlen-pyramide"
PYRAMIDOS = "pyramidos"
MAX_RECORD_ITEMS = 1000
"""More moves or events than any real game has; a longer record is rejected."""


class RecordError(ValueError):
    """A record that cannot be read; the message names the key or the item."""


class ReplayError(ValueError):
    """Move or event ``number`` (counting from 1) of a record could not be played."""

    def __init__(self, what: str, number: int, item: object, why: str) -> None:
        super().__init__(f"{what} {number} ({item!r}): {why}")
        self.number = number
        self.item = item
        self.why = why


S = TypeVar("S", perlen.PerlenState, pyramidos.PyramidosState)


@dataclass(frozen=True, slots=True)
class RecordStep(Generic[S]):
    """One position of a replayed record."""

    number: int
    """0 for the empty board, then 1, 2, … for each move or event."""
    label: str
    """The move (``c4``) or event (``land t2``) that led here; empty for step 0."""
    mover: int | None
    """Colour (Perlen-Pyramide) or seat (Pyramidos) that made it."""
    earned: tuple[perlen.Bonus, ...]
    """Bonus pearls the move earned, in placing order."""
    before: S
    state: S
    last_move: str | None = None
    """The base cell played (Perlen-Pyramide), for the picture to mark."""


@dataclass(frozen=True)
class PerlenRecord:
    moves: tuple[str, ...]
    """Base cells in the order they were played."""
    options: perlen.PerlenOptions = field(default_factory=perlen.PerlenOptions)
    players: tuple[str, ...] = ()
    """Names by colour, when known."""

    def steps(self) -> Iterator[RecordStep[perlen.PerlenState]]:
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


@dataclass(frozen=True)
class PyramidosRecord:
    events: tuple[str, ...]
    """Events like ``land t1``, ``leave t1``, ``end`` in order."""
    options: pyramidos.PyramidosOptions = field(default_factory=pyramidos.PyramidosOptions)
    players: tuple[str, ...] = ()
    """Names by seat, when known."""

    def steps(self) -> Iterator[RecordStep[pyramidos.PyramidosState]]:
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
            yield RecordStep(number, text, before.to_move, (), before, state)


Record = PerlenRecord | PyramidosRecord


def _strings(raw: Mapping[str, Any], key: str) -> tuple[str, ...]:
    items = raw.get(key, [])
    if not isinstance(items, list):
        raise RecordError(f"{key!r} must be a list of strings")
    if len(items) > MAX_RECORD_ITEMS:
        raise RecordError(f"{key!r} has {len(items)} items; a game has far fewer")
    for i, item in enumerate(items, start=1):
        if not isinstance(item, str):
            raise RecordError(f"{key!r} item {i} must be a string, not {item!r}")
    return tuple(items)


def parse_record(source: str | bytes | Mapping[str, Any]) -> Record:
    """Read a record from JSON text or an already decoded object; strict about keys."""
    raw: Any
    if isinstance(source, str | bytes):
        try:
            raw = json.loads(source)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RecordError(f"not JSON: {exc}") from None
    else:
        raw = source
    if not isinstance(raw, Mapping):
        raise RecordError("a record must be a JSON object with a 'game' key")
    version = raw.get("version", RECORD_VERSION)
    if version != RECORD_VERSION or isinstance(version, bool):
        raise RecordError(f"record version {version!r} is not supported (this reads version 1)")
    game = raw.get("game")
    options = raw.get("options", {})
    if game == PERLEN:
        _only(raw, {"game", "version", "moves", "options", "players"})
        try:
            opts = perlen.PerlenOptions.from_dict(options)
        except perlen.OptionError as exc:
            raise RecordError(str(exc)) from None
        return PerlenRecord(_strings(raw, "moves"), opts, _strings(raw, "players"))
    if game == PYRAMIDOS:
        _only(raw, {"game", "version", "seats", "events", "options", "players"})
        if "seats" not in raw:
            raise RecordError("a Pyramidos record needs 'seats' (2 to 4)")
        try:
            popts = pyramidos.PyramidosOptions.from_dict(raw["seats"], options)
        except pyramidos.SetupError as exc:
            raise RecordError(str(exc)) from None
        return PyramidosRecord(_strings(raw, "events"), popts, _strings(raw, "players"))
    raise RecordError(f"'game' must be {PERLEN!r} or {PYRAMIDOS!r}, not {game!r}")


def _only(raw: Mapping[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(raw) - allowed)
    if extra:
        raise RecordError(f"unknown key {extra[0]!r} (allowed: {', '.join(sorted(allowed))})")


def record_to_dict(record: Record) -> dict[str, Any]:
    """The JSON object for ``record`` (what :func:`parse_record` reads back)."""
    out: dict[str, Any]
    if isinstance(record, PerlenRecord):
        out = {"game": PERLEN, "version": RECORD_VERSION, "moves": list(record.moves)}
        out["options"] = record.options.to_dict()
    else:
        out = {
            "game": PYRAMIDOS,
            "version": RECORD_VERSION,
            "seats": record.options.seats,
            "events": list(record.events),
            "options": record.options.to_dict(),
        }
    if record.players:
        out["players"] = list(record.players)
    return out


@dataclass(frozen=True)
class PerlenReplay:
    state: perlen.PerlenState
    placements: tuple[tuple[str, int, str], ...]
    """(position in ``L:xy`` form, colour, ``"base"`` or ``"bonus"``) in placing order."""
    bonuses: tuple[perlen.Bonus, ...]


def replay_perlen(record: PerlenRecord) -> PerlenReplay:
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


def replay_pyramidos(record: PyramidosRecord) -> pyramidos.PyramidosState:
    """The last position of a record (:meth:`PyramidosRecord.steps`)."""
    *_, last = record.steps()
    return last.state


def summary(record: Record) -> dict[str, Any]:
    """The one JSON object ``pyramid replay --json`` prints."""
    if isinstance(record, PerlenRecord):
        played = replay_perlen(record)
        result = perlen.outcome(played.state)
        return {
            "game": PERLEN,
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
    state = replay_pyramidos(record)
    pyr = pyramidos.outcome(state)
    return {
        "game": PYRAMIDOS,
        "targets": state.targets(),
        "points": list(pyr.points),
        "to_move": None if state.over else state.to_move,
        "over": pyr.over,
        "winners": list(pyr.winners),
    }

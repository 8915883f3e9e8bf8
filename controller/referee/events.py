"""The one vocabulary of stored events: typed values, their JSON, and the fold.

Everything that happens in a game and is kept is one of these events. The referee makes
them, the store writes them (kind and JSON data, one row each) and reads them back, and
the fold replays them: resuming after a restart, the history's records and
``pyramid replay --store`` all go through :func:`fold`.

>>> from controller.rules import perlen
>>> events = [BasePearl("c3", 0), BasePearl("d4", 1), BasePearl("d3", 2), BasePearl("c4", 0),
...           BonusPlaced("2:c3", 0, By.BUTTON)]
>>> [(e.kind, e.data()) for e in events[-1:]]
[('bonus', {'pos': '2:c3', 'colour': 0, 'by': 'button'})]
>>> from controller.referee.games import PerlenGame
>>> game = fold(PerlenGame.new(perlen.PerlenOptions()), events)
>>> game.pending, game.state.to_move
((), 1)
>>> from_stored("move", {"cell": "c3", "colour": 0})
BasePearl(cell='c3', colour=0)
>>> from_stored("move", {"cell": "c3"})
Traceback (most recent call last):
...
controller.referee.events.EventError: a 'move' event needs cell, colour (it has cell)

Files written by release 0.1.0 hold the same kinds with the same data, so they load
unchanged (``tests/referee/test_events.py`` opens one). ``abort`` is new: an aborted game
now says so in its log as well as in its status.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from controller.referee.games import Game, GameError, new_game, read_options
from controller.referee.kept import EventRow
from controller.rules.notation import NotationError, parse_cell, parse_position, parse_target
from controller.rules.records import Record


class EventError(ValueError):
    """A stored event that is not one of ours, or does not fit the game it is in."""


class By(enum.Enum):
    """Who or what made an acknowledgement, a take-back or the end of a turn."""

    PEARL = "pearl"
    """The next base pearl (it acknowledges the bonus pearls still waiting)."""
    BUTTON = "button"
    """A button on the board."""
    PAGE = "page"
    """The web page."""
    LIFT = "lift"
    """The last pearl lifted off the board (a take-back)."""


@dataclass(frozen=True, slots=True)
class Stored:
    """What every event is: a kind and fields, which are its JSON data (the one schema)."""

    kind: ClassVar[str]

    def data(self) -> dict[str, Any]:
        """The JSON data (what :func:`from_stored` reads back)."""
        return {
            f.name: value.value if isinstance(value := getattr(self, f.name), enum.Enum) else value
            for f in dataclasses.fields(self)
        }


@dataclass(frozen=True, slots=True)
class BasePearl(Stored):
    """Perlen-Pyramide: ``colour`` placed a pearl on base ``cell``."""

    cell: str
    colour: int
    kind: ClassVar[str] = "move"


@dataclass(frozen=True, slots=True)
class BonusPlaced(Stored):
    """Perlen-Pyramide: the waiting bonus pearl at ``pos`` was placed (acknowledged)."""

    pos: str
    colour: int
    by: By
    kind: ClassVar[str] = "bonus"


@dataclass(frozen=True, slots=True)
class TakeBack(Stored):
    """The last move (base pearl, with its bonus pearls) or Pyramidos event taken back;
    ``what`` is the cell or the event text."""

    by: By
    what: str
    kind: ClassVar[str] = "undo"


@dataclass(frozen=True, slots=True)
class Landed(Stored):
    """Pyramidos: a ball of ``seat`` came to rest on ``target``."""

    target: str
    seat: int
    kind: ClassVar[str] = "land"


@dataclass(frozen=True, slots=True)
class KnockedOff(Stored):
    """Pyramidos: the ball on ``target`` (``seat``'s) was knocked off."""

    target: str
    seat: int | None
    kind: ClassVar[str] = "leave"


@dataclass(frozen=True, slots=True)
class TurnEnded(Stored):
    """Pyramidos: ``seat``'s turn ended without a landing (earth square or net)."""

    seat: int
    by: By
    kind: ClassVar[str] = "end"


@dataclass(frozen=True, slots=True)
class Aborted(Stored):
    """The game was stopped without a result (a new game, or Abort)."""

    reason: str
    kind: ClassVar[str] = "abort"


@dataclass(frozen=True, slots=True)
class Result:
    """A finished game's result, stored with its last event."""

    points: tuple[int, ...]
    """Each player's score (by player number)."""
    winners: tuple[int, ...]
    details: dict[str, object]
    """Everything the history shows (visible pearls, totals, names …)."""


Event = BasePearl | BonusPlaced | TakeBack | Landed | KnockedOff | TurnEnded | Aborted

EVENT_TYPES: Final[Mapping[str, type[Event]]] = {
    t.kind: t for t in (BasePearl, BonusPlaced, TakeBack, Landed, KnockedOff, TurnEnded, Aborted)
}
"""Every stored kind and the type that reads it."""
EVENT_KINDS: Final = tuple(EVENT_TYPES)


# -- JSON in -------------------------------------------------------------------------------

_FIELDS: Final[Mapping[str, tuple[str, ...]]] = {
    kind: tuple(f.name for f in dataclasses.fields(t)) for kind, t in EVENT_TYPES.items()
}
"""Each kind's JSON keys: its type's fields (the schema is the dataclasses above)."""


def _int(data: Mapping[str, Any], name: str, kind: str, *, none: bool = False) -> int | None:
    value = data[name]
    if value is None and none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 4:
        raise EventError(f"a {kind!r} event's {name} is a colour or seat number, not {value!r}")
    return value


def _by(data: Mapping[str, Any], kind: str) -> By:
    try:
        return By(data["by"])
    except ValueError:
        raise EventError(f"a {kind!r} event's by must be one of {[b.value for b in By]}") from None


def _text(data: Mapping[str, Any], name: str, kind: str) -> str:
    value = data[name]
    if not isinstance(value, str) or not 0 < len(value) <= 200:
        raise EventError(f"a {kind!r} event's {name} must be text, not {value!r}")
    return value


def _cell(data: Mapping[str, Any], name: str, kind: str) -> str:
    return parse_cell(_text(data, name, kind)).short


def _pos(data: Mapping[str, Any], name: str, kind: str) -> str:
    return str(parse_position(_text(data, name, kind)))


def _target(data: Mapping[str, Any], name: str, kind: str) -> str:
    return str(parse_target(_text(data, name, kind)))


def _seat(data: Mapping[str, Any], name: str, kind: str) -> int | None:
    return _int(data, name, kind, none=kind == KnockedOff.kind)  # a ball nobody owned


_READERS: Final[Mapping[str, Callable[[Mapping[str, Any], str, str], Any]]] = {
    "cell": _cell,
    "pos": _pos,
    "target": _target,
    "colour": _int,
    "seat": _seat,
    "by": lambda data, name, kind: _by(data, kind),
    "what": _text,
    "reason": _text,
}
"""How each field is read back, by its name (every event's fields are among these)."""


def from_stored(kind: str, data: Mapping[str, Any]) -> Event:
    """The event a stored row (kind, JSON data) holds; :class:`EventError` if none fits."""
    fields = _FIELDS.get(kind)
    if fields is None:
        raise EventError(f"{kind!r} is not an event kind (known: {', '.join(EVENT_KINDS)})")
    if not isinstance(data, Mapping) or set(data) != set(fields):
        have = ", ".join(sorted(data)) if isinstance(data, Mapping) else type(data).__name__
        raise EventError(f"a {kind!r} event needs {', '.join(fields)} (it has {have})")
    try:
        values = {name: _READERS[name](data, name, kind) for name in fields}
    except NotationError as exc:
        raise EventError(f"a {kind!r} event: {exc}") from None
    return EVENT_TYPES[kind](**values)


# -- the fold ------------------------------------------------------------------------------


def apply(game: Game, event: Event) -> Game:
    """``game`` after ``event``; :class:`EventError` when the event does not fit it."""
    from controller.referee.kinds import kind_of  # each game reads its own events

    try:
        return kind_of(game).apply(game, event)
    except GameError as exc:
        raise EventError(str(exc)) from None


def fold(game: Game, events: Iterable[Event]) -> Game:
    """Replay ``events`` onto ``game`` in order."""
    for number, event in enumerate(events, start=1):
        try:
            game = apply(game, event)
        except EventError as exc:
            raise EventError(f"event {number} ({event.kind} {event.data()}): {exc}") from None
    return game


def standing(game: Game) -> tuple[str, ...]:
    """The moves (Perlen-Pyramide cells) or events (Pyramidos) that stand: the record."""
    return game.standing


def record_of(
    game: str, players: Sequence[str], options: Mapping[str, Any], events: Iterable[EventRow]
) -> Record:
    """The record of a kept game: its events folded, the moves that stand (the history,
    ``pyramid replay --store`` and the web replay read a stored game so). Raises
    :class:`EventError`, :class:`~controller.rules.perlen.OptionError` or
    :class:`~controller.rules.pyramidos.SetupError` when this version cannot read it."""
    opts = read_options(game, len(players), dict(options))
    played = fold(new_game(opts), (from_stored(e.kind, e.data) for e in events))
    return played.record(tuple(players))

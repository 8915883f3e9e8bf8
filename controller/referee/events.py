"""Stored events: what every game's events are, the two every game has, and the fold.

Everything that happens in a game and is kept is an event: a frozen dataclass whose
fields are its JSON data (:class:`Stored`). Each game has its own (Perlen-Pyramide's base
pearl and bonus pearl, Pyramidos' landing, knock-off and end of turn: their packages'
``events.py``, listed by :attr:`~controller.referee.protocol.GameKind.events`); every game has
:class:`TakeBack` and :class:`Aborted`. The referee makes them, the store writes them
(kind and JSON data, one row each) and reads them back, and the fold replays them:
resuming after a restart, the history's records and ``pyramid replay --store`` all go
through :func:`fold`.

>>> from controller.games.perlen.kind import PERLEN_PYRAMIDE as game
>>> from controller.games.perlen.events import BasePearl, BonusPlaced
>>> events = [BasePearl("c3", 0), BasePearl("d4", 1), BasePearl("d3", 2), BasePearl("c4", 0),
...           BonusPlaced("2:c3", 0, By.BUTTON)]
>>> [(e.kind, e.data()) for e in events[-1:]]
[('bonus', {'pos': '2:c3', 'colour': 0, 'by': 'button'})]
>>> folded = fold(game, game.new_game(game.read_options(3, {})), events)
>>> folded.pending, folded.to_move
((), 1)
>>> from_stored(game, "move", {"cell": "c3", "colour": 0})
BasePearl(cell='c3', colour=0)
>>> from_stored(game, "move", {"cell": "c3"})
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
from typing import TYPE_CHECKING, Any, ClassVar, Final

from controller.referee.kept import EventRow, KeptGame
from controller.referee.protocol import GameError
from controller.rules.notation import NotationError
from controller.rules.records import OptionError, Record

if TYPE_CHECKING:
    from controller.referee.protocol import Game, GameKind


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


Reader = Callable[[Mapping[str, Any], str, str], Any]
"""How one field of a stored event is read back: (its JSON data, the field's name, the
event's kind) to the value, or an :class:`EventError` naming what is wrong."""


@dataclass(frozen=True, slots=True)
class Stored:
    """What every event is: a kind and fields, which are its JSON data (the one schema).

    Each event says how its fields are read back (``readers``, by field name: the
    helpers below, :func:`number`, :func:`made_by`, :func:`text`, :func:`notation`), so a game
    with a new field declares it with its event; ``nullable`` names the fields that may
    be null."""

    kind: ClassVar[str]
    readers: ClassVar[Mapping[str, Reader]]
    nullable: ClassVar[frozenset[str]] = frozenset()

    def data(self) -> dict[str, Any]:
        """The JSON data (what :func:`from_stored` reads back)."""
        return {
            f.name: value.value if isinstance(value := getattr(self, f.name), enum.Enum) else value
            for f in dataclasses.fields(self)
        }


# -- reading a field back --------------------------------------------------------------------


def number(data: Mapping[str, Any], name: str, kind: str) -> int:
    """A colour or seat number (0 to 3)."""
    value = data[name]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 4:
        raise EventError(f"a {kind!r} event's {name} is a colour or seat number, not {value!r}")
    return value


def made_by(data: Mapping[str, Any], name: str, kind: str) -> By:
    """Who made it (:class:`By`)."""
    try:
        return By(data[name])
    except ValueError:
        raise EventError(f"a {kind!r} event's by must be one of {[b.value for b in By]}") from None


def text(data: Mapping[str, Any], name: str, kind: str) -> str:
    """Text of 1 to 200 characters."""
    value = data[name]
    if not isinstance(value, str) or not 0 < len(value) <= 200:
        raise EventError(f"a {kind!r} event's {name} must be text, not {value!r}")
    return value


def notation(parse: Callable[[str], object]) -> Reader:
    """A place in a game's notation: text that ``parse`` reads (a
    :class:`~controller.rules.notation.NotationError` names what is wrong), kept as the
    parsed value's text."""

    def read(data: Mapping[str, Any], name: str, kind: str) -> str:
        return str(parse(text(data, name, kind)))

    return read


@dataclass(frozen=True, slots=True)
class TakeBack(Stored):
    """The last move (a base pearl with its bonus pearls, a landing …) taken back; ``what``
    is the cell or the event text."""

    by: By
    what: str
    kind: ClassVar[str] = "undo"
    readers: ClassVar[Mapping[str, Reader]] = {"by": made_by, "what": text}


@dataclass(frozen=True, slots=True)
class Aborted(Stored):
    """The game was stopped without a result (a new game, or Abort)."""

    reason: str
    kind: ClassVar[str] = "abort"
    readers: ClassVar[Mapping[str, Reader]] = {"reason": text}


@dataclass(frozen=True, slots=True)
class Result:
    """A finished game's result, stored with its last event."""

    points: tuple[int, ...]
    """Each player's score (by player number)."""
    winners: tuple[int, ...]
    details: dict[str, object]
    """Everything the history shows (visible pearls, totals, names …)."""


Event = Stored
"""Any stored event (each game's own, :class:`TakeBack`, :class:`Aborted`)."""

COMMON: Final[Mapping[str, type[Stored]]] = {TakeBack.kind: TakeBack, Aborted.kind: Aborted}
"""The events every game has."""


def kinds_of(game: GameKind) -> Mapping[str, type[Stored]]:
    """Every event ``game`` keeps, by kind: its own, then the common ones."""
    return {**game.events, **COMMON}


# -- JSON in -------------------------------------------------------------------------------


def from_stored(game: GameKind, kind: str, data: Mapping[str, Any]) -> Event:
    """The event of ``game`` a stored row (kind, JSON data) holds; :class:`EventError` if
    none fits."""
    known = kinds_of(game)
    cls = known.get(kind)
    if cls is None:
        raise EventError(f"{kind!r} is not an event kind (known: {', '.join(known)})")
    fields = tuple(f.name for f in dataclasses.fields(cls))
    if not isinstance(data, Mapping) or set(data) != set(fields):
        have = ", ".join(sorted(data)) if isinstance(data, Mapping) else type(data).__name__
        raise EventError(f"a {kind!r} event needs {', '.join(fields)} (it has {have})")
    try:
        values = {
            name: None
            if data[name] is None and name in cls.nullable
            else cls.readers[name](data, name, kind)
            for name in fields
        }
    except NotationError as exc:
        raise EventError(f"a {kind!r} event: {exc}") from None
    return cls(**values)


# -- the fold ------------------------------------------------------------------------------


def apply(kind: GameKind, game: Game, event: Event) -> Game:
    """``game`` after ``event``; :class:`EventError` when the event does not fit it. The
    take-back and the abort are every game's (:meth:`~controller.referee.protocol.Game.undo`);
    ``kind`` applies its own events."""
    try:
        if isinstance(event, Aborted):
            return game  # an abort ends the game in the store; the position stays
        if isinstance(event, TakeBack):
            return game.undo()
        return kind.apply(game, event)
    except GameError as exc:
        raise EventError(str(exc)) from None


def fold(kind: GameKind, game: Game, events: Iterable[Event]) -> Game:
    """Replay ``events`` onto ``game`` (a game of ``kind``) in order."""
    for number, event in enumerate(events, start=1):
        try:
            game = apply(kind, game, event)
        except EventError as exc:
            raise EventError(f"event {number} ({event.kind} {event.data()}): {exc}") from None
    return game


def record_of(
    kind: GameKind, players: Sequence[str], options: Mapping[str, Any], events: Iterable[EventRow]
) -> Record:
    """The record of a kept game of ``kind``: its events folded, the moves that stand (the
    history, ``pyramid replay --store`` and the web replay read a stored game so). Raises
    :class:`EventError`, or the game's :class:`~controller.rules.records.OptionError`,
    when this version cannot read it."""
    if not isinstance(options, Mapping):
        raise OptionError("options", "must be an object of option names and values")
    opts = kind.read_options(len(players), dict(options))
    played = fold(kind, kind.new_game(opts), (from_stored(kind, e.kind, e.data) for e in events))
    return played.record(tuple(players))


def kept_record(games: Mapping[str, GameKind], game: KeptGame) -> dict[str, Any]:
    """The record (its JSON) of a kept game of one of ``games``: :func:`record_of` with the
    game's rules. Raises :class:`EventError` or an
    :class:`~controller.rules.records.OptionError` when this version cannot read it."""
    kind = games.get(game.game)
    if kind is None:
        raise EventError(f"{game.game!r} is not a game this board plays")
    names = tuple(p.name for p in game.players)
    return record_of(kind, names, game.options, game.events).to_dict()

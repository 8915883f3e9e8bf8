"""Stored events: what every game's events are, and the two every game has.

Everything that happens in a game and is kept is an event: a frozen dataclass whose
fields are its JSON data (:class:`Stored`). Each game has its own (Perlen-Pyramide's base
pearl and bonus pearl, Pyramidos' landing, knock-off and end of turn: their packages'
``events.py``, listed by :attr:`~controller.referee.protocol.GameKind.events`); every game has
:class:`TakeBack` and :class:`Aborted`. The referee makes them, the store writes them
(kind and JSON data, one row each) and reads them back, and the fold
(:mod:`controller.referee.fold`) replays them. These are values only: this module imports
nothing of the referee but what is kept (so the seam names them without a circle).

Files written by release 0.1.0 hold the same kinds with the same data, so they load
unchanged (``tests/referee/test_events.py`` opens one). ``abort`` is new: an aborted game
now says so in its log as well as in its status.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final


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

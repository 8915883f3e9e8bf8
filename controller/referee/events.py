"""Stored events: what every game's events are, and the two every game has.

Everything that happens in a game and is kept is an event: a frozen dataclass whose
fields are its JSON data (:class:`Stored`). Each game has its own (Perlen-Pyramide's base
pearl and bonus pearl, Pyramidos' landing, knock-off and end of turn: their packages'
``events.py``, listed by :attr:`~controller.referee.protocol.GameKind.events`); every game has
:class:`TakeBack` and :class:`Aborted`. The referee makes them, the store writes them
(kind and JSON data, one row each) and reads them back, and the fold
(:mod:`controller.referee.fold`) replays them. These are values only: this module imports
nothing of the referee but what is kept (so the seam names them without a circle).

An event's fields are its schema: each is declared with its type, a range or a length
where it has one (:data:`PlayerNumber`, :data:`Text`, :class:`Limits`), a place in a
game's notation (:func:`notation`) or an enum (:class:`By`). The fold reads a stored row
back through its game's tagged union of them (:func:`controller.referee.fold.from_stored`),
so a game with a new field declares it with its event and nothing here changes. These
declarations are read by pydantic when that union is first built; this module does not
import it (``pyramid --help`` loads the referee, and pydantic costs it a quarter second).

>>> Aborted("a new game was started").data()
{'reason': 'a new game was started'}

Files written by release 0.1.0 hold the same kinds with the same data, so they load
unchanged (``tests/referee/test_events.py`` opens one). ``abort`` is new: an aborted game
now says so in its log as well as in its status.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Final, TypeAlias

from controller.rules.notation import NotationError

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema


class EventError(ValueError):
    """A stored event that is not one of ours, or does not fit the game it is in."""


class By(enum.Enum):
    """Who or what made an acknowledgement, a take-back or the end of a turn."""

    NEXT_MOVE = "pearl"
    """The next move (it acknowledges the pieces still waiting to be placed by hand); kept
    as ``pearl``, the word release 0.1.0 wrote."""
    BUTTON = "button"
    """A button on the board."""
    PAGE = "page"
    """The web page."""
    LIFT = "lift"
    """The last piece lifted off the board (a take-back)."""


@dataclass(frozen=True, slots=True)
class Stored:
    """What every event is: a kind and fields, which are its JSON data (the one schema).

    A subclass declares each field with its type (the annotations above); ``kind`` tags
    its rows in the store and in the game's union."""

    kind: ClassVar[str]
    __pydantic_config__: ClassVar[Mapping[str, object]] = {"extra": "forbid"}
    """Read back by the schema: a field the event does not have is refused."""

    def data(self) -> dict[str, Any]:
        """The JSON data (what :func:`~controller.referee.fold.from_stored` reads back)."""
        return {
            f.name: value.value if isinstance(value := getattr(self, f.name), enum.Enum) else value
            for f in dataclasses.fields(self)
        }


# -- what a field may hold -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Limits:
    """A stored whole number from ``low`` to ``high``, or a text of ``low`` to ``high``
    characters: of exactly that JSON type (no ``"3"``, ``3.0`` or ``true`` for a number)."""

    low: int
    high: int

    def __get_pydantic_core_schema__(
        self, source: type[Any], handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        schema: Any = {**handler(source), "strict": True}
        if source is int:
            return {**schema, "ge": self.low, "le": self.high}
        return {**schema, "min_length": self.low, "max_length": self.high}


@dataclass(frozen=True, slots=True)
class Notation:
    """A place in a game's notation: text (1 to 200 characters) that ``parse`` reads (a
    :class:`~controller.rules.notation.NotationError` says what is wrong), kept as the
    parsed value's text."""

    parse: Callable[[str], object]

    def read(self, text: str) -> str:
        try:
            return str(self.parse(text))
        except NotationError as exc:
            # pydantic_core here only: the schema is built on the first event read back.
            from pydantic_core import PydanticCustomError

            raise PydanticCustomError("notation", "{problem}", {"problem": str(exc)}) from None

    def __get_pydantic_core_schema__(
        self, source: type[Any], handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        # pydantic_core here only: this module is loaded by `pyramid --help`.
        from pydantic_core import core_schema

        text = Limits(1, 200).__get_pydantic_core_schema__(source, handler)
        return core_schema.no_info_after_validator_function(self.read, text)


def notation(parse: Callable[[str], object]) -> Notation:
    """A field's place in a game's notation: ``cell: Annotated[str, notation(parse_cell)]``."""
    return Notation(parse)


PlayerNumber: TypeAlias = Annotated[int, Limits(0, 3)]
"""A player's number (0 to 3), as the game numbers its players."""
Text: TypeAlias = Annotated[str, Limits(1, 200)]
"""Text of 1 to 200 characters."""


@dataclass(frozen=True, slots=True)
class TakeBack(Stored):
    """The last move (a base pearl with its bonus pearls, a landing …) taken back; ``what``
    is the cell or the event text."""

    by: By
    what: Text
    kind: ClassVar[str] = "undo"


@dataclass(frozen=True, slots=True)
class Aborted(Stored):
    """The game was stopped without a result (a new game, or Abort)."""

    reason: Text
    kind: ClassVar[str] = "abort"


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

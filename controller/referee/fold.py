"""The fold: a game's stored events read back and replayed onto a new game.

Resuming after a restart, the history's records and ``pyramid replay --store`` all go
through :func:`fold`; :func:`from_stored` reads one stored row (kind, JSON data) back as
the event of the game's kind: a tagged union of the game's events, the kind its tag and
each field checked as its event declares it (:mod:`controller.referee.events`).

>>> from controller.referee.events import By
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
>>> try:
...     from_stored(game, "bonus", {"pos": "6:a1", "colour": 9, "by": "pearl"})
... except EventError as exc:
...     print(str(exc).replace("; ", ";\\n"))
a 'bonus' event's pos is not a place ('6:a1': there are layers 1 to 5 only);
a 'bonus' event's colour must be at most 3, not 9
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Union, cast

from controller.referee.events import COMMON, Aborted, Event, EventError, Stored, TakeBack
from controller.referee.kept import EventRow, KeptGame
from controller.referee.protocol import GameError
from controller.rules.records import OptionError, Record

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from controller.referee.protocol import Game, GameKind


def kinds_of(game: GameKind) -> Mapping[str, type[Stored]]:
    """Every event ``game`` keeps, by kind: its own, then the common ones."""
    return {**game.events, **COMMON}


# -- JSON in -------------------------------------------------------------------------------


def from_stored(game: GameKind, kind: str, data: Mapping[str, Any]) -> Event:
    """The event of ``game`` a stored row (kind, JSON data) holds, read through the game's
    tagged union of its events (:func:`schema`); :class:`EventError` naming the kind and
    every field that does not fit."""
    if not isinstance(data, Mapping):
        cls = kinds_of(game).get(kind)
        needs = f"needs {', '.join(_fields(cls))} " if cls is not None else ""
        raise EventError(f"a {kind!r} event {needs}(it has {type(data).__name__})")
    # pydantic here only: this module is loaded by `pyramid --help`.
    from pydantic import ValidationError

    try:
        return cast(Event, schema(tuple(kinds_of(game).values())).validate_python((kind, data)))
    except ValidationError as exc:
        raise EventError(_said(game, kind, data, exc.errors())) from None


@functools.cache
def schema(events: tuple[type[Stored], ...]) -> TypeAdapter[Any]:
    """The tagged union of ``events`` (a game's, :func:`kinds_of`): a stored ``(kind, data)``
    pair to the event of that kind, its fields checked as each event declares them."""
    # pydantic here only: this module is loaded by `pyramid --help`.
    from pydantic import BeforeValidator, Discriminator, Tag, TypeAdapter

    def data(row: tuple[str, Mapping[str, Any]]) -> Mapping[str, Any]:
        return row[1]

    tagged = tuple(Annotated[cls, BeforeValidator(data), Tag(cls.kind)] for cls in events)
    union: Any = Annotated[Union[tagged], Discriminator(lambda row: row[0])]  # noqa: UP007
    return TypeAdapter(union)


def _said(game: GameKind, kind: str, data: Mapping[str, Any], errors: list[Any]) -> str:
    """pydantic's ``errors`` for one stored event in the project's words, all of them."""
    problems: list[str] = []
    for error in errors:
        kind_of, ctx, value = error["type"], error.get("ctx") or {}, error.get("input")
        if kind_of == "union_tag_invalid":
            return f"{kind!r} is not an event kind (known: {', '.join(kinds_of(game))})"
        if kind_of in ("missing", "unexpected_keyword_argument"):
            fields = ", ".join(_fields(kinds_of(game)[kind]))
            said = f"a {kind!r} event needs {fields} (it has {', '.join(sorted(data))})"
        else:
            problem = _PROBLEMS.get(kind_of, "{msg}").format(**ctx, msg=error["msg"], value=value)
            said = f"a {kind!r} event's {error['loc'][1]} {problem}"
        if said not in problems:
            problems.append(said)
    return "; ".join(problems)


_PROBLEMS = {
    "int_type": "must be a whole number, not {value!r}",
    "greater_than_equal": "must be at least {ge}, not {value!r}",
    "less_than_equal": "must be at most {le}, not {value!r}",
    "string_type": "must be text, not {value!r}",
    "string_too_short": "must be text (not empty)",
    "string_too_long": "must be text of at most {max_length} characters",
    "enum": "must be one of {expected}, not {value!r}",
    "notation": "is not a place ({problem})",
}
"""pydantic's error types, as a stored event's field is refused (the one translation)."""


def _fields(cls: type[Stored]) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


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

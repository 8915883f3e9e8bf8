"""The fold: a game's stored events read back and replayed onto a new game.

Resuming after a restart, the history's records and ``pyramid replay --store`` all go
through :func:`fold`; :func:`from_stored` reads one stored row (kind, JSON data) back as
the event of the game's kind (:mod:`controller.referee.events`, by the readers each event
declares).

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
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from controller.referee.events import COMMON, Aborted, Event, EventError, Stored, TakeBack
from controller.referee.kept import EventRow, KeptGame
from controller.referee.protocol import GameError
from controller.rules.notation import NotationError
from controller.rules.records import OptionError, Record

if TYPE_CHECKING:
    from controller.referee.protocol import Game, GameKind


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

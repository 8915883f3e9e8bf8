"""What the referee reads of a kept game, as the store gives it back.

The referee never opens the store: the Table reads a game from it and hands it over
(:func:`controller.referee.resume.resume`), and the history and the replay read their
records the same way. These protocols say which parts of the store's values
(:class:`controller.store.values.StoredGame` and its rows) the referee reads, so the pure
referee does not import the store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class Seated(Protocol):
    """A player as the game, the snapshot and the store know it."""

    @property
    def name(self) -> str: ...
    @property
    def seat(self) -> int: ...
    @property
    def computer(self) -> str | None: ...


class PlayerRow(Seated, Protocol):
    """A player as kept (:class:`controller.store.values.PlayerRecord`)."""

    @property
    def number(self) -> int: ...
    @property
    def colour(self) -> str: ...
    @property
    def hex(self) -> str: ...


class EventRow(Protocol):
    """One kept event: its kind and its JSON data."""

    @property
    def kind(self) -> str: ...
    @property
    def data(self) -> Mapping[str, Any]: ...


class Status(Protocol):
    @property
    def status(self) -> str: ...


class KeptGame(Protocol):
    """A whole kept game (:class:`controller.store.values.StoredGame`)."""

    @property
    def id(self) -> int: ...
    @property
    def game(self) -> str: ...
    @property
    def players(self) -> Sequence[PlayerRow]: ...
    @property
    def options(self) -> Mapping[str, Any]: ...
    @property
    def children_help(self) -> bool: ...
    @property
    def events(self) -> Sequence[EventRow]: ...
    @property
    def summary(self) -> Status: ...

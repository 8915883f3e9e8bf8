"""Game records: versioned JSON that replays a whole game, of any game the caller knows.

A record is a JSON object with a ``game`` key; each game reads its own (its package's
``record.py``: ``read_record``), and :func:`parse_record` dispatches on ``game`` to the
readers it is given (:func:`controller.games.registry.parse_record` gives it every game
the product has). What every record offers is :class:`Record`: its positions one by one
(:meth:`Record.steps`, the one walk through a game record that ``pyramid replay``, the web
replay and the history share), its JSON and the summary ``pyramid replay --json`` prints.

>>> from controller.games.perlen.record import read_record
>>> record = parse_record('{"game": "perlen-pyramide", "moves": ["c3", "d4"]}',
...                       {"perlen-pyramide": read_record})
>>> record.moves, record.summary()["to_move"]
(('c3', 'd4'), 2)
>>> parse_record('{"game": "chess"}', {"perlen-pyramide": read_record})
Traceback (most recent call last):
...
controller.rules.records.RecordError: 'game' must be 'perlen-pyramide', not 'chess'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

RECORD_VERSION = 1
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


class OptionError(ValueError):
    """A game's options that are not understood (or a game that cannot be set up with
    them); ``key`` names the bad option, or the setting (``seats``) that is wrong.

    Every game's option error is one of these, so that code above the games catches one
    type."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"option {key!r}: {problem}")
        self.key = key


S = TypeVar("S")
E = TypeVar("E")


@dataclass(frozen=True, slots=True)
class RecordStep(Generic[S, E]):
    """One position of a replayed record."""

    number: int
    """0 for the empty board, then 1, 2, … for each move or event."""
    label: str
    """The move (``c4``) or event (``land t2``) that led here, as the record writes it;
    empty for step 0."""
    mover: int | None
    """The player (colour or seat) that made it."""
    earned: tuple[E, ...]
    """What the move earned at once (Perlen-Pyramide's bonus pearls), in placing order."""
    before: S
    state: S
    last_move: str | None = None
    """The place the move was made on, for the picture to mark."""


class Record(Protocol):
    """What every game's record offers."""

    @property
    def game(self) -> str:
        """The game's name (``perlen-pyramide``)."""

    @property
    def players(self) -> tuple[str, ...]:
        """Names by player number, when known."""

    def steps(self) -> Iterator[RecordStep[Any, Any]]:
        """Every position, from the empty board; :class:`ReplayError` names the first move
        that cannot be played."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON object (what :func:`parse_record` reads back)."""

    def summary(self) -> dict[str, Any]:
        """The one JSON object ``pyramid replay --json`` prints."""


RecordReader = Callable[[Mapping[str, Any]], Record]
"""A game's reader: the record from its decoded JSON object, or :class:`RecordError`."""


def strings(raw: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """``raw[key]``, a list of at most :data:`MAX_RECORD_ITEMS` strings (none: empty)."""
    items = raw.get(key, [])
    if not isinstance(items, list):
        raise RecordError(f"{key!r} must be a list of strings")
    if len(items) > MAX_RECORD_ITEMS:
        raise RecordError(f"{key!r} has {len(items)} items; a game has far fewer")
    for i, item in enumerate(items, start=1):
        if not isinstance(item, str):
            raise RecordError(f"{key!r} item {i} must be a string, not {item!r}")
    return tuple(items)


def only(raw: Mapping[str, Any], allowed: set[str]) -> None:
    """:class:`RecordError` naming the first key of ``raw`` not in ``allowed``."""
    extra = sorted(set(raw) - allowed)
    if extra:
        raise RecordError(f"unknown key {extra[0]!r} (allowed: {', '.join(sorted(allowed))})")


def parse_record(
    source: str | bytes | Mapping[str, Any], readers: Mapping[str, RecordReader]
) -> Record:
    """Read a record from JSON text or an already decoded object, strict about keys, with
    the reader of its ``game``."""
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
    reader = readers.get(game) if isinstance(game, str) else None
    if reader is None:
        names = " or ".join(repr(name) for name in readers)
        raise RecordError(f"'game' must be {names}, not {game!r}")
    return reader(raw)

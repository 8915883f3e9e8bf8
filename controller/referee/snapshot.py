"""Everything a page shows, at one moment: the typed :class:`Snapshot` and the values in it.

The live page (every Server-Sent-Events update and ``GET /api/state``), the replay of a
past game and the pictures of the rules page are all :class:`Snapshot` values;
:mod:`controller.referee.showing` makes them from a game's position and from the referee's
state. ``to_json`` is the one JSON form. These are values only: this module imports
nothing of the referee that imports it back (the seam, :mod:`controller.referee.protocol`,
names :class:`Snapshot` as what a game fills).

>>> snap = Snapshot(version=1)
>>> snap.status.value, snap.commands, snap.to_json()["players"]
('idle', (), [])
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

from controller.referee.commands import Action
from controller.referee.messages import Message


class Status(enum.StrEnum):
    """Where the game on the table stands, for the page (and, while pieces wait to be
    placed by hand, the game's own word: :attr:`~controller.referee.protocol.GameKind.
    waiting_status`)."""

    IDLE = "idle"
    PLAYING = "playing"
    MISMATCH = "mismatch"
    OVER = "over"


STATUSES: Final = tuple(s.value for s in Status)


@dataclass(frozen=True, slots=True)
class PlayerView:
    """A player as the page shows them (:func:`controller.referee.showing.player_view`)."""

    number: int
    """The player's number in the game (a colour in turn order, or the seat): what
    ``to_move``, the game's parts and ``winners`` refer to."""
    seat: int
    name: str
    """As the players gave it; empty for an unnamed seat (see ``default_name``)."""
    colour: str
    """``#rrggbb``."""
    colour_name: str
    letter: str
    pattern: str
    """The id of the SVG pattern drawn over the colour."""
    computer: str | None
    default_name: Message | None = None
    """What an unnamed seat is called (``Computer (strong)``, ``Player 2``), rendered in
    the reader's language; None for a named player."""
    remote: bool = False
    """The player plays on the other board of a linked game."""


@dataclass(frozen=True, slots=True)
class MismatchView:
    cell: str
    kind: str
    """``extra`` (a piece the game does not have) or ``missing``."""
    colour: int | None


@dataclass(frozen=True, slots=True)
class LinkView:
    adapter: str
    state: str
    """``connected``, ``searching`` or ``lost``."""
    since: float
    detail: str
    counters: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class LedTestView:
    led: str | None
    colour: str


@dataclass(frozen=True, slots=True)
class Cue:
    sound: str
    """``turn``, ``bonus``, ``wrong`` or ``winner``."""
    count: int
    """Counts cues since the start: a page plays each new one once."""


@dataclass(frozen=True)
class Snapshot:
    """Everything the page shows, at one moment; never changes once made."""

    version: int = 0
    """Counts up by one with every snapshot the Table publishes (0: not the Table's)."""
    game: str | None = None
    game_id: int | None = None
    status: str = Status.IDLE
    players: tuple[PlayerView, ...] = ()
    to_move: int | None = None
    parts: object = None
    """The game's own parts (its package's view: Perlen-Pyramide's pearls, bonus pearls
    and scores; Pyramidos' targets): a frozen dataclass whose fields the JSON holds beside
    these (``docs/api.md``), None without a game."""
    points: tuple[int, ...] = ()
    """What counts so far, by player number (the game's outcome)."""
    mismatches: tuple[MismatchView, ...] = ()
    over: bool = False
    winners: tuple[int, ...] = ()
    legal: tuple[str, ...] = ()
    hint: str | None = None
    computer_move: str | None = None
    thinking: bool = False
    note: tuple[Message, ...] = ()
    """What just happened."""
    prompt: tuple[Message, ...] = ()
    """What to do now."""
    fault: bool = False
    """The note is a warning (the store cannot write, the computer failed)."""
    sensors: tuple[str, ...] = ()
    link: LinkView | None = None
    toggles: Mapping[str, int] = field(default_factory=dict)
    moves: int = 0
    options: Mapping[str, str | int] = field(default_factory=dict)
    children_help: bool = False
    commands: tuple[str, ...] = ()
    """The game buttons that work now, by the name the API uses (the game's own, then
    :class:`~controller.referee.commands.Action`)."""
    last_move: str | None = None
    """Where the last move was made (a base cell, a target)."""
    led_test: LedTestView | None = None
    cue: Cue | None = None
    remote: Mapping[str, Any] | None = None
    """A game linked with another board: the link's state (the Table adds it; see
    ``docs/api.md``), None otherwise."""
    unreadable: tuple[str, ...] = ()
    """Cells and targets the board cannot read now (too much light), by name: each keeps
    its last state (the Table adds it, as it reads the board; see ``docs/api.md``)."""
    sensor_seq: int = 0
    """``seq`` of the last sensor frame the referee handled."""
    at: float = 0.0
    """``time.time()`` when published."""

    @property
    def can_undo(self) -> bool:
        return Action.UNDO in self.commands

    def to_json(self) -> dict[str, Any]:
        """JSON-ready (``docs/api.md`` lists the keys): every field but ``parts``, and the
        fields of ``parts`` beside them."""
        out = {f.name: _json(getattr(self, f.name)) for f in dataclasses.fields(self)}
        parts = out.pop("parts")
        return out | (parts or {})

    @cached_property
    def json(self) -> str:
        """:meth:`to_json` as JSON text, made once (every page's event stream sends it)."""
        return json.dumps(self.to_json(), separators=(",", ":"), ensure_ascii=False)


def _json(value: Any) -> Any:
    if isinstance(value, Message):
        return value.to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_json(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    return value


__all__ = [
    "STATUSES",
    "Cue",
    "LedTestView",
    "LinkView",
    "MismatchView",
    "PlayerView",
    "Snapshot",
    "Status",
]

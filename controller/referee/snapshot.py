"""Everything a page shows, at one moment: the typed :class:`Snapshot` and its one producer.

The live page (every Server-Sent-Events update and ``GET /api/state``), the replay of a
past game and the pictures of the rules page are all :class:`Snapshot` values made by
:func:`position`; the referee's own, with what only it knows (mismatches, prompts, the
commands available now), by :func:`of`. ``to_json`` is the one JSON form.

>>> from controller.referee.state import RefereeState
>>> snap = of(RefereeState(), version=1, at=0.0)
>>> snap.status.value, snap.commands, snap.to_json()["players"]
('idle', (), [])
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

from controller.referee import computer, guard, kinds, words
from controller.referee.commands import Action
from controller.referee.games import Options
from controller.referee.messages import Message
from controller.referee.session import Player, default_name
from controller.referee.state import RefereeState
from controller.rules import perlen, pyramidos


class Status(enum.StrEnum):
    """Where the game on the table stands, for the page."""

    IDLE = "idle"
    PLAYING = "playing"
    BONUS = "bonus"
    """Bonus pearls wait to be placed."""
    MISMATCH = "mismatch"
    OVER = "over"


STATUSES: Final = tuple(s.value for s in Status)


@dataclass(frozen=True, slots=True)
class PlayerView:
    number: int
    """Colour number (Perlen-Pyramide) or seat (Pyramidos): what ``to_move``, pearls,
    targets and winners refer to."""
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

    @classmethod
    def of(cls, player: Player, players: Sequence[Player]) -> PlayerView:
        c = player.colour
        default = default_name(player, players)
        return cls(
            player.number,
            player.seat,
            "" if default is not None else player.name,
            c.hex,
            c.name,
            c.letter,
            c.pattern_id,
            player.computer,
            default,
            player.remote,
        )


@dataclass(frozen=True, slots=True)
class PearlView:
    pos: str
    """``1:c3``, ``2:b2`` …"""
    colour: int


@dataclass(frozen=True, slots=True)
class BonusView:
    pos: str
    colour: int
    reason: str
    """The rule that gave it its colour (``majority``, ``two-two``, ``four-of-a-kind``,
    ``passed-on``)."""
    footprint: tuple[str, ...]

    @classmethod
    def of(cls, bonus: perlen.Bonus) -> BonusView:
        return cls(str(bonus.position), bonus.colour, bonus.reason.value, bonus.position.footprint)


@dataclass(frozen=True, slots=True)
class MismatchView:
    cell: str
    kind: str
    """``extra`` (a piece the game does not have) or ``missing``."""
    colour: int | None


@dataclass(frozen=True, slots=True)
class Scores:
    """Perlen-Pyramide: ``visible``, ``totals``, ``scores``; Pyramidos: ``points``."""

    visible: tuple[int, ...] = ()
    totals: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    """What counts: visible pearls, or every pearl with ``score = all``."""
    points: tuple[int, ...] = ()


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
    status: Status = Status.IDLE
    players: tuple[PlayerView, ...] = ()
    to_move: int | None = None
    pearls: tuple[PearlView, ...] = ()
    """Every pearl that should be on the board (waiting bonus pearls are in ``pending``)."""
    pending: tuple[BonusView, ...] = ()
    shown_bonus: int = 0
    """Which of ``pending`` the LEDs show now."""
    removals: tuple[BonusView, ...] = ()
    """Bonus pearls of a move taken back that are still to come off, top first."""
    mismatches: tuple[MismatchView, ...] = ()
    scores: Scores = field(default_factory=Scores)
    pools_left: tuple[int | None, ...] | None = None
    targets: Mapping[str, int | None] = field(default_factory=dict)
    top_open: bool = False
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
    commands: tuple[Action, ...] = ()
    """The game buttons that work now (:class:`~controller.referee.commands.Action`)."""
    last_move: str | None = None
    """The last base cell played (Perlen-Pyramide) or target landed on (Pyramidos)."""
    led_test: LedTestView | None = None
    cue: Cue | None = None
    remote: Mapping[str, Any] | None = None
    """A game linked with another board: the link's state (the Table adds it; see
    ``docs/api.md``), None otherwise."""
    sensor_seq: int = 0
    """``seq`` of the last sensor frame the referee handled."""
    at: float = 0.0
    """``time.time()`` when published."""

    @property
    def can_undo(self) -> bool:
        return Action.UNDO in self.commands

    def to_json(self) -> dict[str, Any]:
        """JSON-ready (``docs/api.md`` lists the keys)."""
        return {f.name: _json(getattr(self, f.name)) for f in dataclasses.fields(self)}

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


# -- a position of a game, as anyone draws it --------------------------------------------------


def position(
    players: Sequence[PlayerView],
    state: perlen.PerlenState | pyramidos.PyramidosState,
    options: Options,
    *,
    pending: Sequence[BonusView] = (),
    last_move: str | None = None,
) -> Snapshot:
    """The snapshot of a game position, for the replay and the rules pictures (and, with
    what the referee adds, for the live page). ``pending`` bonus pearls are listed apart
    from the pearls."""
    return kinds.KINDS[options.game].position(players, state, options, pending, last_move)


def of(state: RefereeState, *, version: int, at: float) -> Snapshot:
    """The referee's snapshot: the position and everything the referee adds."""
    reading = state.reading
    link = reading.link
    link_view = None
    if link is not None:
        link_view = LinkView(
            link.adapter, link.link.value, link.since, link.detail, dict(link.counters)
        )
    test = state.animations.led_test
    cue = state.animations.cue
    idle = Snapshot(
        version=version,
        sensors=tuple(sorted(reading.names)),
        link=link_view,
        toggles=dict(reading.toggles),
        led_test=None if test is None else LedTestView(test.led, _hex(test.colour)),
        sensor_seq=reading.seq,
        at=at,
        note=state.note.messages,
        fault=state.note.fault or state.fault is not None,
        cue=None if cue is None else Cue(cue.value, state.animations.cues),
    )
    session = state.session
    if session is None:
        return idle
    game = session.game
    check = state.comparison
    now = status(state)
    players = tuple(PlayerView.of(p, session.players) for p in session.players)
    snap = position(
        players,
        game.state,
        session.options,
        pending=tuple(BonusView.of(b) for b in game.pending),
        last_move=game.last_move,
    )
    snap = dataclasses.replace(
        snap,
        version=idle.version,
        sensors=idle.sensors,
        link=idle.link,
        toggles=idle.toggles,
        led_test=idle.led_test,
        sensor_seq=idle.sensor_seq,
        at=idle.at,
        note=idle.note,
        fault=idle.fault,
        cue=idle.cue,
        game_id=session.game_id,
        status=now,
        mismatches=tuple(MismatchView(m.cell, m.kind.value, m.colour) for m in check.mismatches),
        hint=computer.hint(state),
        computer_move=computer.chosen(state),
        thinking=computer.thinking(state),
        prompt=words.prompt(state),
        moves=game.moves,
        children_help=session.children_help,
        commands=guard.offered(state),
        winners=snap.winners if game.over else (),
    )
    return kinds.kind_of(game).shown(state, session, snap)


def _hex(colour: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


def status(state: RefereeState) -> Status:
    session = state.session
    if session is None:
        return Status.IDLE
    game = session.game
    if game.over:
        return Status.OVER
    if state.comparison.mismatches:
        return Status.MISMATCH
    if game.pending:
        return Status.BONUS
    return Status.PLAYING


__all__ = [
    "STATUSES",
    "BonusView",
    "Cue",
    "LedTestView",
    "LinkView",
    "MismatchView",
    "PearlView",
    "PlayerView",
    "Scores",
    "Snapshot",
    "Status",
    "of",
    "position",
    "status",
]

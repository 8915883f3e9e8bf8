"""Everything a page shows, at one moment: the typed :class:`Snapshot` and its one producer.

The live page (every Server-Sent-Events update and ``GET /api/state``), the replay of a
past game and the pictures of the rules page are all :class:`Snapshot` values made by
:func:`position`; the referee's own, with what only it knows (mismatches, prompts, the
commands available now), by :func:`of`. ``to_json`` is the one JSON form.

>>> from controller.referee.state import Referee
>>> snap = of(Referee(), version=1, at=0.0)
>>> snap.status, snap.commands, snap.to_json()["players"]
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

from controller.referee import bonuses, computer, words
from controller.referee.commands import Action
from controller.referee.games import Options, PerlenGame, PyramidosGame
from controller.referee.messages import Message
from controller.referee.session import Player, default_name
from controller.referee.state import HoldAction, Referee
from controller.rules import perlen, pyramidos
from controller.rules.records import PERLEN, PYRAMIDOS

STATUSES: Final = ("idle", "playing", "bonus", "mismatch", "over")


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
    status: str = "idle"
    """``idle``, ``playing``, ``bonus`` (bonus pearls wait), ``mismatch`` or ``over``."""
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
    commands: tuple[str, ...] = ()
    """The game buttons that work now (:class:`~controller.referee.commands.Action`)."""
    last_move: str | None = None
    """The last base cell played (Perlen-Pyramide) or target landed on (Pyramidos)."""
    led_test: LedTestView | None = None
    cue: Cue | None = None
    sensor_seq: int = 0
    """``seq`` of the last sensor frame the referee handled."""
    at: float = 0.0
    """``time.time()`` when published."""

    @property
    def can_undo(self) -> bool:
        return Action.UNDO.value in self.commands

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
    **marks: Any,
) -> Snapshot:
    """The snapshot of a game position, for the replay and the rules pictures (and, with
    the referee's marks, for the live page)."""
    if isinstance(state, perlen.PerlenState):
        out = perlen.outcome(state)
        pending = {b.pos for b in marks.get("pending", ())}
        values: dict[str, Any] = {
            "game": PERLEN,
            "status": "over" if out.over else "playing",
            "to_move": state.to_move,
            "pearls": tuple(
                PearlView(str(p), c) for p, c in state.pearls() if str(p) not in pending
            ),
            "scores": Scores(out.visible, out.totals, out.scores),
            "pools_left": state.pools_left(),
            "over": out.over,
            "winners": out.winners,
        }
    else:
        pout = pyramidos.outcome(state)
        values = {
            "game": PYRAMIDOS,
            "status": "over" if pout.over else "playing",
            "to_move": None if state.over else state.to_move,
            "scores": Scores(points=pout.points),
            "targets": state.targets(),
            "top_open": state.top_open,
            "over": pout.over,
            "winners": pout.winners,
        }
    values.update(players=tuple(players), options=options.to_dict())
    values.update(marks)
    return Snapshot(**values)


def of(state: Referee, *, version: int, at: float) -> Snapshot:
    """The referee's snapshot: the position and everything the referee adds."""
    reading = state.reading
    link = reading.link
    link_view = None
    if link is not None:
        link_view = LinkView(
            link.adapter, link.link.value, link.since, link.detail, dict(link.counters)
        )
    test = state.show.led_test
    common: dict[str, Any] = {
        "version": version,
        "sensors": tuple(sorted(reading.names)),
        "link": link_view,
        "toggles": dict(reading.toggles),
        "led_test": None
        if test is None
        else LedTestView(test.led, "#{:02x}{:02x}{:02x}".format(*test.colour)),
        "sensor_seq": reading.seq,
        "at": at,
        "note": state.note.messages,
        "fault": state.note.fault or state.fault is not None,
        "cue": None if state.show.cue is None else Cue(state.show.cue.value, state.show.cues),
    }
    session = state.session
    if session is None:
        return Snapshot(**common)
    game = session.game
    watch = state.watch
    players = tuple(PlayerView.of(p, session.players) for p in session.players)
    marks: dict[str, Any] = {
        **common,
        "game_id": session.game_id,
        "status": status(state),
        "mismatches": tuple(MismatchView(m.cell, m.kind.value, m.colour) for m in watch.mismatches),
        "hint": computer.hint(state),
        "computer_move": computer.chosen(state),
        "thinking": computer.thinking(state),
        "prompt": words.prompt(state),
        "moves": game.moves,
        "children_help": session.children_help,
        "commands": available(state),
    }
    if isinstance(game, PerlenGame):
        playing = marks["status"] in ("playing", "bonus") and game.state.to_move is not None
        marks.update(
            pending=tuple(BonusView.of(b) for b in game.pending),
            shown_bonus=bonuses.shown(state),
            removals=tuple(BonusView.of(b) for b in watch.removals),
            legal=tuple(sorted(game.legal_cells())) if playing else (),
            last_move=game.last.cell if game.last else None,
        )
    else:
        marks.update(last_move=game.last_landing)
    snap = position(players, game.state, session.options, **marks)
    if not game.over:
        return dataclasses.replace(snap, winners=())
    return snap


def status(state: Referee) -> str:
    session = state.session
    if session is None:
        return "idle"
    game = session.game
    if game.over:
        return "over"
    if state.watch.mismatches:
        return "mismatch"
    if isinstance(game, PerlenGame) and game.pending:
        return "bonus"
    return "playing"


def available(state: Referee) -> tuple[str, ...]:
    """The game buttons that make sense now: the page shows exactly these, and the
    referee takes exactly these (others are refused with a reason)."""
    session = state.session
    if session is None:
        return ()
    game = session.game
    out: list[Action] = []
    watch = state.watch
    if isinstance(game, PerlenGame):
        if game.pending or watch.removals:
            out.append(Action.CONFIRM)
        mover = game.state.to_move
        person = mover is not None and session.players[mover].computer is None
        if not game.over and person and not watch.mismatches and state.rules.levels:
            out.append(Action.HINT)
    elif isinstance(game, PyramidosGame) and not game.over:
        knock = watch.hold is not None and watch.hold.action is HoldAction.KNOCK_OFF
        if knock or not watch.mismatches:
            out.append(Action.END_TURN)
    if game.steps and not game.over:
        out.append(Action.UNDO)
    if game.over:
        out.append(Action.PLAY_AGAIN)
    else:
        out.append(Action.ABORT)
    return tuple(a.value for a in out)


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
    "available",
    "of",
    "position",
    "status",
]

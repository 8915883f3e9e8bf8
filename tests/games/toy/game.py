"""Three in a row for the referee: its rules, record, events, board and words in one module
(a real game spreads them over several, as ``controller/games/perlen`` does; this one is
small enough not to).

>>> state = replayed(("a1", "b1", "a2", "b2", "a3"))
>>> state.winner, state.to_move
(0, None)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Annotated, Any, ClassVar, Final

from controller.guidance import GuidanceOptions, Light, Mismatch, Picture, mismatch_picture, seat
from controller.referee.game import (
    N_,
    Event,
    Game,
    GameError,
    GameKind,
    Message,
    Move,
    Options,
    Outcome,
    Scene,
    Snapshot,
    Status,
    Stored,
    notation,
    register,
)
from controller.referee.game import PlayerNumber as seat_number
from controller.rules.notation import parse_cell
from controller.rules.records import (
    RECORD_VERSION,
    OptionError,
    RecordError,
    RecordStep,
    ReplayError,
    only,
    strings,
)
from controller.vocabulary import Led, LedMode

NAME: Final = "three-in-a-row"
CELLS: Final = ("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3")
LINES: Final = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6),
)  # fmt: skip

register(
    {
        "row_two": N_("Three in a row is for two players."),
    },
    {"game": {NAME: "Three in a row"}, "thing": {"pearl": "pearl", "pearls": "pearls"}},
)


# -- the rules -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RowOptions:
    game: ClassVar[str] = NAME
    first_seat: int = 0

    def to_dict(self) -> dict[str, str | int]:
        return {"first_seat": self.first_seat}

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> RowOptions:
        if not isinstance(raw, Mapping):
            raise OptionError("options", "must be an object")
        for key in raw:
            if key != "first_seat":
                raise OptionError(str(key)[:30], "unknown option")
        first = raw.get("first_seat", 0)
        if first not in (0, 1) or isinstance(first, bool):
            raise OptionError("first_seat", "must be 0 or 1")
        return cls(first)


@dataclass(frozen=True, slots=True)
class RowState:
    options: RowOptions = field(default_factory=RowOptions)
    owners: tuple[int | None, ...] = (None,) * 9

    @property
    def winner(self) -> int | None:
        for line in LINES:
            first = self.owners[line[0]]
            if first is not None and all(self.owners[i] == first for i in line):
                return first
        return None

    @property
    def over(self) -> bool:
        return self.winner is not None or None not in self.owners

    @property
    def to_move(self) -> int | None:
        if self.over:
            return None
        placed = 9 - self.owners.count(None)
        return (self.options.first_seat + placed) % 2

    def play(self, cell: str) -> RowState:
        if cell not in CELLS:
            raise GameError(f"{cell} is not on a1–c3")
        index = CELLS.index(cell)
        if self.over or self.owners[index] is not None:
            raise GameError(f"{cell} cannot be played now")
        owners = list(self.owners)
        owners[index] = self.to_move
        return dataclasses.replace(self, owners=tuple(owners))


# -- its record, events and game value --------------------------------------------------------


@dataclass(frozen=True)
class RowRecord:
    moves: tuple[str, ...]
    options: RowOptions = field(default_factory=RowOptions)
    players: tuple[str, ...] = ()

    @property
    def game(self) -> str:
        return NAME

    def steps(self) -> Iterator[RecordStep[RowState, object]]:
        state = RowState(self.options)
        yield RecordStep(0, "", None, (), state, state)
        for number, cell in enumerate(self.moves, start=1):
            before = state
            try:
                state = state.play(cell)
            except GameError as exc:
                raise ReplayError("move", number, cell, str(exc)) from None
            yield RecordStep(number, cell, before.to_move, (), before, state, cell)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"game": NAME, "version": RECORD_VERSION, "moves": list(self.moves),
                               "options": self.options.to_dict()}  # fmt: skip
        if self.players:
            out["players"] = list(self.players)
        return out

    def summary(self) -> dict[str, Any]:
        *_, last = self.steps()
        return {"game": NAME, "winner": last.state.winner, "over": last.state.over}


def read_record(raw: Mapping[str, Any]) -> RowRecord:
    only(raw, {"game", "version", "moves", "options", "players"})
    try:
        options = RowOptions.from_dict(raw.get("options", {}))
    except OptionError as exc:
        raise RecordError(str(exc)) from None
    return RowRecord(strings(raw, "moves"), options, strings(raw, "players"))


def replayed(moves: Sequence[str]) -> RowState:
    *_, last = RowRecord(tuple(moves)).steps()
    return last.state


CELL: Final = notation(lambda text: parse_cell(text).short)
"""A cell of the row, kept as its short name."""


@dataclass(frozen=True, slots=True)
class Marked(Stored):
    """``seat`` put a piece on ``cell``."""

    cell: Annotated[str, CELL]
    seat: seat_number
    kind: ClassVar[str] = "mark"


@dataclass(frozen=True, slots=True)
class RowGame:
    state: RowState
    moves_made: tuple[tuple[str, int], ...] = ()
    pending: ClassVar[tuple[object, ...]] = ()
    pieces: ClassVar[frozenset[str]] = frozenset(CELLS)

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def moves(self) -> int:
        return len(self.moves_made)

    @property
    def to_move(self) -> int | None:
        return self.state.to_move

    @property
    def expected(self) -> frozenset[str]:
        return frozenset(c for c, o in zip(CELLS, self.state.owners, strict=True) if o is not None)

    @property
    def owners(self) -> dict[str, int]:
        return {c: o for c, o in zip(CELLS, self.state.owners, strict=True) if o is not None}

    @property
    def last_move(self) -> str | None:
        return self.moves_made[-1][0] if self.moves_made else None

    @property
    def last_by(self) -> int | None:
        return self.moves_made[-1][1] if self.moves_made else None

    @property
    def standing(self) -> tuple[str, ...]:
        return tuple(cell for cell, _ in self.moves_made)

    def play(self, cell: str) -> RowGame:
        mover = self.state.to_move
        assert mover is not None
        return RowGame(self.state.play(cell), (*self.moves_made, (cell, mover)))

    def undo(self) -> RowGame:
        if not self.moves_made:
            raise GameError("there is nothing to take back")
        state = RowState(self.state.options)
        for cell, _ in self.moves_made[:-1]:
            state = state.play(cell)
        return RowGame(state, self.moves_made[:-1])

    def outcome(self) -> Outcome:
        winner = self.state.winner
        points = tuple(1 if winner == s else 0 for s in (0, 1))
        winners = (winner,) if winner is not None else ((0, 1) if self.state.over else ())
        return Outcome(points, winners, "points", {"points": list(points)})

    def record(self, players: tuple[str, ...]) -> RowRecord:
        return RowRecord(self.standing, self.state.options, players)


@dataclass(frozen=True, slots=True)
class RowParts:
    """What only a snapshot of this game has: whose piece is on each cell."""

    cells: Mapping[str, int | None] = field(default_factory=dict)


def _game(game: Game) -> RowGame:
    assert isinstance(game, RowGame)
    return game


class ThreeInARow(GameKind):
    """The third game's :class:`~controller.referee.game.GameKind`: what a game must
    write, and its own words for its two seats (no computer, help or remote seats: the
    seam's defaults refuse them)."""

    name = NAME
    seats = range(2, 3)
    piece = "pearl"
    events: Mapping[str, type[Stored]] = MappingProxyType({Marked.kind: Marked})

    def seats_wrong(self, seats: int) -> Message | None:
        return None if seats == 2 else Message.of("row_two")

    def read_options(self, seats: int, raw: Mapping[str, Any]) -> Options:
        return RowOptions.from_dict(raw)

    def new_game(self, options: Options) -> Game:
        assert isinstance(options, RowOptions)
        return RowGame(RowState(options))

    def apply(self, game: Game, event: Event) -> Game:
        played = _game(game)
        if isinstance(event, Marked):
            if event.seat != played.to_move:
                raise GameError(f"a piece of seat {event.seat}, expected {played.to_move}")
            return played.play(event.cell)
        raise GameError(f"{event.kind!r} is not a three-in-a-row event")

    def placed(self, game: Game, place: str, scene: Scene) -> Move:
        mover = _game(game).to_move
        assert mover is not None  # the referee reads no move into a finished game
        return Move((Marked(place, mover),), (Message.of("played", player=scene.name(mover),
                                                          cell=place),))  # fmt: skip

    def position(
        self, state: object, options: Options, pending: Sequence[object], last_move: str | None
    ) -> Snapshot:
        assert isinstance(state, RowState)
        game = RowGame(state)
        out = game.outcome()
        return Snapshot(
            game=NAME,
            status=Status.OVER if state.over else Status.PLAYING,
            to_move=state.to_move,
            parts=RowParts(dict(zip(CELLS, state.owners, strict=True))),
            points=out.points,
            over=state.over,
            winners=out.winners if state.over else (),
            options=options.to_dict(),
            last_move=last_move,
        )

    def picture(
        self, game: Game, players: Sequence[Light], wrong: tuple[Mismatch, ...],
        options: GuidanceOptions,
    ) -> Picture:  # fmt: skip
        lit: Picture = {c: Led(players[o].rgb, LedMode.STEADY) for c, o in game.owners.items()}
        seat(lit, players, game.to_move, False)
        lit.update(mismatch_picture(wrong, players))
        return lit

    def drawn(self, state: object, *, colour: bool = False) -> str:
        assert isinstance(state, RowState)
        marks = ["·" if o is None else "XO"[o] for o in state.owners]
        return "\n".join(" ".join(marks[r * 3 : r * 3 + 3]) for r in (2, 1, 0)) + "\n"

    def read_record(self, raw: Mapping[str, Any]) -> RowRecord:
        return read_record(raw)


THREE_IN_A_ROW = ThreeInARow()

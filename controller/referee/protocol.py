"""What a game is, for the referee: the seam every game package fills.

The referee is written once; it runs any game handed to it (as boardgame.io's core runs
the ``Game`` object it is given). A game is a :class:`GameKind` (setup, reading the board,
its own commands and events, its words and pictures) and the values it keeps: a
:class:`Game` (the position plus what the table adds: pieces still to place by hand, the
moves that can be taken back) and its :class:`Options`. Each game's package
(:mod:`controller.games`) provides them; the referee's own modules never import one, and
the games the product has are listed once, in :mod:`controller.games.registry`, which
the composition root hands to the referee (:attr:`~controller.referee.state.RefereeConfig.
games`).

A game's kind subclasses :class:`GameKind` and writes only the members without a body
here (as boardgame.io's ``ProcessGameConfig`` fills what a ``Game`` leaves out, and as
:class:`web_ui.games.view.GameView` does for the page): its name, seats, piece and
events, its options, a new game, how an event applies, what a new piece on a place makes,
its snapshot, LEDs and text, its record. Everything else has a default: no options or
buttons of its own, each seat playing for itself, no computer player, no children's help,
no seats on another board (each refused in the referee's words), no holds, Undo stored by
the last move's place.

A game answers pure questions over its own values (its :class:`Game`, :class:`Options`
and positions) and, where it needs the table, a :class:`Scene` the referee makes for the
question; it answers with values and intents defined here (:class:`Move`, :class:`Held`,
:class:`Undone`, :class:`Acted`, :class:`TookOff`, :class:`AskHint`), never with the
referee's state. The referee owns the flow around them (:mod:`controller.referee.placing`,
:mod:`controller.referee.acting`, :mod:`controller.referee.arrivals`): armed checks,
holds, storing, what is said.

Everything here is a protocol or a small value. At run time it imports of the referee only
values below it (the events, :mod:`controller.referee.events`, the words,
:mod:`controller.referee.messages`, and the players, :mod:`controller.referee.players`);
as types it names the commands and the snapshot's values, which import nothing of it, so
it is in no import circle. A game package imports it, with the rest of what it may name of
the referee, through :mod:`controller.referee.game`. The computer player it names is a
port below the referee (:class:`controller.computer_port.ComputerPlayer`), so the seam
names nothing above it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from controller.referee.events import Event, Stored, TakeBack
from controller.referee.messages import Items, Message, Param, Term
from controller.referee.players import Player, called

if TYPE_CHECKING:
    from controller.computer_port import ComputerPlayer
    from controller.guidance import GuidanceOptions, Light, Mismatch, Picture
    from controller.palette import PaletteColour
    from controller.referee.commands import Command
    from controller.referee.snapshot import Snapshot
    from controller.rules.records import Record


class GameError(ValueError):
    """A change the game cannot take (the message says why, for the log and tests)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """A game's scores as the store and the page keep them."""

    points: tuple[int, ...]
    """What counts, by player number."""
    winners: tuple[int, ...]
    unit: str
    """What the points count (a ``unit`` term: ``visible`` pearls, all ``pearls``,
    ``points``)."""
    details: Mapping[str, object]
    """The game's own figures (visible pearls and totals, or points)."""


@dataclass(frozen=True, slots=True)
class Differences:
    """Where the board differs from the game on its places (the referee's comparison)."""

    extra: frozenset[str]
    """Places that hold a piece the game does not."""
    missing: frozenset[str]
    """Places that lack a piece the game has there."""


@dataclass(frozen=True, slots=True)
class Move:
    """What a new piece on a place (or an event from the other board) makes: the events
    to store, applied in order (Perlen-Pyramide's waiting bonus pearls acknowledged, then
    the base pearl), and what to say (``Anna played c3.``)."""

    events: tuple[Stored, ...]
    said: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class Held:
    """What a board that differs means once it has stayed so for ``settle_s``: the last
    pearl lifted (a take-back), moved to another cell (a shift), balls gone from their
    targets (knock-offs). The referee holds it, says ``waiting`` meanwhile, and then
    stores ``events`` (a :class:`~controller.referee.events.TakeBack` takes the last move
    back) and says ``said``."""

    events: tuple[Event, ...]
    waiting: Message
    said: tuple[Message, ...]

    @property
    def undoes(self) -> bool:
        """It takes the last move back: while it waits, the board did not match just
        before (no new piece is a move); any other hold (pieces falling off) leaves the
        position standing."""
        return any(isinstance(e, TakeBack) for e in self.events)


@dataclass(frozen=True, slots=True)
class Undone:
    """How a game takes its last move or event back (the Undo command, or the other board's
    take-back): the :class:`~controller.referee.events.TakeBack`'s ``what``, what to say,
    and the pieces of that move still on the board to come off first, in order."""

    what: str
    said: Message
    removals: tuple[object, ...] = ()


@dataclass(frozen=True, slots=True)
class Acted:
    """One of a game's own commands carried out: the events to store (none once the game
    is over: the result stands, only the position changes), what to say (the reply is the
    last), and whether the position changed for the computer (``fresh``)."""

    events: tuple[Stored, ...]
    said: tuple[Message, ...]
    fresh: bool = True


@dataclass(frozen=True, slots=True)
class TookOff:
    """A command said the first of the pieces to come off (:attr:`Scene.removals`) is
    off."""

    said: Message


@dataclass(frozen=True, slots=True)
class AskHint:
    """A command asks the computer player for a good place for the person to move."""


Answer = Acted | TookOff | AskHint
"""What one of a game's own commands asks the referee to do."""


@dataclass(frozen=True, slots=True)
class Scene:
    """What a game may know of the table beside its own values, when the referee asks it:
    who plays (their names, seats on another board, computer seats), how the board
    compares with the game, and the table's own bookkeeping a game's words and snapshot
    name. The referee makes one from its state for each question."""

    players: tuple[Player, ...]
    mismatches: tuple[Mismatch, ...] = ()
    fixes: Items = field(default_factory=lambda: Items(()))
    """How to make the board match, in words (empty when it matches)."""
    held: Held | None = None
    """A change waiting for the board to stay so."""
    removals: tuple[object, ...] = ()
    """Pieces of a move taken back still to come off first, in order."""
    pending_shown: int = 0
    """Which of the game's waiting pieces the LEDs show now."""
    hints: bool = False
    """The computer player is there to give hints."""

    def name(self, number: int) -> Param:
        """What the page calls player ``number``: the name, or an unnamed seat's default."""
        return called(self.players[number], self.players)


class Options(Protocol):
    """A game's options as chosen at setup (each game's own frozen dataclass)."""

    game: ClassVar[str]
    """The game they are for."""

    @property
    def first_seat(self) -> int:
        """The seat that starts."""

    def to_dict(self) -> dict[str, str | int]:
        """As records, the store and the page keep them."""


class Game(Protocol):
    """The game on the table as a value: a position and what the table adds to it.

    Frozen: every change gives a new value, so the referee can try a change and keep the
    old game if storing it fails."""

    @property
    def state(self) -> object:
        """The position, as the game's rules keep it (what the snapshot shows and the
        computer player is asked about)."""

    @property
    def over(self) -> bool:
        """The result stands (pieces may still wait to be placed by hand)."""

    @property
    def moves(self) -> int:
        """Moves (or events) that stand."""

    @property
    def to_move(self) -> int | None:
        """The player to move, None once the game is over."""

    @property
    def pending(self) -> tuple[object, ...]:
        """Pieces the players still have to place by hand (Perlen-Pyramide's bonus
        pearls), in placing order; empty for games without them."""

    @property
    def pieces(self) -> frozenset[str]:
        """The sensors its pieces sit on (base cells, targets)."""

    @property
    def expected(self) -> frozenset[str]:
        """Sensors that should be active now."""

    @property
    def owners(self) -> Mapping[str, int]:
        """Whose piece is on each active sensor (by player number)."""

    @property
    def last_move(self) -> str | None:
        """Where the last move was made, for the pictures to mark."""

    @property
    def last_by(self) -> int | None:
        """The player who made the last move that can be taken back, None for none."""

    @property
    def standing(self) -> tuple[str, ...]:
        """The moves or events that stand: the record's."""

    def undo(self) -> Game:
        """The game with the last move or event that stands taken back (the referee's
        :class:`~controller.referee.events.TakeBack`); :class:`GameError` when none does."""

    def outcome(self) -> Outcome: ...

    def record(self, players: tuple[str, ...]) -> Record: ...


def _said(key: str, /, **params: Param) -> Message:
    return Message.of(key, **params)


def _refused(key: str, kind: GameKind) -> Message:
    return _said(key, game=Term("game", kind.name))


class GameKind(Protocol):
    """What one game is, for the referee (members with a body here are defaults)."""

    name: str
    """As records, the store and the page name it (``perlen-pyramide``)."""
    seats: range
    """How many may play."""
    piece: str
    """What its players put on the board, as the referee's words say it (a ``thing``
    term the game registers: ``pearl``, ``ball``)."""
    events: Mapping[str, type[Stored]]
    """Its own stored events by kind (the referee's take-back and abort are every
    game's)."""
    option_names: tuple[str, ...] = ()
    """Its options a person chooses (``first_seat`` apart), as the setup page names
    them."""
    actions: Mapping[str, Callable[[], Command]] = MappingProxyType({})
    """Its own game buttons (by the name the API uses) and the command each gives, in
    the order the page shows them; the referee's own (undo, play again, abort)
    follow them."""
    shared: frozenset[str] = frozenset()
    """The kinds of its events both boards of a linked game keep (with the take-back
    and the abort); every other event stays on the board that made it."""
    waiting_status: str = "playing"
    """The snapshot's ``status`` while pieces wait to be placed by hand (the game's
    ``pending``), in the API's words: Perlen-Pyramide's ``bonus``; a game that names none
    is ``playing`` then."""
    presses: Mapping[str, Command] = MappingProxyType({})
    """The command each of the board's buttons (``button:confirm`` …) gives in this
    game, on its rising edge (``button:undo`` is the referee's); a button not here does
    nothing in it."""

    def stacked(self, sensed: frozenset[str]) -> int:
        """How many of its pieces lie on the board when ``sensed`` are the places the
        sensors report: one each, unless the game stacks pieces that no sensor sees
        (a pyramid's pearls above the base). It counts what to clear between games."""
        return len(sensed)

    # -- setting up ----------------------------------------------------------------------
    def missing_sensors(self, sensors: frozenset[str]) -> Message | None:
        """Why a board with only these ``sensors`` cannot referee it, or None."""
        return None

    def seats_wrong(self, seats: int) -> Message | None:
        """Why ``seats`` players cannot play it, or None."""
        return None if seats in self.seats else _refused("game_seats", self)

    def computer_refused(self) -> Message | None:
        """Why a seat cannot be the computer's, or None."""
        return _refused("game_no_computer", self)

    def children_help_refused(self) -> Message | None:
        """Why it has no help for children, or None."""
        return _refused("game_no_help", self)

    def remote_refused(self) -> Message | None:
        """Why a seat cannot play on another board, or None."""
        return _refused("game_no_remote", self)

    def read_options(self, seats: int, raw: Mapping[str, Any]) -> Options:
        """Its options; a :class:`~controller.rules.records.OptionError` names what is
        wrong."""

    def seated(
        self,
        options: Options,
        names: Sequence[str],
        colours: Sequence[PaletteColour],
        computer: Mapping[int, str],
    ) -> tuple[Player, ...]:
        """The players by player number (colour or seat): each seat for itself."""
        return tuple(Player(seat, seat, names[seat], colours[seat]) for seat in range(len(names)))

    def new_game(self, options: Options) -> Game: ...

    # -- playing ---------------------------------------------------------------------------
    def apply(self, game: Game, event: Event) -> Game:
        """``game`` after one of its own stored events (the take-back and the abort are
        the referee's: :meth:`Game.undo`); :class:`GameError` when it does not fit."""

    def placed(self, game: Game, place: str, scene: Scene) -> Move | Message:
        """What one new piece on ``place`` makes for the player to move, or why it is no
        move (the referee's reading, :mod:`controller.referee.placing`, asks it only for a
        game still played, on a board that matched just before)."""

    together: str | None = None
    """The key of what the referee says of a second new piece put down within
    ``together_s`` of a move (``two_at_once``); None: the game never reads pieces as
    placed together."""
    resumed_move: bool = True
    """After a restart, one piece more than the game, where it would be a move of a
    person to move, is the move made while the power was off (Pyramidos: False, for a
    landing may have been followed by anything)."""

    def several(self, places: frozenset[str]) -> Message | None:
        """Why several new pieces that could each be the move are none (None: the board's
        mismatch says where, and nothing more)."""
        return None

    def held(self, game: Game, board: Differences, scene: Scene) -> Held | None:
        """What a ``board`` that differs means once it stays so for ``settle_s`` (the
        last piece lifted, or moved; pieces gone), or None: a mismatch."""
        return None

    def refusal(self, game: Game, order: Command, scene: Scene) -> Message | None:
        """Why one of its own commands is not taken now, or None."""
        return _said("no_such_action")

    def act(self, game: Game, order: Command, scene: Scene) -> Answer:
        """Carry out one of its own commands (after :meth:`refusal` let it through)."""
        raise GameError(f"{self.name} has no commands of its own")

    def took_back(self, game: Game, scene: Scene) -> Undone:
        """How its last move is taken back: stored by its place, said so."""
        place = game.last_move or ""
        return Undone(place, _said("took_back_move", cell=place))

    def arrived(self, game: Game, event: Event, scene: Scene) -> Move | None:
        """A shared event of its own made on the other board of a linked game: what it
        makes here, or None: it does not fit (the take-back is the referee's). Only a game
        that lets a seat play on another board (:meth:`remote_refused`) is ever linked."""
        raise GameError(f"{self.name} is never played with another board")

    def computer(self, move_budget_s: float | None, hint_budget_s: float) -> ComputerPlayer | None:
        """Its computer player for the Table (seats and hints), thinking at most so long
        (``move_budget_s`` None: each level's own budget); None for a game without one."""
        return None

    def explained(self, cell: str, why: object) -> tuple[Message, ...]:
        """A hint for ``cell`` in words, with the reasons the computer gave (or None)."""
        return (_said("hint", cell=cell),)

    # -- what it says and shows -----------------------------------------------------------
    def urgent(self, game: Game, scene: Scene) -> tuple[Message, ...] | None:
        """What to do now, when this game has something more pressing than the board's
        mismatches (pieces to take off first), else None."""
        return None

    def owed(self, game: Game, scene: Scene) -> tuple[Message, ...] | None:
        """What to do now when the board matches and pieces wait to be placed, else None."""
        return None

    def shown(self, game: Game, scene: Scene, snap: Snapshot) -> Snapshot:
        """The snapshot with what only this game shows (legal cells, bonus pearls …)."""
        return snap

    def position(
        self, state: object, options: Options, pending: Sequence[object], last_move: str | None
    ) -> Snapshot:
        """The snapshot of one of its positions (the game's parts, its score, whose turn),
        for the live page, the replay and the rules pictures."""

    def picture(
        self, game: Game, players: Sequence[Light], wrong: tuple[Mismatch, ...],
        options: GuidanceOptions,
    ) -> Picture:  # fmt: skip
        """The LED picture of ``game`` on the table, ``wrong`` where the board differs,
        ``options`` what the referee adds (:mod:`controller.guidance` has the pieces every
        game's picture is made of)."""

    def told(self, before: object, label: str, name: Callable[[int], Param]) -> Message | None:
        """A replayed step in words, as the live page said it (``Oma's ball landed on the
        top.``), or None when the picture says it all."""
        return None

    def drawn(self, state: object, *, colour: bool = False) -> str:
        """One of its positions as text for a terminal (``pyramid replay``)."""

    def read_record(self, raw: Mapping[str, Any]) -> Record:
        """Its game record from decoded JSON
        (:func:`controller.rules.records.parse_record`)."""

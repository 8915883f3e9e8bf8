"""The referee's whole state as one frozen value, and what a change of it asks for.

:class:`RefereeState` holds the game on the table (:class:`~controller.referee.session.
Session`), the latest board reading, the comparison of the two (:class:`BoardCheck`), what
was just said (:class:`Announcement`), what the computer was asked (:class:`ComputerAsks`)
and the LED animations (:class:`Animations`). Every function of the referee takes one and
returns the next inside a :class:`Step`, with the events to store first and the effects to
carry out.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from controller.guidance import Mismatch
from controller.palette import PALETTE, PaletteColour, check_distinct
from controller.referee.events import Event, Result
from controller.referee.messages import Message
from controller.referee.protocol import Differences, GameKind, Held
from controller.referee.session import CheckedSetup, Session
from controller.vocabulary import BUTTONS, CELLS, TARGETS, BoardStatus, Colour, Sound

NEVER: Final = float("-inf")
RETRY_S: Final = 2.0
"""How often a move the store could not write is tried again."""


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    """How the referee behaves; the defaults are what ``pyramid run`` uses."""

    games: Mapping[str, GameKind] = field(default_factory=dict)
    """The games it runs, by name (``pyramid run`` gives it
    :data:`controller.games.registry.GAMES`)."""
    seat_colours: tuple[PaletteColour, ...] = PALETTE[:4]
    """The colour of each physical seat unless a new game chooses others."""
    settle_s: float = 0.5
    """How long a lifted last pearl (or an emptied Pyramidos target) must stay so before it
    counts as taken back (knocked off): a bump lifts readings only for a moment."""
    together_s: float = 0.25
    """A second new pearl or ball this soon after a move is "placed together" with it: a
    mismatch, not the next player's move."""
    pending_step_s: float = 1.5
    """Several pieces waiting to be placed by hand (a game's ``pending``, Perlen-Pyramide's
    bonus pearls): the LEDs show each one's place this long, in turn."""
    sweep_step_s: float = 0.12
    sweep_s: float = 30.0
    """How long the winner's sweep runs before a calm picture (and no more CPU)."""
    led_walk_step_s: float = 0.3
    led_test_s: float = 300.0
    """An LED test stops by itself after this long."""
    sensors: frozenset[str] = frozenset((*CELLS, *TARGETS, *BUTTONS))
    """The board's sensors by name (a game needs its own: its kind says which)."""
    leds: tuple[str, ...] = ()
    """The board's LEDs by name, in LED order (the LED test walks them)."""
    levels: tuple[str, ...] = ()
    """The computer's levels, weakest first; empty when the computer player is missing."""

    def __post_init__(self) -> None:
        for name in ("settle_s", "together_s", "sweep_s", "led_test_s"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        for name in ("pending_step_s", "sweep_step_s", "led_walk_step_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        if len(self.seat_colours) < 4:
            raise ValueError("seat_colours needs a colour for each of the four seats")
        check_distinct(self.seat_colours)


@dataclass(frozen=True, slots=True)
class Reading:
    """What the board's sensors say, by name (cells, targets, buttons)."""

    names: frozenset[str] = frozenset()
    seq: int = -1
    """The ``seq`` of the last sensor frame handled (-1: none yet)."""
    link: BoardStatus | None = None
    toggles: Mapping[str, int] = field(default_factory=dict)
    """How often each sensor has changed (by name): chatter shows here."""


@dataclass(frozen=True, slots=True)
class Settling:
    """A change the game reads into the board (:class:`~controller.referee.protocol.Held`:
    a take-back, a shift, knock-offs) that waits for the board to stay as it is for
    ``settle_s``."""

    held: Held
    board: Differences
    """The board's differences from the game the change is for (another reading starts
    the wait again)."""
    deadline: float


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why the board as it reads is not a move."""

    why: Message
    covers: frozenset[str] = frozenset()
    """Places whose fix the reason already says (they are not listed again)."""


@dataclass(frozen=True, slots=True)
class BoardCheck:
    """The board compared with the game."""

    armed: bool = False
    """The board matched the game just before: a single new pearl can be a move."""
    mismatches: tuple[Mismatch, ...] = ()
    refusal: Refusal | None = None
    settling: Settling | None = None
    last_move_at: float = NEVER
    removals: tuple[object, ...] = ()
    """Pieces of a move taken back that are still on the board and come off first, in
    order (Perlen-Pyramide's bonus pearls, top first)."""
    resumed: bool = False
    """The game came back after a restart and the board has not been read since: one
    pearl more than the game, on a legal cell of a person to move, is the move placed
    while the power was off (:mod:`controller.referee.resume`)."""
    wrong: frozenset[str] = frozenset()
    """Pieces refused since the board last matched, with nothing missing since (a pearl on
    an illegal cell, not on a computer seat's cell): the only ones marked wrong while one
    right piece lies beside them, which stays the move once they are lifted (wrong, then
    right)."""


@dataclass(frozen=True, slots=True)
class Announcement:
    """What just happened, said until something else happens on the board."""

    messages: tuple[Message, ...] = ()
    fault: bool = False
    """A problem to show as a warning (the store cannot write, the computer failed)."""


@dataclass(frozen=True, slots=True)
class Ask:
    """A question put to the computer: the answer counts only for ``token``."""

    token: tuple[int, int]
    """(game id, position number) when it was asked."""
    cell: str | None = None
    """The answer, once it came."""
    failed: bool = False


@dataclass(frozen=True, slots=True)
class ComputerAsks:
    """The computer's bookkeeping: which position answers are for."""

    position: int = 0
    """Counts the positions the table has been in; an answer for an older one is stale."""
    computer: Ask | None = None
    """The computer seat to move was asked for its cell."""
    hint: Ask | None = None


@dataclass(frozen=True, slots=True)
class LedTestRun:
    led: str | None
    """One LED by name, or None: every LED in turn."""
    colour: Colour
    step: int
    next_step: float | None
    until: float


@dataclass(frozen=True, slots=True)
class Animations:
    """LED animations, each stepped by a timer."""

    pending_index: int = 0
    """Which waiting piece's place the LEDs show (several take turns)."""
    pending_next: float | None = None
    sweep_frame: int | None = None
    """The winner's sweep: its frame, or None for the calm picture after it."""
    sweep_next: float | None = None
    sweep_until: float = NEVER
    led_test: LedTestRun | None = None
    cue: Sound | None = None
    """The last sound cue given, and how many were given (the page plays each once)."""
    cues: int = 0


@dataclass(frozen=True, slots=True)
class RefereeState:
    """Everything the referee knows, at one moment."""

    config: RefereeConfig = field(default_factory=RefereeConfig)
    session: Session | None = None
    reading: Reading = field(default_factory=Reading)
    comparison: BoardCheck = field(default_factory=BoardCheck)
    note: Announcement = field(default_factory=Announcement)
    asks: ComputerAsks = field(default_factory=ComputerAsks)
    animations: Animations = field(default_factory=Animations)
    fault: str | None = None
    """Why the store cannot write (``full``, ``read-only``, ``other``), or None. While it
    cannot, nothing is played; the referee tries again every :data:`RETRY_S`."""
    retry_at: float | None = None


# -- what a change asks for ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Commit:
    """Store ``events`` (and finish the game with ``result``) before anything is shown."""

    game_id: int
    events: tuple[Event, ...]
    result: Result | None = None


class Purpose(enum.StrEnum):
    """What the computer is asked for."""

    MOVE = "move"
    """The cell of the computer seat to move."""
    HINT = "hint"
    """A good cell for the person to move."""


@dataclass(frozen=True, slots=True)
class AskComputer:
    """Ask the computer player (off the referee's thread) and answer with ``token``."""

    purpose: Purpose
    token: tuple[int, int]
    game: str
    """The game it is asked about (each game with a computer has its own player)."""
    position: object
    """The position, as the game's computer player reads it
    (:meth:`~controller.referee.protocol.GameKind.ask`)."""
    level: str
    seed: int


@dataclass(frozen=True, slots=True)
class CancelSearches:
    """The position changed: searches for older positions may stop early."""


@dataclass(frozen=True, slots=True)
class PlaySound:
    sound: Sound


Effect = AskComputer | CancelSearches | PlaySound


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to a command: done or refused, and what to tell the person."""

    ok: bool
    message: Message | None = None
    field: str | None = None
    """What a refused new game got wrong (:class:`~controller.referee.messages.Refused`)."""
    also: tuple[tuple[str | None, Message], ...] = ()
    """Its other mistakes, (field, why), in the order of the form."""


@dataclass(frozen=True, slots=True)
class Step:
    """One change: the next state, what to store first, what to do after, the reply."""

    state: RefereeState
    commit: Commit | None = None
    effects: tuple[Effect, ...] = ()
    reply: Reply | None = None
    create: CheckedSetup | None = None
    """A new game to create in the store first; then :func:`~controller.referee.referee.
    begin` with its number."""

"""The commands people give the referee: from the web page and from the board's buttons.

Each is a small frozen value; :func:`controller.referee.referee.command` answers it with a
:class:`~controller.referee.state.Reply`. Whether a command is taken now is decided in one
place, :func:`controller.referee.guard.refusal`: the referee asks it before it acts and the
snapshot asks it for every game button, so a button is shown exactly when its command
would be taken.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from controller.referee.events import By
from controller.vocabulary import Colour


@dataclass(frozen=True, slots=True)
class NewGame:
    """Start a game (an unfinished one is aborted and kept in the history).

    ``players`` are names by physical seat (0, 1, 2 …): three for Perlen-Pyramide, two to
    four for Pyramidos. ``options`` as the rules name them (``first_seat`` says which seat
    starts). ``computer`` maps a seat to a computer level (Perlen-Pyramide only); a
    computer seat's name may be empty. ``colours`` are palette names by seat (default:
    the configured seat colours). ``remote`` lists the seats that play on another board.
    """

    game: str
    players: tuple[str, ...]
    options: Mapping[str, object] = field(default_factory=dict)
    children_help: bool = False
    computer: Mapping[int, str] = field(default_factory=dict)
    colours: tuple[str, ...] | None = None
    remote: tuple[int, ...] = ()
    """Seats whose players play on another board (Perlen-Pyramide only)."""


@dataclass(frozen=True, slots=True)
class PlayAgain:
    """A new game of the same kind with the same players, colours and computer seats;
    the next seat starts."""


@dataclass(frozen=True, slots=True)
class ConfirmBonus:
    """Every waiting bonus pearl has been placed (or, while a move is being taken back,
    the top bonus pearl has been taken off)."""

    by: By = By.PAGE


@dataclass(frozen=True, slots=True)
class EndTurn:
    """Pyramidos: the turn ended without a landing (earth square or net)."""

    by: By = By.PAGE


@dataclass(frozen=True, slots=True)
class Undo:
    """Take back the last move (Perlen-Pyramide) or event (Pyramidos)."""

    by: By = By.PAGE


@dataclass(frozen=True, slots=True)
class Abort:
    """Stop the game without a result (it stays in the history as aborted)."""


@dataclass(frozen=True, slots=True)
class Hint:
    """Ask the computer player for a good cell for the person to move."""


@dataclass(frozen=True, slots=True)
class LedTest:
    """Light ``led`` in ``colour``; ``led`` None walks every LED in turn; ``colour`` None stops."""

    led: str | None = None
    colour: Colour | None = None


Command = NewGame | PlayAgain | ConfirmBonus | EndTurn | Undo | Abort | Hint | LedTest
COMMANDS = (NewGame, PlayAgain, ConfirmBonus, EndTurn, Undo, Abort, Hint, LedTest)


class Action(enum.StrEnum):
    """The game buttons of the page and the board, by the name the API uses."""

    CONFIRM = "confirm"
    END_TURN = "end_turn"
    UNDO = "undo"
    HINT = "hint"
    ABORT = "abort"
    PLAY_AGAIN = "play_again"


ACTION_COMMANDS: Mapping[Action, Callable[[], Command]] = {
    Action.CONFIRM: ConfirmBonus,
    Action.END_TURN: EndTurn,
    Action.UNDO: Undo,
    Action.HINT: Hint,
    Action.ABORT: Abort,
    Action.PLAY_AGAIN: PlayAgain,
}

"""The commands people give the referee: from the web page and from the board's buttons.

Each is a small frozen value; :func:`controller.referee.referee.command` answers it with a
:class:`~controller.referee.state.Reply`. The commands here are every game's (a new game,
play again, undo, abort, the LED test, and :class:`Act`, a page button by name); a game's
own (Perlen-Pyramide's Confirm and Hint, Pyramidos' End turn) are :class:`GameCommand`
values of its package, offered as buttons by
:attr:`~controller.referee.protocol.GameKind.actions`. Whether a command is taken now is
decided in one place, :func:`controller.referee.guard.refusal`: the referee asks it before
it acts and the snapshot asks it for every game button, so a button is shown exactly
when its command would be taken.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Final

from controller.referee.events import By
from controller.vocabulary import Colour


@dataclass(frozen=True, slots=True)
class NewGame:
    """Start a game (an unfinished one is aborted and kept in the history).

    ``players`` are names by physical seat (0, 1, 2 …), as many as the game seats.
    ``options`` as the game's rules name them (``first_seat`` says which seat starts).
    ``computer`` maps a seat to a computer level (for games with a computer player); a
    computer seat's name may be empty. ``colours`` are palette names by seat (default: the
    configured seat colours). ``remote`` lists the seats that play on another board.
    """

    game: str
    players: tuple[str, ...]
    options: Mapping[str, object] = field(default_factory=dict)
    children_help: bool = False
    computer: Mapping[int, str] = field(default_factory=dict)
    colours: tuple[str, ...] | None = None
    remote: tuple[int, ...] = ()
    """Seats whose players play on another board."""


@dataclass(frozen=True, slots=True)
class PlayAgain:
    """A new game of the same kind with the same players, colours and computer seats;
    the next seat starts."""


@dataclass(frozen=True, slots=True)
class Undo:
    """Take back the last move or event."""

    by: By = By.PAGE


@dataclass(frozen=True, slots=True)
class Abort:
    """Stop the game without a result (it stays in the history as aborted)."""


@dataclass(frozen=True, slots=True)
class LedTest:
    """Light ``led`` in ``colour``; ``led`` None walks every LED in turn; ``colour`` None stops."""

    led: str | None = None
    colour: Colour | None = None


@dataclass(frozen=True, slots=True)
class GameCommand:
    """A command only some games have (a game's package defines it): the game's
    :meth:`~controller.referee.protocol.GameKind.refusal` decides whether it is taken and its
    :meth:`~controller.referee.protocol.GameKind.act` carries it out."""

    looks: ClassVar[bool] = True
    """The referee looks at the board after carrying it out (a hint changes nothing on
    the board, so it does not)."""


@dataclass(frozen=True, slots=True)
class Act:
    """A game button of the page, by the name the API uses (``undo``, ``confirm``): the
    referee gives the command the game on the table offers under that name."""

    action: str


Command = NewGame | PlayAgain | Undo | Abort | LedTest | Act | GameCommand


class Action(enum.StrEnum):
    """The game buttons every game has, by the name the API uses (a game's own are named
    by its :attr:`~controller.referee.protocol.GameKind.actions`)."""

    UNDO = "undo"
    PLAY_AGAIN = "play_again"
    ABORT = "abort"


ACTIONS: Final[Mapping[str, Callable[[], Command]]] = {
    Action.UNDO.value: Undo,
    Action.PLAY_AGAIN.value: PlayAgain,
    Action.ABORT.value: Abort,
}
"""The buttons every game has and the command each gives, in the page's order (after the
game's own)."""

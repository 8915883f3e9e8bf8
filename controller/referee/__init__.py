"""The referee: a pure reducer over the game on the table, and this package's face.

Everything the Table needs is imported from here: the state value
(:class:`RefereeState`), the reducer's calls (:func:`sensed`, :func:`linked`,
:func:`command`, :func:`answered`, :func:`timer`, :func:`next_deadline`, :func:`begin`,
:func:`closed`, :func:`failed`, :func:`stored`, :func:`arrived` for a seat on another
board), what a step asks for (:class:`Step`, :class:`Commit`, the effects), the commands
every game has, the snapshot, the LED picture, :func:`resume`, and the seam a game fills
(:class:`GameKind`). It runs the games it is given (:attr:`RefereeConfig.games`) and
names none. Importing it loads no database, no hardware, no thread and no clock
(``tests/test_purity.py``): time is passed in, and the Table carries out what a step asks.

>>> from controller.games.registry import GAMES
>>> state = RefereeState(config=RefereeConfig(games=GAMES, leds=("seat:0",)))
>>> step = command(state, NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo")), now=0.0)
>>> step.create.kind.name, snapshot_of(state, version=0, at=0.0).status.value
('perlen-pyramide', 'idle')
"""

from __future__ import annotations

from controller.referee.arrivals import shared, shared_kinds
from controller.referee.commands import (
    ACTIONS,
    Abort,
    Act,
    Action,
    Command,
    GameCommand,
    LedTest,
    NewGame,
    PlayAgain,
    Undo,
)
from controller.referee.events import (
    Aborted,
    Event,
    EventError,
    Result,
    TakeBack,
)
from controller.referee.fold import from_stored, record_of
from controller.referee.guard import refusal
from controller.referee.kept import KeptGame
from controller.referee.lights import picture
from controller.referee.messages import Message, english
from controller.referee.players import Player
from controller.referee.protocol import Game, GameError, GameKind, Options, Outcome
from controller.referee.referee import (
    answered,
    arrived,
    begin,
    closed,
    command,
    failed,
    linked,
    next_deadline,
    sensed,
    stored,
    timer,
)
from controller.referee.resume import resume
from controller.referee.session import CheckedSetup
from controller.referee.showing import of as snapshot_of
from controller.referee.snapshot import Snapshot
from controller.referee.state import (
    Announcement,
    AskComputer,
    CancelSearches,
    Commit,
    Effect,
    PlaySound,
    Purpose,
    RefereeConfig,
    RefereeState,
    Reply,
    Step,
)

__all__ = [
    "ACTIONS",
    "Abort",
    "Aborted",
    "Act",
    "Action",
    "Announcement",
    "AskComputer",
    "CancelSearches",
    "CheckedSetup",
    "Command",
    "Commit",
    "Effect",
    "Event",
    "EventError",
    "Game",
    "GameCommand",
    "GameError",
    "GameKind",
    "KeptGame",
    "LedTest",
    "Message",
    "NewGame",
    "Options",
    "Outcome",
    "PlayAgain",
    "PlaySound",
    "Player",
    "Purpose",
    "RefereeConfig",
    "RefereeState",
    "Reply",
    "Result",
    "Snapshot",
    "Step",
    "TakeBack",
    "Undo",
    "answered",
    "arrived",
    "begin",
    "closed",
    "command",
    "english",
    "failed",
    "from_stored",
    "linked",
    "next_deadline",
    "picture",
    "record_of",
    "refusal",
    "resume",
    "sensed",
    "shared",
    "shared_kinds",
    "snapshot_of",
    "stored",
    "timer",
]

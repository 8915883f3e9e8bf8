"""The referee: a pure reducer over the game on the table, and this package's face.

Everything the Table needs is imported from here: the state value
(:class:`RefereeState`), the reducer's calls (:func:`sensed`, :func:`linked`,
:func:`command`, :func:`answered`, :func:`timer`, :func:`next_deadline`, :func:`begin`,
:func:`closed`, :func:`failed`, :func:`stored`, :func:`arrived` for a seat on another
board), what a step asks for (:class:`Step`,
:class:`Commit`, the effects), the commands, the snapshot, the LED picture,
:func:`resume`, and the games it knows (:data:`KINDS`, each a :class:`GameKind`).
Importing it loads no database, no hardware, no thread and no clock
(``tests/test_purity.py``): time is passed in, and the Table carries out what a step asks.

>>> state = RefereeState(config=RefereeConfig(leds=("seat:0",)))
>>> step = command(state, NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo")), now=0.0)
>>> step.create.kind, snapshot_of(state, version=0, at=0.0).status
('perlen-pyramide', 'idle')
"""

from __future__ import annotations

from controller.referee.commands import (
    ACTION_COMMANDS,
    COMMANDS,
    Abort,
    Action,
    Command,
    ConfirmBonus,
    EndTurn,
    Hint,
    LedTest,
    NewGame,
    PlayAgain,
    Undo,
)
from controller.referee.computer import Why
from controller.referee.events import Aborted, Event, Result
from controller.referee.guard import refusal
from controller.referee.kept import KeptGame
from controller.referee.kinds import KINDS, GameKind, kind_of
from controller.referee.lights import picture
from controller.referee.messages import Message, english
from controller.referee.referee import (
    SHARED,
    answered,
    arrived,
    begin,
    closed,
    command,
    failed,
    linked,
    next_deadline,
    sensed,
    shared,
    stored,
    timer,
)
from controller.referee.resume import resume
from controller.referee.session import CheckedSetup, Player
from controller.referee.snapshot import Snapshot
from controller.referee.snapshot import of as snapshot_of
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
    "ACTION_COMMANDS",
    "COMMANDS",
    "KINDS",
    "SHARED",
    "Abort",
    "Aborted",
    "Action",
    "Announcement",
    "AskComputer",
    "CancelSearches",
    "CheckedSetup",
    "Command",
    "Commit",
    "ConfirmBonus",
    "Effect",
    "EndTurn",
    "Event",
    "GameKind",
    "Hint",
    "KeptGame",
    "LedTest",
    "Message",
    "NewGame",
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
    "Undo",
    "Why",
    "answered",
    "arrived",
    "begin",
    "closed",
    "command",
    "english",
    "failed",
    "kind_of",
    "linked",
    "next_deadline",
    "picture",
    "refusal",
    "resume",
    "sensed",
    "shared",
    "snapshot_of",
    "stored",
    "timer",
]

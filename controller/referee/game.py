"""The seam a game package imports: everything of the referee a game may name, and no more.

A game package (:mod:`controller.games`, the toy third game in ``tests/games/toy``) imports
from the referee this module alone (besides the rules core, :mod:`controller.guidance` and
:mod:`controller.vocabulary`); ``tests/test_layers.py`` holds it to that. What it lists is
the game's side of the seam, the protocols and values in :mod:`controller.referee.protocol`
(:class:`GameKind` and what it answers with), and the referee's values and helpers a game
still names while its kind answers over the referee's state: the state and session it is
handed, the step it returns, the event and command bases it extends, the snapshot it fills,
the words it speaks in, and the few bookkeeping helpers (:func:`advance`, :func:`mismatch`,
…) its board reading calls. The referee's own modules import what they need from where it
is defined, never this module, so the list here ties nothing into a circle; a name leaves it
once no game needs it.
"""

from __future__ import annotations

from controller.referee.commands import Command, GameCommand
from controller.referee.computer import ask_hint
from controller.referee.computer import chosen as computer_chosen
from controller.referee.computer import failed as computer_failed
from controller.referee.events import By, Event, Reader, Stored, TakeBack, made_by, notation, number
from controller.referee.messages import (
    N_,
    NP_,
    Amount,
    Items,
    Message,
    Param,
    Term,
    colour_term,
    english,
    place,
    places,
    register,
)
from controller.referee.players import Player, unnamed
from controller.referee.progress import advance, matched, mismatch, sweep
from controller.referee.progress import shown as bonus_shown
from controller.referee.protocol import Differences, Game, GameError, GameKind, Options, Outcome
from controller.referee.session import Session
from controller.referee.snapshot import Snapshot, Status
from controller.referee.state import (
    NEVER,
    Announcement,
    BoardCheck,
    RefereeConfig,
    RefereeState,
    Refusal,
    Reply,
    Settling,
    Step,
)
from controller.referee.words import fixes

__all__ = [
    "NEVER",
    "NP_",
    "N_",
    "Amount",
    "Announcement",
    "BoardCheck",
    "By",
    "Command",
    "Differences",
    "Event",
    "Game",
    "GameCommand",
    "GameError",
    "GameKind",
    "Items",
    "Message",
    "Options",
    "Outcome",
    "Param",
    "Player",
    "Reader",
    "RefereeConfig",
    "RefereeState",
    "Refusal",
    "Reply",
    "Session",
    "Settling",
    "Snapshot",
    "Status",
    "Step",
    "Stored",
    "TakeBack",
    "Term",
    "advance",
    "ask_hint",
    "bonus_shown",
    "colour_term",
    "computer_chosen",
    "computer_failed",
    "english",
    "fixes",
    "made_by",
    "matched",
    "mismatch",
    "notation",
    "number",
    "place",
    "places",
    "register",
    "sweep",
    "unnamed",
]

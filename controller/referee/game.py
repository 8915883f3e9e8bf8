"""The seam a game package imports: everything of the referee a game may name, and no more.

A game package (:mod:`controller.games`, the toy third game in ``tests/games/toy``) imports
from the referee this module alone (besides the rules core, :mod:`controller.guidance` and
:mod:`controller.vocabulary`); ``tests/test_layers.py`` holds it to that. What it lists is
the game's side of the seam: the protocols and values in :mod:`controller.referee.protocol`
(:class:`GameKind`, the :class:`Scene` it is shown, the intents it answers with: a
:class:`Move`, a :class:`Held` change, an :class:`Undone` move, a command's
:class:`Answer`), the event and command bases it extends, the snapshot it fills and the
words it speaks in. No referee state, session or step: a game answers over its own values,
and the referee turns its answers into its state, the events to store and what is said.
The referee's own modules import what they need from where it is defined, never this
module, so the list here ties nothing into a circle.
"""

from __future__ import annotations

from controller.referee.commands import Command, GameCommand
from controller.referee.events import By, Event, PlayerNumber, Stored, TakeBack, notation
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
from controller.referee.players import Player
from controller.referee.protocol import (
    Acted,
    Answer,
    AskHint,
    Differences,
    Game,
    GameError,
    GameKind,
    Held,
    Move,
    Options,
    Outcome,
    Scene,
    TookOff,
    Undone,
)
from controller.referee.snapshot import Snapshot, Status

__all__ = [
    "NP_",
    "N_",
    "Acted",
    "Amount",
    "Answer",
    "AskHint",
    "By",
    "Command",
    "Differences",
    "Event",
    "Game",
    "GameCommand",
    "GameError",
    "GameKind",
    "Held",
    "Items",
    "Message",
    "Move",
    "Options",
    "Outcome",
    "Param",
    "Player",
    "PlayerNumber",
    "Scene",
    "Snapshot",
    "Status",
    "Stored",
    "TakeBack",
    "Term",
    "TookOff",
    "Undone",
    "colour_term",
    "english",
    "notation",
    "place",
    "places",
    "register",
]

"""The computer player for Perlen-Pyramide: a seat at any level, hints, and reviews.

>>> from controller.games.perlen.bot import LEVELS, choose_move
>>> from controller.games.perlen.rules import new_game, play
>>> LEVELS
('gentle', 'easy', 'medium', 'strong', 'strongest')
>>> state, _ = play(new_game(), "c3")
>>> choose_move(state, "gentle", seed=1).short in {"b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4"}
True

The Table calls :func:`choose_move` and :func:`advise` from a worker
thread: they only read the immutable state, keep no state between calls (but the
measured machine speed) and return within their budget. See
:mod:`controller.games.perlen.bot.player` for the levels, the value each colour plays for, and what
exactly is deterministic, and :mod:`controller.games.perlen.bot.advice` for what a hint and a review
say.
"""

from __future__ import annotations

from controller.games.perlen.bot.advice import Advice, Facts, MoveReview, advise, facts, review
from controller.games.perlen.bot.player import (
    LEVEL_SETTINGS,
    LEVELS,
    Decision,
    Level,
    Speed,
    choose_move,
    decide,
    machine_speed,
    measure_speed,
)

__all__ = [
    "LEVELS",
    "LEVEL_SETTINGS",
    "Advice",
    "Decision",
    "Facts",
    "Level",
    "MoveReview",
    "Speed",
    "advise",
    "choose_move",
    "decide",
    "facts",
    "machine_speed",
    "measure_speed",
    "review",
]

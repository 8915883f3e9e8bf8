"""What the referee says in Pyramidos: its messages (keys with English source texts,
:mod:`controller.referee.messages` renders them) and the sentences it builds from them.

Importing this module registers them (:func:`~controller.referee.messages.register`).

>>> from controller.referee.messages import english
>>> english(knocked_off({"t1": 0}, ["t1"], lambda seat: "Oma"))
"Oma's ball on the front left corner was knocked off."
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from controller.games.pyramidos import rules as pyramidos
from controller.referee.game import N_, NP_, Items, Message, Param, place, register
from controller.vocabulary import TARGETS

register(
    {
        "landed": N_("%(player)s's ball landed on %(target)s."),
        "knocked_off": NP_("%(balls)s was knocked off.", "%(balls)s were knocked off."),
        "turn_ended": N_("%(player)s ended the turn."),
        "top_opened": N_("The top is open!"),
        "took_back_landing": N_("Took back %(player)s's landing on %(target)s."),
        "took_back_knock_off": N_("Took back the knock-off: the ball belongs on %(target)s."),
        "took_back_end": N_("Took back the end of %(player)s's turn."),
        "knocking_off": NP_(
            "No ball on %(targets)s any more: it counts as knocked off in a moment (put it "
            "back if it only wobbled).",
            "No balls on %(targets)s any more: they count as knocked off in a moment (put "
            "them back if they only wobbled).",
        ),
        "several_balls": N_("Balls on %(targets)s at once: take off all but one."),
        "top_closed": N_("The top opens only when all four base targets hold a ball."),
        "two_balls": N_("Two balls at once: one ball per turn."),
        "pyramidos_seats": NP_(
            "Pyramidos is for 2 to 4 players, not %(num)d.",
            "Pyramidos is for 2 to 4 players, not %(num)d.",
        ),
        "no_target_sensors": N_("This board has no target sensors: it cannot referee Pyramidos."),
        "ball_of": N_("%(player)s's ball on %(target)s"),
        "pyramidos_no_computer": N_(
            "Pyramidos has no computer players: a person nudges every ball."
        ),
        "pyramidos_no_remote": N_("Pyramidos is not played across two boards."),
        "pyramidos_no_help": N_("Pyramidos has no help for children."),
    },
    {
        "game": {pyramidos.NAME: "Pyramidos"},
        "thing": {"ball": N_("ball"), "balls": N_("balls")},
        # The targets as a family sees them: the four corners of the second step (the
        # front is the a1–e1 edge, where seat 1 sits, and the drawing's bottom), the top.
        "place": {
            "t1": N_("the front left corner"),
            "t2": N_("the front right corner"),
            "t3": N_("the back right corner"),
            "t4": N_("the back left corner"),
            "top": N_("the top"),
        },
    },
    capitalised=("knocked_off",),
)


def ordered(targets: Iterable[str]) -> tuple[str, ...]:
    """Targets in their order: t1 … t4, then the top."""
    return tuple(sorted(targets, key=TARGETS.index))


def knocked_off(
    owners: Mapping[str, int | None], gone: Iterable[str], name: Callable[[int], Param]
) -> Message:
    """``Oma's ball on the top was knocked off.`` (``owners``: whose ball each target held)."""
    balls: list[Param] = []
    for target in ordered(frozenset(gone)):
        owner = owners.get(target)
        who = name(owner) if owner is not None else "?"
        balls.append(Message.of("ball_of", player=who, target=place(target)))
    return Message.of("knocked_off", balls=Items(tuple(balls)), num=len(balls))


def said(before: pyramidos.PyramidosState, text: str, name: Callable[[int], Param]) -> Message:
    """One event of a Pyramidos record in words, as the live page said it: ``Oma's ball
    landed on the front left corner.``, ``Oma's ball on the top was knocked off.``,
    ``Jonas ended the turn.``"""
    kind, *rest = text.split()
    if kind == "land":
        return Message.of("landed", player=name(before.to_move), target=place(rest[0]))
    if kind == "leave":
        return knocked_off(before.targets(), rest, name)
    return Message.of("turn_ended", player=name(before.to_move))

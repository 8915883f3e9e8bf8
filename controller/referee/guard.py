"""One guard per command: whether the referee takes a command now, and if not, why.

:func:`refusal` is the only place a command is refused. The referee asks it before it
carries a command out (:func:`controller.referee.referee.command`), and the snapshot asks
it for every game button (:func:`offered`), so a button is shown exactly when its command
would be taken; ``tests/referee/test_one_guard.py`` walks random games to check it.

>>> from controller.referee.commands import Abort
>>> from controller.referee.state import RefereeState
>>> english(refusal(RefereeState(), Abort())), offered(RefereeState())
('There is no game.', ())
"""

from __future__ import annotations

from controller.referee import kinds, setup
from controller.referee.commands import (
    ACTION_COMMANDS,
    Abort,
    Action,
    Command,
    ConfirmBonus,
    LedTest,
    NewGame,
    PlayAgain,
    Undo,
)
from controller.referee.messages import Message, Refused, english
from controller.referee.state import RefereeState

__all__ = ["english", "offered", "refusal", "refused"]

_ORDER = (Action.CONFIRM, Action.HINT, Action.END_TURN, Action.UNDO, Action.PLAY_AGAIN,
          Action.ABORT)  # fmt: skip
"""The game buttons in the order the snapshot lists them."""


def refusal(state: RefereeState, order: Command) -> Message | None:
    """Why the referee will not take ``order`` now, or None: it takes it."""
    why = refused(state, order)
    return None if why is None else why.message


def refused(state: RefereeState, order: Command) -> Refused | None:
    """:func:`refusal` with the field of a new game that is wrong."""
    try:
        _check(state, order)
    except Refused as why:
        return why
    return None


def offered(state: RefereeState) -> tuple[Action, ...]:
    """The game buttons whose commands the referee takes now."""
    return tuple(a for a in _ORDER if refusal(state, ACTION_COMMANDS[a]()) is None)


def _no(key: str) -> Refused:
    return Refused(Message.of(key))


def _check(state: RefereeState, order: Command) -> None:
    if isinstance(order, NewGame):
        setup.check(order, state.config)
        return
    if isinstance(order, LedTest):
        _check_led_test(state, order)
        return
    if isinstance(order, ConfirmBonus) and state.comparison.removals:
        return  # a bonus pearl of a move taken back is off
    session = state.session
    if session is None:
        raise _no("no_game")
    game = session.game
    if isinstance(order, PlayAgain):
        if not game.over:
            raise _no("not_over")
        setup.check(setup.again(session), state.config)
    elif isinstance(order, Undo | Abort):
        if game.over:
            raise _no("game_over_new")
        if isinstance(order, Undo) and not game.steps:
            raise _no("nothing_to_take_back")
        if isinstance(order, Undo) and session.made_there():
            raise _no("remote_undo")
    else:  # the commands only some games have: Confirm, End turn, Hint
        why = kinds.kind_of(game).refusal(state, session, order)
        if why is not None:
            raise Refused(why)


def _check_led_test(state: RefereeState, order: LedTest) -> None:
    colour = order.colour
    if colour is None:
        return
    if (
        not isinstance(colour, tuple)
        or len(colour) != 3
        or not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in colour)
    ):
        raise _no("led_colour")
    if order.led is not None and order.led not in state.config.leds:
        raise Refused(Message.of("no_such_led", led=str(order.led)[:20]))

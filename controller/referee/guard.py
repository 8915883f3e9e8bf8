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

from collections.abc import Callable, Mapping

from controller.referee import prompts, setup
from controller.referee.commands import (
    ACTIONS,
    Abort,
    Act,
    Command,
    GameCommand,
    LedTest,
    NewGame,
    PlayAgain,
    Undo,
)
from controller.referee.messages import Message, Refused, english
from controller.referee.state import RefereeState

__all__ = ["actions", "english", "offered", "refusal", "refused", "resolved"]


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


def actions(state: RefereeState) -> Mapping[str, Callable[[], Command]]:
    """The game buttons of the game on the table (its own, then every game's), by name,
    and the command each gives."""
    session = state.session
    own = session.kind.actions if session is not None else {}
    return {**own, **ACTIONS}


def offered(state: RefereeState) -> tuple[str, ...]:
    """The game buttons whose commands the referee takes now, in the page's order."""
    return tuple(name for name, make in actions(state).items() if refusal(state, make()) is None)


def resolved(state: RefereeState, order: Command) -> Command:
    """The command a page button (:class:`Act`) gives now; any other command itself."""
    if not isinstance(order, Act):
        return order
    make = actions(state).get(order.action)
    if make is None:
        raise Refused(Message.of("no_such_action"))
    return make()


def _no(key: str) -> Refused:
    return Refused(Message.of(key))


def _check(state: RefereeState, order: Command) -> None:
    order = resolved(state, order)
    if isinstance(order, NewGame):
        setup.check(order, state.config)
        return
    if isinstance(order, LedTest):
        _check_led_test(state, order)
        return
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
        if isinstance(order, Undo) and not game.moves:
            raise _no("nothing_to_take_back")
        if isinstance(order, Undo) and session.made_there():
            raise _no("remote_undo")
    else:  # a command only some games have: Confirm, End turn, Hint …
        assert isinstance(order, GameCommand)
        why = session.kind.refusal(game, order, prompts.scene(state))
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

"""The bonus pearls the players still have to place, and their acknowledgement.

A move that completes 2×2 groups owes bonus pearls, in reading order (supports first).
They wait until acknowledged: one Confirm (the board's button or the page) says they are
all placed, and so does the next base pearl (players who go on have placed them). While
several wait, the LEDs show each one's place in turn (``bonus_step_s`` each).

The 25th base pearl ends the game at once: the result is stored with it and the winner
shown; its bonus pearls finish the pyramid, their places shown in turn for as long as a
family takes to place them by hand, until Confirm says the pyramid is finished; then the
winner's colour sweeps the board. Nothing about them is stored: the game is decided.
"""

from __future__ import annotations

import dataclasses

from controller.referee import progress, takeback
from controller.referee.events import BonusPlaced, By
from controller.referee.games import PerlenGame
from controller.referee.messages import Message
from controller.referee.state import Referee, Reply, Step


def confirm(state: Referee, by: By, now: float) -> Step:
    """The Confirm command: the bonus pearls are placed (or one taken off, see
    :func:`controller.referee.takeback.take_off`)."""
    if state.watch.removals:
        return takeback.take_off(state)
    session = state.session
    if session is None:
        return Step(state, reply=Reply(False, Message.of("no_game")))
    game = session.game
    if not isinstance(game, PerlenGame) or not game.pending:
        return Step(state, reply=Reply(False, Message.of("no_bonus")))
    done = Message.of("bonuses_placed", num=len(game.pending))
    if game.over:  # the pyramid is finished: on to the winner's sweep
        finished = state.but(session=session.with_game(game.acknowledge_all()))
        finished = finished.but(show=progress.sweep(state.show, state, now))
        return Step(finished, reply=Reply(True, done))
    events = tuple(BonusPlaced(str(b.position), b.colour, by) for b in game.pending)
    step = progress.advance(
        state, session, game.acknowledge_all(), events, [done], now, fresh=False
    )
    return Step(step.state, step.commit, step.effects, Reply(True, done))


def step_shown(state: Referee, now: float) -> Referee:
    """The timer of the waiting bonus pearls: show the next one's place.

    They take turns for as long as they wait, at the end of a game too: only Confirm (or
    the next move) says they are placed, never the clock.
    """
    show = state.show
    session = state.session
    if session is None or not isinstance(session.game, PerlenGame) or not session.game.pending:
        return state.but(show=dataclasses.replace(show, bonus_next=None))
    index = (show.bonus_index + 1) % len(session.game.pending)
    return state.but(
        show=dataclasses.replace(show, bonus_index=index, bonus_next=now + state.rules.bonus_step_s)
    )


def shown(state: Referee) -> int:
    """Which waiting bonus pearl the LEDs show now."""
    session = state.session
    if session is None or not isinstance(session.game, PerlenGame) or not session.game.pending:
        return 0
    return state.show.bonus_index % len(session.game.pending)

"""The bonus pearls the players still have to place, and their acknowledgement.

A move that completes 2×2 groups owes bonus pearls, in reading order (supports first).
They wait until acknowledged: one Confirm (the board's button or the page) says they are
all placed, and so does the next base pearl (players who go on have placed them). While
several wait, the LEDs show each one's place in turn (``pending_step_s`` each).

The 25th base pearl ends the game at once: the result is stored with it and the winner
shown; its bonus pearls finish the pyramid, their places shown in turn for as long as a
family takes to place them by hand, until Confirm says the pyramid is finished; then the
winner's colour sweeps the board. Nothing about them is stored: the game is decided.
"""

from __future__ import annotations

import dataclasses

from controller.games.perlen import takeback
from controller.games.perlen.events import BonusPlaced
from controller.games.perlen.game import PerlenGame
from controller.referee.game import By, Message, RefereeState, Reply, Session, Step, advance, sweep


def confirm(state: RefereeState, session: Session, game: PerlenGame, by: By, now: float) -> Step:
    """The Confirm command: the bonus pearls are placed (or one taken off, see
    :func:`controller.games.perlen.takeback.take_off`)."""
    if state.comparison.removals:
        return takeback.take_off(state)
    done = Message.of("bonuses_placed", num=len(game.pending))
    if game.over:  # the pyramid is finished: on to the winner's sweep
        finished = dataclasses.replace(state, session=session.with_game(game.acknowledge_all()))
        finished = dataclasses.replace(finished, animations=sweep(state.animations, state, now))
        return Step(finished, reply=Reply(True, done))
    events = tuple(BonusPlaced(str(b.position), b.colour, by) for b in game.pending)
    step = advance(state, session, game.acknowledge_all(), events, [done], now, fresh=False)
    return Step(step.state, step.commit, step.effects, Reply(True, done))

"""The bonus pearls the players still have to place, and their acknowledgement.

A move that completes 2×2 groups owes bonus pearls, in reading order (supports first).
They wait until acknowledged: one Confirm (the board's button or the page) says they are
all placed, and so does the next base pearl (players who go on have placed them). While
several wait, the LEDs show each one's place in turn (``pending_step_s`` each).

The 25th base pearl ends the game at once: the result is stored with it and the winner
shown; its bonus pearls finish the pyramid, their places shown in turn for as long as a
family takes to place them by hand, until Confirm says the pyramid is finished; then the
winner's colour sweeps the board. Nothing about them is stored: the game is decided (the
referee stores nothing once a game is over: :mod:`controller.referee.acting`).
"""

from __future__ import annotations

from controller.games.perlen import takeback
from controller.games.perlen.events import BonusPlaced
from controller.games.perlen.game import PerlenGame
from controller.games.perlen.messages import bonus_at
from controller.referee.game import Acted, By, Message, Scene, TookOff


def confirm(game: PerlenGame, by: By, scene: Scene) -> Acted | TookOff:
    """The Confirm command: the bonus pearls are placed (or, while a move is being taken
    back, the top one is off)."""
    if scene.removals:
        return TookOff(takeback.take_off(scene))
    done = Message.of("bonuses_placed", num=len(game.pending))
    events = tuple(BonusPlaced(str(b.position), b.colour, by) for b in game.pending)
    # An acknowledged bonus pearl changes nothing the computer looks at.
    return Acted(events, (done,), fresh=False)


def owed(game: PerlenGame, scene: Scene) -> tuple[Message, ...] | None:
    """Where the first waiting bonus pearl goes, and how many wait."""
    if not game.pending:
        return None
    first = bonus_at(scene, game.pending[0])
    key = "finish_pyramid" if game.over else "bonus_owed"
    return (Message.of(key, first=first, num=len(game.pending)),)

"""After a restart: the unfinished game comes back from the store and meets the board.

The stored events are folded onto a new game (:func:`controller.referee.fold.fold`);
the board must then match the game before play goes on (it is not armed), so a pearl
knocked off while the power was out is a mismatch, never a move. One exception, read at
the first sensor frame only (``BoardCheck.resumed``): the board holds exactly the game's
pearls plus one more on a legal cell of the person to move. That is the move they made
while the power was off (its answer never came), and it is played; anything else (two
pearls more, one on an illegal cell, one missing, a computer seat to move, whose choice
was lost, or a ball of Pyramidos, where a landing may have been followed by anything)
waits for the board to match. A game that
cannot be read back is set aside (aborted, kept in the history) and the table starts
empty.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from controller.palette import PaletteError
from controller.referee import computer_seat, progress
from controller.referee.events import Aborted, EventError
from controller.referee.fold import fold, from_stored
from controller.referee.kept import KeptGame
from controller.referee.messages import Message
from controller.referee.players import players_from
from controller.referee.protocol import Game
from controller.referee.session import Session
from controller.referee.state import Announcement, BoardCheck, Commit, RefereeState, Step


def resume(
    state: RefereeState, stored: KeptGame | None, now: float, remote: frozenset[int] = frozenset()
) -> Step:
    """The referee with ``stored`` (the store's game on the table: unfinished, or over and
    shown until a new one starts) on the table; ``remote`` numbers the players who play
    on the other board of a linked game (the Table keeps that beside the store's game)."""
    if stored is None:
        return Step(state)
    kind = state.config.games.get(stored.game)
    try:
        if kind is None:
            raise EventError(f"{stored.game!r} is not a game this board plays")
        players = tuple(
            dataclasses.replace(p, remote=p.number in remote) for p in players_from(stored.players)
        )
        if not isinstance(stored.options, Mapping):
            raise EventError("its options are not an object")
        options = kind.read_options(len(players), dict(stored.options))
        events = (from_stored(kind, e.kind, e.data) for e in stored.events)
        game: Game = fold(kind, kind.new_game(options), events)
    except (EventError, PaletteError, ValueError) as exc:  # an OptionError is a ValueError
        if stored.summary.status != "playing":  # a finished game is only not shown
            return Step(state)
        note = Announcement((Message.of("resume_failed", number=stored.id),), fault=True)
        aborted = Commit(stored.id, (Aborted(f"could not be resumed: {exc}"),))
        return Step(dataclasses.replace(state, note=note), aborted)
    session = Session(stored.id, players, options, stored.children_help, game, kind)
    if stored.summary.status == "over":
        # A finished game stays on the page, its winner and scores with it, until a new
        # game starts; its last bonus pearls (never stored) are listed again until Confirm.
        shown = dataclasses.replace(
            state, session=session, note=Announcement((progress.won(session, game),))
        )
        pending = bool(game.pending)
        return Step(
            dataclasses.replace(shown, animations=progress.shows(shown, now, ended=pending))
        )
    note = Announcement((Message.of("resumed", number=stored.id, num=game.moves),))
    back = dataclasses.replace(
        state, session=session, note=note, comparison=BoardCheck(armed=False, resumed=True)
    )
    back = dataclasses.replace(back, animations=progress.shows(back, now))
    back, effects = computer_seat.new_position(back)
    return Step(back, effects=effects)

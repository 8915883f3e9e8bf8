"""Reading the board of Perlen-Pyramide: what a change of its base cells means.

The referee reads the board (:mod:`controller.referee.placing`: armed checks, pearls placed
together, wrong then right, a seat on the other board, the computer's cell, holds) and asks
the game pure questions over its own value:

- a new pearl on a cell (:func:`placed`): the mover's move when the cell is legal. It also
  acknowledges every bonus pearl still waiting: players who go on have placed them;
- the last base pearl lifted (:func:`held`): that move is taken back once it stays off for
  ``settle_s``; put on another legal cell instead (a move that earned no bonus pearl), the
  move is taken back and made there (a shift, :mod:`controller.games.perlen.takeback`);
- a base pearl of a seat on the other board (:func:`arrived`): played here at once, and
  shown as a pearl to place (``Oma played d4 on the other board: place the pearl on d4``).
"""

from __future__ import annotations

from controller.games.perlen import rules as perlen
from controller.games.perlen import takeback
from controller.games.perlen.events import BasePearl, BonusPlaced
from controller.games.perlen.game import PerlenGame
from controller.games.perlen.messages import hidden_notes
from controller.referee.game import (
    By,
    Differences,
    Event,
    Held,
    Message,
    Move,
    Scene,
    TakeBack,
    Term,
)


def _acknowledged(game: PerlenGame) -> tuple[BonusPlaced, ...]:
    """The bonus pearls still waiting, placed: a move goes on from them."""
    return tuple(BonusPlaced(str(b.position), b.colour, By.NEXT_MOVE) for b in game.pending)


def placed(game: PerlenGame, cell: str, scene: Scene) -> Move | Message:
    """The mover's pearl on ``cell``: the waiting bonus pearls acknowledged, then the move;
    or why it is none."""
    mover = game.state.to_move
    if mover is None:
        return Message.of("pyramid_complete")
    if cell not in game.legal_cells():
        try:
            perlen.play(game.state, cell)
        except perlen.IllegalMoveError as exc:
            why = Term("illegal", exc.reason.value)
        else:  # pragma: no cover - legal_moves and play agree (tests/rules)
            why = Term("illegal", "occupied")
        return Message.of("not_legal", cell=cell, why=why)
    new = game.acknowledge_all().move(cell)
    notes = [Message.of("played", player=scene.name(mover), cell=cell), *hidden_notes(new)]
    passing = perlen.passes(game.state, new.state)
    notes += [Message.of("passes", player=scene.name(c)) for c in passing]
    return Move((*_acknowledged(game), BasePearl(cell, mover)), tuple(notes))


def held(game: PerlenGame, board: Differences, scene: Scene) -> Held | None:
    """The last base pearl off its cell: a take-back once it stays off; on another legal
    cell instead, a shift; anything else is no change."""
    last = game.last
    if last is None or board.missing != {last.cell}:
        return None
    name = scene.name(last.colour)
    lifted = TakeBack(By.LIFT, last.cell)
    if not board.extra:
        keep_off = Message.of("keep_off", cell=last.cell, player=name)
        return Held((lifted,), keep_off, (takeback.took_back(game, scene),))
    if len(board.extra) != 1:
        return None
    (cell,) = board.extra
    if not takeback.can_shift(game, cell):
        return None
    new = game.undo().move(cell)
    moving = Message.of("moving", player=name, origin=last.cell, cell=cell)
    moved = Message.of("moved", player=name, origin=last.cell, cell=cell)
    return Held((lifted, BasePearl(cell, last.colour)), moving, (moved, *hidden_notes(new)))


def arrived(game: PerlenGame, event: Event, scene: Scene) -> Move | None:
    """A base pearl of the seat to move, placed on the other board: played here (the bonus
    pearls still waiting here were placed there before it), or None: it does not fit."""
    mover = game.state.to_move
    if not isinstance(event, BasePearl) or event.colour != mover:
        return None
    if event.cell not in game.legal_cells():
        return None
    new = game.acknowledge_all().move(event.cell)
    said = Message.of("remote_played", player=scene.name(mover), cell=event.cell)
    return Move((*_acknowledged(game), event), (said, *hidden_notes(new)))

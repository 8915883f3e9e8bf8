"""Taking a move back: by lifting the last pearl, by moving it, or by Undo.

Undo takes the move back in the store at once; the board must then match again. A move
that earned bonus pearls has them resting on it, so they come off first, in the physical
order, top down: the ones that were placed (acknowledged) are listed, highest first, and
the LEDs blink the place of the first; Confirm says it is off and the next one blinks;
lifting the base pearl ends the list (nothing can rest on a lifted pearl). Bonus pearls
that were still waiting were never placed and just leave the list. The referee keeps the
list (:attr:`~controller.referee.protocol.Scene.removals`) and holds a lifted pearl for
``settle_s`` before it takes the move back (:mod:`controller.referee.placing`).
"""

from __future__ import annotations

from controller.games.perlen import rules as perlen
from controller.games.perlen.game import PerlenGame
from controller.guidance import MismatchKind
from controller.referee.game import Items, Message, Scene, Undone


def removals(scene: Scene) -> tuple[perlen.Bonus, ...]:
    """The bonus pearls of a move taken back still to come off, top first."""
    found = scene.removals
    assert all(isinstance(b, perlen.Bonus) for b in found), "bonus pearls"
    return tuple(b for b in found if isinstance(b, perlen.Bonus))


def top_down(bonuses: tuple[perlen.Bonus, ...]) -> tuple[perlen.Bonus, ...]:
    """The order to take bonus pearls off: the highest first (the reverse of placing)."""
    return tuple(sorted(bonuses, key=lambda b: b.position.index, reverse=True))


def took_back(game: PerlenGame, scene: Scene) -> Message:
    last = game.last
    assert last is not None
    return Message.of("took_back", player=scene.name(last.colour), cell=last.cell)


def undone(game: PerlenGame, scene: Scene) -> Undone:
    """Undo (page, board or the other board): the last move, its placed bonus pearls to
    come off first."""
    last = game.last
    assert last is not None
    return Undone(last.cell, took_back(game, scene), top_down(game.placed_on_last()))


def can_shift(game: PerlenGame, cell: str) -> bool:
    """The last pearl may move to ``cell`` in one go: it earned no bonus pearl and ``cell``
    was legal for it (the referee lets only a person's pearl on this board move)."""
    last = game.last
    if last is None or last.bonuses:
        return False
    return cell in {p.short for p in perlen.legal_moves(last.before)}


def still_on(scene: Scene) -> tuple[Message, ...] | None:
    """While bonus pearls of a move taken back are still on the board: which, top down."""
    listed = removals(scene)
    cell = next((m.cell for m in scene.mismatches if m.kind is MismatchKind.EXTRA), "")
    if not listed or not cell:
        return None
    positions = Items(tuple(b.position.short for b in listed))
    # The order matters only when one rests on another (they lie on two layers).
    layers = {b.position.layer for b in listed}
    key = "remove_bonuses_top_down" if len(layers) > 1 else "remove_bonuses"
    return (Message.of(key, positions=positions, cell=cell, num=len(listed)),)


def take_off(scene: Scene) -> Message:
    """Confirm while bonus pearls of a taken-back move are still to come off: the top one
    is off (the next one's place blinks)."""
    return Message.of("took_off", pos=removals(scene)[0].position.short)

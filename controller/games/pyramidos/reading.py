"""Reading the board of Pyramidos: landings, knock-offs and the end of a turn.

The referee reads the board (:mod:`controller.referee.placing`) and asks the game pure
questions over its own value: a target going active is a landing for the seat to move
(:func:`placed`: the top only once it is open); targets going inactive are knocked-off
balls (:func:`held`), counted once they stay so for ``settle_s`` (the position stands
meanwhile: a ball landing beside them is still the mover's). ``button:end_turn`` or the
page ends a turn (:func:`end_turn`); the referee counts a ball that just fell off as
knocked off at once then (a deliberate press says the board has settled).
"""

from __future__ import annotations

from controller.games.pyramidos.events import KnockedOff, Landed, TurnEnded
from controller.games.pyramidos.game import PyramidosGame
from controller.games.pyramidos.messages import knocked_off, ordered, said
from controller.referee.game import (
    Acted,
    By,
    Differences,
    Held,
    Message,
    Move,
    Scene,
    Stored,
    Undone,
    place,
    places,
)


def placed(game: PyramidosGame, target: str, scene: Scene) -> Move | Message:
    """A ball on ``target``: the mover's landing (the top only once it is open)."""
    if target == "top" and not game.state.top_open:
        return Message.of("top_closed")
    seat = game.state.to_move
    new = game.event(f"land {target}")
    notes = [said(game.state, f"land {target}", scene.name)]
    if new.state.top_open and not game.state.top_open:
        notes.append(Message.of("top_opened"))
    return Move((Landed(target, seat),), tuple(notes))


def several(targets: frozenset[str]) -> Message:
    """Balls on several targets at once: no landing."""
    return Message.of("several_balls", targets=places(ordered(targets)))


def held(game: PyramidosGame, board: Differences, scene: Scene) -> Held | None:
    """Balls gone from their targets (nothing new): knocked off, once they stay gone."""
    if board.extra or not board.missing:
        return None
    gone = places(ordered(board.missing))
    waiting = Message.of("knocking_off", targets=gone, num=len(gone.items))
    said = knocked_off(game.owners, board.missing, scene.name)
    return Held(knock_off(game, board.missing), waiting, (said,))


def knock_off(game: PyramidosGame, gone: frozenset[str]) -> tuple[Stored, ...]:
    events: list[Stored] = []
    for target in ordered(gone):
        events.append(KnockedOff(target, game.state.targets()[target]))
        game = game.event(f"leave {target}")
    return tuple(events)


def end_turn(game: PyramidosGame, by: By, scene: Scene) -> Acted:
    """The End turn command: the ball rests on earth or fell into the net."""
    seat = game.state.to_move
    return Acted((TurnEnded(seat, by),), (said(game.state, "end", scene.name),))


def took_back(game: PyramidosGame, scene: Scene) -> Undone:
    """Undo: the last event (a landing, a knock-off, an ended turn) taken back."""
    last = game.steps[-1]
    words = last.text.split()
    if words[0] == "land":
        note = Message.of("took_back_landing", player=scene.name(last.seat),
                          target=place(words[1]))  # fmt: skip
    elif words[0] == "leave":
        note = Message.of("took_back_knock_off", target=place(words[1]))
    else:
        note = Message.of("took_back_end", player=scene.name(last.seat))
    return Undone(last.text, note)

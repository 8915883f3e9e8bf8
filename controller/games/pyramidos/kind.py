"""Pyramidos for the referee: two to four players land balls on targets.

Its :class:`~controller.referee.game.GameKind` (:data:`PYRAMIDOS`) gathers what only this
game has: seats in their order, the targets read as landings and knock-offs, the End turn
command and taking back an event (:mod:`.reading`), each answered over the game's own value
and the referee's :class:`~controller.referee.game.Scene`.

>>> PYRAMIDOS.name, PYRAMIDOS.seats, list(PYRAMIDOS.actions)
('pyramidos', range(2, 5), ['end_turn'])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from controller.games.pyramidos import lights, reading, snapshot, terminal
from controller.games.pyramidos import rules as pyramidos
from controller.games.pyramidos.commands import ACTIONS, PRESSES, EndTurn
from controller.games.pyramidos.events import EVENTS, KnockedOff, Landed, TurnEnded
from controller.games.pyramidos.game import PyramidosGame
from controller.games.pyramidos.messages import said
from controller.games.pyramidos.record import read_record
from controller.guidance import GuidanceOptions, Light, Mismatch, Picture
from controller.referee.game import (
    Acted,
    Command,
    Differences,
    Event,
    Game,
    GameError,
    GameKind,
    Held,
    Message,
    Move,
    Options,
    Param,
    Scene,
    Snapshot,
    Undone,
)
from controller.rules.records import Record
from controller.vocabulary import TARGETS


def _game(game: Game) -> PyramidosGame:
    assert isinstance(game, PyramidosGame), "a Pyramidos game"  # the registry's promise
    return game


class Pyramidos(GameKind):
    """Pyramidos's part of the referee (see :mod:`controller.referee.game`)."""

    name = pyramidos.NAME
    seats = range(pyramidos.MIN_SEATS, pyramidos.MAX_SEATS + 1)
    option_names = ("variant",)
    piece = "ball"
    actions = ACTIONS
    presses = PRESSES
    together = "two_balls"
    resumed_move = False
    events = EVENTS

    def missing_sensors(self, sensors: frozenset[str]) -> Message | None:
        have = set(TARGETS) <= sensors
        return None if have else Message.of("no_target_sensors")

    def seats_wrong(self, seats: int) -> Message | None:
        return None if seats in self.seats else Message.of("pyramidos_seats", num=seats)

    def computer_refused(self) -> Message | None:
        return Message.of("pyramidos_no_computer")

    def remote_refused(self) -> Message | None:
        return Message.of("pyramidos_no_remote")

    def children_help_refused(self) -> Message | None:
        return Message.of("pyramidos_no_help")

    def read_options(self, seats: int, raw: Mapping[str, Any]) -> Options:
        return pyramidos.PyramidosOptions.from_dict(seats, raw)

    def new_game(self, options: Options) -> Game:
        assert isinstance(options, pyramidos.PyramidosOptions)
        return PyramidosGame.new(options)

    def apply(self, game: Game, event: Event) -> Game:
        played = _game(game)
        if isinstance(event, Landed):
            return played.event(f"land {event.target}")
        if isinstance(event, KnockedOff):
            return played.event(f"leave {event.target}")
        if isinstance(event, TurnEnded):
            return played.event("end")
        raise GameError(f"{event.kind!r} is not a Pyramidos event")

    def placed(self, game: Game, place: str, scene: Scene) -> Move | Message:
        return reading.placed(_game(game), place, scene)

    def several(self, places: frozenset[str]) -> Message:
        return reading.several(places)

    def held(self, game: Game, differs: Differences, scene: Scene) -> Held | None:
        return reading.held(_game(game), differs, scene)

    def refusal(self, game: Game, order: Command, scene: Scene) -> Message | None:
        if not isinstance(order, EndTurn):
            return Message.of("no_such_action")
        if game.over:
            return Message.of("game_over")
        knocked = scene.held is not None and not scene.held.undoes
        if scene.mismatches and not knocked:
            return Message.of("fix_first", fixes=scene.fixes)
        return None

    def act(self, game: Game, order: Command, scene: Scene) -> Acted:
        assert isinstance(order, EndTurn)
        return reading.end_turn(_game(game), order.by, scene)

    def took_back(self, game: Game, scene: Scene) -> Undone:
        return reading.took_back(_game(game), scene)

    def position(
        self, state: object, options: Options, pending: Sequence[object], last_move: str | None
    ) -> Snapshot:
        return snapshot.position(state, options, pending, last_move)

    def picture(
        self, game: Game, players: Sequence[Light], wrong: tuple[Mismatch, ...],
        options: GuidanceOptions,
    ) -> Picture:  # fmt: skip
        return lights.picture(_game(game).state, players, wrong, options)

    def told(self, before: object, label: str, name: Callable[[int], Param]) -> Message | None:
        assert isinstance(before, pyramidos.PyramidosState), "a Pyramidos position"
        return said(before, label, name)

    def drawn(self, state: object, *, colour: bool = False) -> str:
        return terminal.drawn(state, colour=colour)

    def read_record(self, raw: Mapping[str, Any]) -> Record:
        return read_record(raw)


PYRAMIDOS = Pyramidos()
"""Pyramidos, as the registry lists it."""

"""Perlen-Pyramide for the referee: three players build a pyramid of pearls.

Its :class:`~controller.referee.game.GameKind` (:data:`PERLEN_PYRAMIDE`) gathers what only
this game has: three seats, colours in turn order from the first seat, computer seats and
help for children, the base cells read as moves and take-backs (:mod:`.reading`, :mod:`.takeback`),
bonus pearls to place and to take off (:mod:`.bonuses`), hints (:mod:`.hints`), its seats
on another board (:func:`.board.arrived`). Each answers over the game's own value and the
referee's :class:`~controller.referee.game.Scene`; the referee carries the answers out.

>>> PERLEN_PYRAMIDE.name, PERLEN_PYRAMIDE.seats, list(PERLEN_PYRAMIDE.actions)
('perlen-pyramide', range(3, 4), ['confirm', 'hint'])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Final

from controller.games.perlen import bonuses, hints, lights, reading, snapshot, takeback, terminal
from controller.games.perlen import rules as perlen
from controller.games.perlen.commands import ACTIONS, PRESSES, ConfirmBonus, Hint
from controller.games.perlen.computer import BotPlayer
from controller.games.perlen.events import EVENTS, BasePearl, BonusPlaced
from controller.games.perlen.game import PerlenGame
from controller.games.perlen.record import read_record
from controller.guidance import GuidanceOptions, Light, Mismatch, Picture
from controller.palette import PaletteColour
from controller.referee.game import (
    Answer,
    AskHint,
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
    Player,
    Scene,
    Snapshot,
    Status,
    Undone,
)
from controller.rules.notation import POSITIONS
from controller.rules.records import Record
from controller.vocabulary import CELLS

BONUS_STATUS: Final = "bonus"
"""The snapshot's status while bonus pearls wait to be placed."""


def _game(game: Game) -> PerlenGame:
    assert isinstance(game, PerlenGame), "a Perlen-Pyramide game"  # the registry's promise
    return game


class PerlenPyramide(GameKind):
    """Perlen-Pyramide's part of the referee (see :mod:`controller.referee.game`)."""

    name = perlen.NAME
    seats = range(perlen.COLOURS, perlen.COLOURS + 1)
    option_names = ("ties", "pools", "start", "placement", "score")
    piece = "pearl"
    actions = ACTIONS
    presses = PRESSES
    waiting_status = BONUS_STATUS
    together = "two_at_once"
    events = EVENTS
    shared = frozenset({BasePearl.kind})

    def stacked(self, sensed: frozenset[str]) -> int:
        """The base pearls sensed and every pearl the rules stack on them: a full base
        holds the whole pyramid of 55."""
        return sum(1 for p in POSITIONS if sensed.issuperset(p.footprint))

    def missing_sensors(self, sensors: frozenset[str]) -> Message | None:
        have = set(CELLS) <= sensors
        return None if have else Message.of("no_cell_sensors")

    def seats_wrong(self, seats: int) -> Message | None:
        return None if seats in self.seats else Message.of("perlen_three", num=seats)

    def computer_refused(self) -> Message | None:
        return None

    def children_help_refused(self) -> Message | None:
        return None

    def remote_refused(self) -> Message | None:
        return None

    def read_options(self, seats: int, raw: Mapping[str, Any]) -> Options:
        return perlen.PerlenOptions.from_dict(raw)

    def seated(
        self,
        options: Options,
        names: Sequence[str],
        colours: Sequence[PaletteColour],
        computer: Mapping[int, str],
    ) -> tuple[Player, ...]:
        """Colour 0 sits at the first seat, then round the table."""
        assert isinstance(options, perlen.PerlenOptions)
        seats = [options.seat_of(colour) for colour in range(perlen.COLOURS)]
        return tuple(
            Player(colour, seat, names[seat], colours[seat], computer.get(seat))
            for colour, seat in enumerate(seats)
        )

    def new_game(self, options: Options) -> Game:
        assert isinstance(options, perlen.PerlenOptions)
        return PerlenGame.new(options)

    def apply(self, game: Game, event: Event) -> Game:
        played = _game(game)
        if isinstance(event, BasePearl):
            if played.pending:
                raise GameError("a move while bonus pearls wait (they are acknowledged first)")
            if event.colour != played.state.to_move:
                raise GameError(f"move by colour {event.colour}, expected {played.state.to_move}")
            return played.move(event.cell)
        if isinstance(event, BonusPlaced):
            return played.acknowledge(event.pos)
        raise GameError(f"{event.kind!r} is not a Perlen-Pyramide event")

    def placed(self, game: Game, place: str, scene: Scene) -> Move | Message:
        return reading.placed(_game(game), place, scene)

    def held(self, game: Game, differs: Differences, scene: Scene) -> Held | None:
        return reading.held(_game(game), differs, scene)

    def refusal(self, game: Game, order: Command, scene: Scene) -> Message | None:
        played = _game(game)
        if isinstance(order, ConfirmBonus):
            # A bonus pearl of a move taken back is off, or the waiting ones are placed.
            return None if played.pending or scene.removals else Message.of("no_bonus")
        if not isinstance(order, Hint):
            return Message.of("no_such_action")
        mover = played.state.to_move
        if played.over or mover is None:
            return Message.of("game_over")
        if scene.players[mover].computer is not None:
            return Message.of("computer_turn")
        if scene.players[mover].remote:
            return Message.of("remote_turn", player=scene.name(mover))
        if scene.mismatches:
            return Message.of("fix_first", fixes=scene.fixes)
        if not scene.hints:
            return Message.of("hints_need_bot")
        return None

    def act(self, game: Game, order: Command, scene: Scene) -> Answer:
        if isinstance(order, ConfirmBonus):
            return bonuses.confirm(_game(game), order.by, scene)
        return AskHint()

    def took_back(self, game: Game, scene: Scene) -> Undone:
        return takeback.undone(_game(game), scene)

    def arrived(self, game: Game, event: Event, scene: Scene) -> Move | None:
        return reading.arrived(_game(game), event, scene)

    def computer(self, move_budget_s: float | None, hint_budget_s: float) -> BotPlayer:
        return BotPlayer(move_budget_s, hint_budget_s)

    def explained(self, cell: str, why: object) -> tuple[Message, ...]:
        return hints.explained(cell, why)

    def urgent(self, game: Game, scene: Scene) -> tuple[Message, ...] | None:
        return takeback.still_on(scene)

    def owed(self, game: Game, scene: Scene) -> tuple[Message, ...] | None:
        return bonuses.owed(_game(game), scene)

    def shown(self, game: Game, scene: Scene, snap: Snapshot) -> Snapshot:
        played = _game(game)
        playing = snap.status in (Status.PLAYING, BONUS_STATUS) and played.to_move is not None
        parts = dataclasses.replace(
            snapshot.parts_of(snap),
            shown_bonus=scene.pending_shown,
            removals=tuple(snapshot.BonusView.of(b) for b in takeback.removals(scene)),
        )
        return dataclasses.replace(
            snap,
            parts=parts,
            legal=tuple(sorted(played.legal_cells())) if playing else (),
        )

    def position(
        self, state: object, options: Options, pending: Sequence[object], last_move: str | None
    ) -> Snapshot:
        return snapshot.position(state, options, pending, last_move)

    def picture(
        self, game: Game, players: Sequence[Light], wrong: tuple[Mismatch, ...],
        options: GuidanceOptions,
    ) -> Picture:  # fmt: skip
        played = _game(game)
        first = options.pending_shown  # the waiting bonus pearl shown now leads
        pending = played.pending[first:] + played.pending[:first]
        removals = [b for b in options.removals if isinstance(b, perlen.Bonus)]
        take_off = removals[0].position.footprint if removals else ()
        return lights.picture(played.state, players, pending, wrong, options, take_off)

    def drawn(self, state: object, *, colour: bool = False) -> str:
        return terminal.drawn(state, colour=colour)

    def read_record(self, raw: Mapping[str, Any]) -> Record:
        return read_record(raw)


PERLEN_PYRAMIDE = PerlenPyramide()
"""Perlen-Pyramide, as the registry lists it."""

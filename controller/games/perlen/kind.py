"""Perlen-Pyramide for the referee: three players build a pyramid of pearls.

Its :class:`~controller.referee.game.GameKind` (:data:`PERLEN_PYRAMIDE`) gathers what only
this game has: three seats, colours in turn order from the first seat, computer seats and
help for children, the base cells read as moves (:mod:`.board`), bonus pearls to place
and to take off (:mod:`.bonuses`, :mod:`.takeback`), hints (:mod:`.hints`), its seats on
another board (:mod:`.arrivals`).

>>> PERLEN_PYRAMIDE.name, PERLEN_PYRAMIDE.seats, list(PERLEN_PYRAMIDE.actions)
('perlen-pyramide', range(3, 4), ['confirm', 'hint'])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Final

from controller.games.perlen import arrivals, board, bonuses, hints, lights, takeback, text, views
from controller.games.perlen import rules as perlen
from controller.games.perlen.commands import ACTIONS, PRESSES, ConfirmBonus, Hint
from controller.games.perlen.events import EVENTS, BasePearl, BonusPlaced
from controller.games.perlen.game import PerlenGame
from controller.games.perlen.player import BotPlayer
from controller.games.perlen.record import read_record
from controller.games.perlen.words import bonus_at
from controller.guidance import GuidanceOptions, Light, Mismatch, MismatchKind, Picture
from controller.palette import PaletteColour
from controller.referee.game import (
    By,
    Command,
    Event,
    Game,
    GameError,
    GameKind,
    Items,
    Message,
    Options,
    Player,
    RefereeConfig,
    RefereeState,
    Session,
    Snapshot,
    Status,
    Step,
    ask_hint,
    bonus_shown,
    fixes,
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
    reconcile = staticmethod(board.reconcile)
    events = EVENTS
    shared = frozenset({BasePearl.kind})

    def stacked(self, sensed: frozenset[str]) -> int:
        """The base pearls sensed and every pearl the rules stack on them: a full base
        holds the whole pyramid of 55."""
        return sum(1 for p in POSITIONS if sensed.issuperset(p.footprint))

    def missing_sensors(self, config: RefereeConfig) -> Message | None:
        have = set(CELLS) <= config.sensors
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

    def refusal(self, state: RefereeState, session: Session, order: Command) -> Message | None:
        game = _game(session.game)
        if isinstance(order, ConfirmBonus):
            # A bonus pearl of a move taken back is off, or the waiting ones are placed.
            waiting = game.pending or state.comparison.removals
            return None if waiting else Message.of("no_bonus")
        if not isinstance(order, Hint):
            return Message.of("no_such_action")
        mover = game.state.to_move
        if game.over or mover is None:
            return Message.of("game_over")
        if session.players[mover].computer is not None:
            return Message.of("computer_turn")
        if session.players[mover].remote:
            return Message.of("remote_turn", player=session.name(mover))
        if state.comparison.mismatches:
            return Message.of("fix_first", fixes=fixes(state))
        if not state.config.levels:
            return Message.of("hints_need_bot")
        return None

    def act(self, state: RefereeState, order: Command, now: float) -> Step:
        session = state.session
        assert session is not None
        if isinstance(order, ConfirmBonus):
            return bonuses.confirm(state, session, _game(session.game), order.by, now)
        return ask_hint(state)

    def undo(self, state: RefereeState, session: Session, by: By, now: float) -> Step:
        return takeback.undo(state, session, _game(session.game), by, now)

    def arrived(self, state: RefereeState, session: Session, event: Event, now: float) -> Step:
        return arrivals.arrived(state, session, _game(session.game), event, now)

    def computer(self, move_budget_s: float | None, hint_budget_s: float) -> BotPlayer:
        return BotPlayer(move_budget_s, hint_budget_s)

    def explained(self, cell: str, why: object) -> tuple[Message, ...]:
        return hints.explained(cell, why)

    def urgent(self, state: RefereeState, session: Session) -> tuple[Message, ...] | None:
        watch = state.comparison
        game = _game(session.game)
        hold = watch.settling
        last = game.last
        if hold is not None and last is not None:  # only the last pearl is ever held
            name = session.name(last.colour)
            if hold.action == takeback.TAKE_BACK:
                return (Message.of("keep_off", cell=last.cell, player=name),)
            if hold.action == takeback.SHIFT and hold.cell is not None:
                return (Message.of("moving", player=name, origin=last.cell, cell=hold.cell),)
        removals = takeback.removals(state)
        if removals:
            cell = next((m.cell for m in watch.mismatches if m.kind is MismatchKind.EXTRA), "")
            if cell:
                positions = Items(tuple(b.position.short for b in removals))
                # The order matters only when one rests on another (they lie on two layers).
                layers = {b.position.layer for b in removals}
                key = "remove_bonuses_top_down" if len(layers) > 1 else "remove_bonuses"
                return (Message.of(key, positions=positions, cell=cell, num=len(removals)),)
        return None

    def owed(self, state: RefereeState, session: Session) -> tuple[Message, ...] | None:
        game = _game(session.game)
        if not game.pending:
            return None
        first = bonus_at(session, game.pending[0])
        key = "finish_pyramid" if game.over else "bonus_owed"
        return (Message.of(key, first=first, num=len(game.pending)),)

    def shown(self, state: RefereeState, session: Session, snap: Snapshot) -> Snapshot:
        game = _game(session.game)
        playing = snap.status in (Status.PLAYING, BONUS_STATUS) and game.state.to_move is not None
        parts = dataclasses.replace(
            views.parts_of(snap),
            shown_bonus=bonus_shown(state),
            removals=tuple(views.BonusView.of(b) for b in takeback.removals(state)),
        )
        return dataclasses.replace(
            snap,
            parts=parts,
            legal=tuple(sorted(game.legal_cells())) if playing else (),
        )

    def position(
        self, state: object, options: Options, pending: Sequence[object], last_move: str | None
    ) -> Snapshot:
        return views.position(state, options, pending, last_move)

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
        return text.drawn(state, colour=colour)

    def read_record(self, raw: Mapping[str, Any]) -> Record:
        return read_record(raw)


PERLEN_PYRAMIDE = PerlenPyramide()
"""Perlen-Pyramide, as the registry lists it."""

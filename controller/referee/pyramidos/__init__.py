"""Pyramidos for the referee: two to four players land balls on targets.

Its :class:`~controller.referee.kinds.GameKind` (:data:`PYRAMIDOS`) gathers what only this
game has: seats in their order, the targets read as landings and knock-offs, the End turn
command and taking back an event (:mod:`.board`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from controller import guidance
from controller.guidance import Light, Mismatch
from controller.palette import PaletteColour
from controller.referee import snapshot as views
from controller.referee import words
from controller.referee.commands import Command, ConfirmBonus, EndTurn, Hint
from controller.referee.events import Aborted, By, Event, KnockedOff, Landed, TakeBack, TurnEnded
from controller.referee.games import Game, GameError, Options, PyramidosGame
from controller.referee.messages import Message, Param
from controller.referee.pyramidos import board
from controller.referee.session import Player, Session
from controller.referee.state import RefereeConfig, RefereeState, SettleAction, Step
from controller.rules import perlen, pyramidos
from controller.rules.records import PYRAMIDOS as NAME


def _game(game: Game) -> PyramidosGame:
    assert isinstance(game, PyramidosGame), "a Pyramidos game"  # the registry's promise
    return game


class Pyramidos:
    """Pyramidos's part of the referee (see :mod:`controller.referee.kinds`)."""

    name = NAME
    seats = range(pyramidos.MIN_SEATS, pyramidos.MAX_SEATS + 1)
    option_names = ("variant",)
    piece = PyramidosGame.piece

    def missing_sensors(self, config: RefereeConfig) -> str | None:
        return None if config.has_targets else "no_target_sensors"

    def seats_wrong(self, seats: int) -> Message | None:
        return None if seats in self.seats else Message.of("pyramidos_seats", num=seats)

    def computer_refused(self) -> str | None:
        return "computer_perlen_only"

    def remote_refused(self) -> str | None:
        return "remote_perlen_only"

    def children_help_refused(self) -> str | None:
        return "children_help_perlen_only"

    def read_options(self, seats: int, raw: Mapping[str, Any]) -> Options:
        return pyramidos.PyramidosOptions.from_dict(seats, raw)

    def bad_option(self, raw: Mapping[str, Any], exc: Exception) -> str:
        """The option :meth:`pyramidos.PyramidosOptions.from_dict` refused."""
        for key, value in raw.items():
            if key not in ("first_seat", "variant"):
                return str(key)[:30]
            if key == "variant" and value not in {v.value for v in pyramidos.Variant}:
                return "variant"
        return "first_seat"

    def seated(
        self,
        options: Options,
        names: Sequence[str],
        colours: Sequence[PaletteColour],
        computer: Mapping[int, str],
    ) -> tuple[Player, ...]:
        """Each seat plays for itself, numbered by seat."""
        return tuple(Player(seat, seat, names[seat], colours[seat]) for seat in range(len(names)))

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
        if isinstance(event, TakeBack):
            return played.undo()
        if isinstance(event, Aborted):
            return played
        raise GameError(f"{event.kind!r} is not a Pyramidos event")

    def reconcile(self, state: RefereeState, session: Session, now: float) -> Step:
        return board.reconcile(state, session, _game(session.game), now)

    def refusal(self, state: RefereeState, session: Session, order: Command) -> Message | None:
        game = _game(session.game)
        if isinstance(order, Hint):
            return Message.of("hints_perlen_only")
        if isinstance(order, ConfirmBonus):
            return Message.of("no_bonus")
        assert isinstance(order, EndTurn)
        if game.over:
            return Message.of("game_over")
        hold = state.comparison.settling
        knocked = hold is not None and hold.action is SettleAction.KNOCK_OFF
        if state.comparison.mismatches and not knocked:
            return Message.of("fix_first", fixes=words.fixes(state))
        return None

    def act(self, state: RefereeState, order: Command, now: float) -> Step:
        session = state.session
        assert session is not None and isinstance(order, EndTurn)
        return board.end_turn(state, session, _game(session.game), order.by, now)

    def undo(self, state: RefereeState, session: Session, by: By, now: float) -> Step:
        return board.undo(state, session, _game(session.game), by, now)

    def shown(self, state: RefereeState, session: Session, snap: views.Snapshot) -> views.Snapshot:
        return snap

    def position(
        self,
        players: Sequence[views.PlayerView],
        state: perlen.PerlenState | pyramidos.PyramidosState,
        options: Options,
        pending: Sequence[views.BonusView],
        last_move: str | None,
    ) -> views.Snapshot:
        assert isinstance(state, pyramidos.PyramidosState), "a Pyramidos position"
        out = pyramidos.outcome(state)
        return views.Snapshot(
            game=NAME,
            status=views.Status.OVER if out.over else views.Status.PLAYING,
            players=tuple(players),
            to_move=None if state.over else state.to_move,
            scores=views.Scores(points=out.points),
            targets=state.targets(),
            top_open=state.top_open,
            over=out.over,
            winners=out.winners,
            options=options.to_dict(),
            last_move=last_move,
        )

    def picture(
        self,
        game: Game,
        players: Sequence[Light],
        pending: tuple[perlen.Bonus, ...],
        wrong: tuple[Mismatch, ...],
        options: guidance.GuidanceOptions,
    ) -> guidance.Picture:
        return guidance.pyramidos_picture(_game(game).state, players, wrong, options)

    def told(
        self,
        before: perlen.PerlenState | pyramidos.PyramidosState,
        label: str,
        name: Callable[[int], Param],
    ) -> Message | None:
        assert isinstance(before, pyramidos.PyramidosState), "a Pyramidos position"
        return board.said(before, label, name)


PYRAMIDOS = Pyramidos()

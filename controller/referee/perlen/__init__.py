"""Perlen-Pyramide for the referee: three players build a pyramid of pearls.

Its :class:`~controller.referee.kinds.GameKind` (:data:`PERLEN_PYRAMIDE`) gathers what
only this game has: three seats, colours in turn order from the first seat, computer
seats and help for children, the base cells read as moves (:mod:`.board`), bonus pearls
to place and to take off (:mod:`.bonuses`, :mod:`.takeback`), hints.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from controller import guidance
from controller.guidance import Light, Mismatch
from controller.palette import PaletteColour
from controller.referee import computer, progress, words
from controller.referee import snapshot as views
from controller.referee.commands import Command, ConfirmBonus, EndTurn, Hint
from controller.referee.events import Aborted, BasePearl, BonusPlaced, By, Event, TakeBack
from controller.referee.games import Game, GameError, Options, PerlenGame
from controller.referee.messages import Message, Param
from controller.referee.perlen import board, bonuses, takeback
from controller.referee.session import Player, Session
from controller.referee.state import RefereeConfig, RefereeState, Step
from controller.rules import perlen, pyramidos
from controller.rules.records import PERLEN


def _game(game: Game) -> PerlenGame:
    assert isinstance(game, PerlenGame), "a Perlen-Pyramide game"  # the registry's promise
    return game


class PerlenPyramide:
    """Perlen-Pyramide's part of the referee (see :mod:`controller.referee.kinds`)."""

    name = PERLEN
    seats = range(perlen.COLOURS, perlen.COLOURS + 1)
    option_names = ("ties", "pools", "start", "placement", "score")
    piece = PerlenGame.piece

    def missing_sensors(self, config: RefereeConfig) -> str | None:
        return None if config.has_cells else "no_cell_sensors"

    def seats_wrong(self, seats: int) -> Message | None:
        return None if seats in self.seats else Message.of("perlen_three", num=seats)

    def computer_refused(self) -> str | None:
        return None

    def children_help_refused(self) -> str | None:
        return None

    def remote_refused(self) -> str | None:
        return None

    def read_options(self, seats: int, raw: Mapping[str, Any]) -> Options:
        return perlen.PerlenOptions.from_dict(raw)

    def bad_option(self, raw: Mapping[str, Any], exc: Exception) -> str:
        return str(exc.key)[:30] if isinstance(exc, perlen.OptionError) else "options"

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
        if isinstance(event, TakeBack):
            return played.undo()
        if isinstance(event, Aborted):
            return played
        raise GameError(f"{event.kind!r} is not a Perlen-Pyramide event")

    def reconcile(self, state: RefereeState, session: Session, now: float) -> Step:
        return board.reconcile(state, session, _game(session.game), now)

    def refusal(self, state: RefereeState, session: Session, order: Command) -> Message | None:
        game = _game(session.game)
        if isinstance(order, EndTurn):
            return Message.of("pyramidos_only")
        if isinstance(order, ConfirmBonus):
            return None if game.pending else Message.of("no_bonus")
        assert isinstance(order, Hint)
        mover = game.state.to_move
        if game.over or mover is None:
            return Message.of("game_over")
        if session.players[mover].computer is not None:
            return Message.of("computer_turn")
        if session.players[mover].remote:
            return Message.of("remote_turn", player=session.name(mover))
        if state.comparison.mismatches:
            return Message.of("fix_first", fixes=words.fixes(state))
        if not state.config.levels:
            return Message.of("hints_need_bot")
        return None

    def act(self, state: RefereeState, order: Command, now: float) -> Step:
        session = state.session
        assert session is not None
        if isinstance(order, ConfirmBonus):
            return bonuses.confirm(state, session, _game(session.game), order.by, now)
        return computer.ask_hint(state)

    def undo(self, state: RefereeState, session: Session, by: By, now: float) -> Step:
        return takeback.undo(state, session, _game(session.game), by, now)

    def shown(self, state: RefereeState, session: Session, snap: views.Snapshot) -> views.Snapshot:
        game = _game(session.game)
        playing = (
            snap.status in (views.Status.PLAYING, views.Status.BONUS)
            and game.state.to_move is not None
        )
        return dataclasses.replace(
            snap,
            shown_bonus=progress.shown(state),
            removals=tuple(views.BonusView.of(b) for b in state.comparison.removals),
            legal=tuple(sorted(game.legal_cells())) if playing else (),
        )

    def position(
        self,
        players: Sequence[views.PlayerView],
        state: perlen.PerlenState | pyramidos.PyramidosState,
        options: Options,
        pending: Sequence[views.BonusView],
        last_move: str | None,
    ) -> views.Snapshot:
        assert isinstance(state, perlen.PerlenState), "a Perlen-Pyramide position"
        out = perlen.outcome(state)
        waiting = {b.pos for b in pending}
        return views.Snapshot(
            game=PERLEN,
            status=views.Status.OVER if out.over else views.Status.PLAYING,
            players=tuple(players),
            to_move=state.to_move,
            pearls=tuple(
                views.PearlView(str(p), c) for p, c in state.pearls() if str(p) not in waiting
            ),
            pending=tuple(pending),
            scores=views.Scores(out.visible, out.totals, out.scores),
            pools_left=state.pools_left(),
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
        return guidance.perlen_picture(_game(game).state, players, pending, wrong, options)

    def told(
        self,
        before: perlen.PerlenState | pyramidos.PyramidosState,
        label: str,
        name: Callable[[int], Param],
    ) -> Message | None:
        return None


PERLEN_PYRAMIDE = PerlenPyramide()

"""One definition per game: what makes Perlen-Pyramide and Pyramidos different.

The referee is written once for both games; where they differ it asks the game's
:class:`GameKind` (as boardgame.io asks a game object for its moves and rules): the
setup (seats, options, who sits where), the board's reconciliation, applying a stored
event, taking back, the commands only one game has, and what the snapshot shows. The
game values (:mod:`controller.referee.games`) carry the facts both have in the same shape
(``pending`` bonus pearls, ``pieces``, ``last_move``, ``outcome``). Each game lives in its
own subpackage, :mod:`controller.referee.perlen` and :mod:`controller.referee.pyramidos`;
:data:`KINDS` is the one registry.

>>> sorted(KINDS), KINDS["pyramidos"].seats
(['perlen-pyramide', 'pyramidos'], range(2, 5))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from controller.guidance import GuidanceOptions, Light, Mismatch, Picture
    from controller.palette import PaletteColour
    from controller.referee.commands import Command
    from controller.referee.events import By, Event
    from controller.referee.games import Game, Options
    from controller.referee.messages import Message, Param
    from controller.referee.session import Player, Session
    from controller.referee.snapshot import BonusView, PlayerView, Snapshot
    from controller.referee.state import RefereeConfig, RefereeState, Step
    from controller.rules import perlen, pyramidos

    Position = perlen.PerlenState | pyramidos.PyramidosState


class GameKind(Protocol):
    """What one game is, for the referee."""

    @property
    def name(self) -> str:
        """As records, the store and the page name it (``perlen-pyramide``)."""

    @property
    def seats(self) -> range:
        """How many may play."""

    @property
    def piece(self) -> str:
        """What its players put on the board, as the referee's words say it (``pearl``,
        ``ball``): :attr:`controller.referee.games.PerlenGame.piece` and so on."""

    @property
    def option_names(self) -> tuple[str, ...]:
        """Its options a person chooses (``first_seat`` apart), as the setup page names
        them."""

    # -- setting up ----------------------------------------------------------------------
    def missing_sensors(self, config: RefereeConfig) -> str | None:
        """The message key when the board lacks this game's sensors, or None."""

    def seats_wrong(self, seats: int) -> Message | None:
        """Why ``seats`` players cannot play it, or None."""

    def computer_refused(self) -> str | None:
        """The message key when a seat cannot be the computer's, or None."""

    def children_help_refused(self) -> str | None:
        """The message key when it has no help for children, or None."""

    def remote_refused(self) -> str | None:
        """The message key when a seat cannot play on another board, or None."""

    def read_options(self, seats: int, raw: Mapping[str, Any]) -> Options:
        """Its options; :class:`~controller.rules.perlen.OptionError` or
        :class:`~controller.rules.pyramidos.SetupError` names what is wrong."""

    def bad_option(self, raw: Mapping[str, Any], exc: Exception) -> str:
        """The option key that ``read_options`` refused with ``exc``."""

    def seated(
        self,
        options: Options,
        names: Sequence[str],
        colours: Sequence[PaletteColour],
        computer: Mapping[int, str],
    ) -> tuple[Player, ...]:
        """The players by player number (colour or seat)."""

    def new_game(self, options: Options) -> Game: ...

    # -- playing ---------------------------------------------------------------------------
    def apply(self, game: Game, event: Event) -> Game:
        """``game`` after a stored ``event``; :class:`~controller.referee.games.GameError`
        when it does not fit."""

    def reconcile(self, state: RefereeState, session: Session, now: float) -> Step:
        """Compare the board with the game and act on what it says."""

    def refusal(self, state: RefereeState, session: Session, order: Command) -> Message | None:
        """Why a command that only some games have (End turn, Hint, Confirm) is not taken
        now, or None (the other commands are the referee's alone)."""

    def act(self, state: RefereeState, order: Command, now: float) -> Step:
        """Carry out one of its own commands (after :meth:`refusal` let it through)."""

    def undo(self, state: RefereeState, session: Session, by: By, now: float) -> Step:
        """The Undo command: take back the last move or event."""

    def shown(self, state: RefereeState, session: Session, snap: Snapshot) -> Snapshot:
        """The snapshot with what only this game shows (legal cells, bonus pearls …)."""

    def position(
        self,
        players: Sequence[PlayerView],
        state: Position,
        options: Options,
        pending: Sequence[BonusView],
        last_move: str | None,
    ) -> Snapshot:
        """The snapshot of one of its positions (:func:`controller.referee.snapshot.position`)."""

    def picture(
        self,
        game: Game,
        players: Sequence[Light],
        pending: tuple[perlen.Bonus, ...],
        wrong: tuple[Mismatch, ...],
        options: GuidanceOptions,
    ) -> Picture:
        """The LED picture of ``game`` (:mod:`controller.guidance` draws it)."""

    def told(self, before: Position, label: str, name: Callable[[int], Param]) -> Message | None:
        """A replayed step in words, as the live page said it (``Oma landed on t1.``), or
        None when the picture says it all."""


def kind_of(game: Game) -> GameKind:
    """The kind of ``game``."""
    return KINDS[game.kind]


def _registry() -> Mapping[str, GameKind]:
    from controller.referee.perlen import PERLEN_PYRAMIDE
    from controller.referee.pyramidos import PYRAMIDOS

    return {kind.name: kind for kind in (PERLEN_PYRAMIDE, PYRAMIDOS)}


KINDS: Mapping[str, GameKind] = _registry()
"""Every game the referee knows, by name."""

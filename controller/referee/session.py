"""The game on the table: who plays it (:mod:`controller.referee.players`), with which
options, and where it stands.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from controller.referee.messages import Param
from controller.referee.players import Player, called
from controller.referee.protocol import Game, GameKind, Options


@dataclass(frozen=True, slots=True)
class Session:
    """The game on the table: who plays, with which options, and where it stands."""

    game_id: int
    players: tuple[Player, ...]
    options: Options
    children_help: bool
    game: Game
    kind: GameKind
    """What the game is: its rules, its board, its words (the referee asks it)."""

    @property
    def linked(self) -> bool:
        """A seat plays on another board (:mod:`controller.referee.arrivals`)."""
        return any(p.remote for p in self.players)

    def made_there(self) -> bool:
        """The last move was made on the other board (only it may take the move back)."""
        last = self.game.last_by
        return last is not None and self.players[last].remote

    def with_game(self, game: Game) -> Session:
        return dataclasses.replace(self, game=game)

    def name(self, number: int) -> Param:
        """What the page calls player ``number``: the name, or an unnamed seat's default."""
        return called(self.players[number], self.players)


@dataclass(frozen=True, slots=True)
class CheckedSetup:
    """A new game that passed every check (:mod:`controller.referee.setup`); the store
    gives it its number."""

    kind: GameKind
    players: tuple[Player, ...]
    options: Options
    children_help: bool

    def session(self, game_id: int) -> Session:
        game = self.kind.new_game(self.options)
        return Session(game_id, self.players, self.options, self.children_help, game, self.kind)

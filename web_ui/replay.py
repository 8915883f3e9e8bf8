"""Past games step by step: a stored game's record replayed into snapshots.

Each step is drawn with the very code that draws the live game (the game's view), so a
replay looks exactly like the game did. Step 0 is the empty board; step ``n`` is the
board after the record's ``n``-th move (Perlen-Pyramide: a base pearl and every bonus
pearl it earned; Pyramidos: a landing, a knock-off or an ended turn).

>>> from controller.games.registry import GAMES
>>> from controller.games.perlen.snapshot import parts_of
>>> from controller.store import PlayerRecord, GameSummary, StoredGame
>>> players = (PlayerRecord(0, 0, "Anna", "red", "#d62728"),
...            PlayerRecord(1, 1, "Ben", "blue", "#1f77b4"),
...            PlayerRecord(2, 2, "Cleo", "yellow", "#f2c500"))
>>> game = StoredGame(GameSummary(1, "perlen-pyramide", "playing", 0.0, None, players, (), 4),
...     {}, False, (), None, {"game": "perlen-pyramide", "version": 1,
...     "moves": ["c3", "d4", "d3", "c4"]})
>>> steps = replay_steps(game, GAMES)
>>> len(steps), steps[4].label, [p.pos for p in parts_of(steps[4].snapshot).pearls][-1]
(5, 'c4', '2:c3')
>>> steps[4].bonuses
('2:c3',)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from controller.referee.game import GameKind
from controller.referee.messages import Message, Param
from controller.referee.players import Player
from controller.referee.showing import player_view, position
from controller.referee.snapshot import PlayerView, Snapshot
from controller.rules.records import RecordError, ReplayError, parse_record
from controller.store import PlayerRecord, StoredGame


@dataclass(frozen=True, slots=True)
class Step:
    number: int
    """0 for the empty board, then 1, 2, … ."""
    label: str
    """The move (``c4``) or event (``land t2``) that led here; empty for step 0."""
    mover: int | None
    """The player (a colour in turn order, or the seat) that made it."""
    bonuses: tuple[str, ...]
    """What the move earned at once, in placing order (Perlen-Pyramide's bonus pearls)."""
    snapshot: Snapshot
    said: Message | None = None
    """The event in words, as the live page said it (``Oma's ball landed on the top.``),
    where the game words its events."""


class ReplayUnavailable(ValueError):
    """The stored game has no record that can be replayed (the message says why)."""


def players_view(players: Sequence[PlayerRecord]) -> tuple[PlayerView, ...]:
    """Stored players as the snapshot shows them."""
    game = tuple(Player.from_record(p) for p in players)
    return tuple(player_view(p, game) for p in game)


def replay_steps(game: StoredGame, games: Mapping[str, GameKind]) -> list[Step]:
    """Every step of a stored game's record (a game of ``games``)."""
    if not game.record:
        raise ReplayUnavailable("this game has no record to replay")
    kind = games.get(game.game)
    if kind is None:
        raise ReplayUnavailable(f"{game.game!r} is not a game this board plays")
    try:
        record = parse_record(dict(game.record), {kind.name: kind.read_record})
    except RecordError as exc:
        raise ReplayUnavailable(str(exc)) from None
    players = players_view(game.players)
    options = kind.read_options(len(players), record.to_dict().get("options", {}))

    def name(number: int) -> Param:
        view = players[number] if number < len(players) else None
        return "?" if view is None else view.default_name or view.name

    steps: list[Step] = []
    try:  # the one replay of a record (controller.rules.records), drawn as the live page
        for step in record.steps():
            snap = position(players, kind, step.state, options, last_move=step.last_move)
            said = kind.told(step.before, step.label, name) if step.number else None
            earned = tuple(getattr(b, "position", b).short for b in step.earned)
            steps.append(Step(step.number, step.label, step.mover, earned, snap, said))
    except ReplayError as exc:
        raise ReplayUnavailable(str(exc)) from None
    return steps

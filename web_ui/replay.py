"""Past games step by step: a stored game's record replayed into snapshots.

Each step is drawn with the very code that draws the live game (web_ui/drawing.py), so
a replay looks exactly like the game did. Step 0 is the empty board; step ``n`` is the
board after the record's ``n``-th move (Perlen-Pyramide: a base pearl and every bonus pearl
it earned) or event (Pyramidos: a landing, a knock-off or an ended turn).

>>> from controller.store import PlayerRecord, GameSummary, StoredGame
>>> players = (PlayerRecord(0, 0, "Anna", "red", "#d62728"),
...            PlayerRecord(1, 1, "Ben", "blue", "#1f77b4"),
...            PlayerRecord(2, 2, "Cleo", "yellow", "#f2c500"))
>>> game = StoredGame(GameSummary(1, "perlen-pyramide", "playing", 0.0, None, players, (), 4),
...     {}, False, (), None, {"game": "perlen-pyramide", "version": 1,
...     "moves": ["c3", "d4", "d3", "c4"]})
>>> steps = replay_steps(game)
>>> len(steps), steps[4].label, [p.pos for p in steps[4].snapshot.pearls][-1]
(5, 'c4', '2:c3')
>>> steps[4].bonuses
('2:c3',)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controller.referee.messages import Message, Param
from controller.referee.pyramidos_board import said
from controller.referee.session import Player
from controller.referee.snapshot import PlayerView, Snapshot, position
from controller.rules import perlen, pyramidos
from controller.rules.records import (
    PerlenRecord,
    PyramidosRecord,
    RecordError,
    parse_record,
)
from controller.store import PlayerRecord, StoredGame


@dataclass(frozen=True, slots=True)
class Step:
    number: int
    """0 for the empty board, then 1, 2, … ."""
    label: str
    """The move (``c4``) or event (``land t2``) that led here; empty for step 0."""
    mover: int | None
    """Colour (Perlen-Pyramide) or seat (Pyramidos) that made it."""
    bonuses: tuple[str, ...]
    """Bonus pearls the move earned, in placing order."""
    snapshot: Snapshot
    said: Message | None = None
    """Pyramidos: the event in words, as the live page said it (``Oma landed on t1.``)."""


class ReplayUnavailable(ValueError):
    """The stored game has no record that can be replayed (the message says why)."""


def players_view(players: Sequence[PlayerRecord]) -> tuple[PlayerView, ...]:
    """Stored players as the snapshot shows them."""
    game = tuple(Player.from_record(p) for p in players)
    return tuple(PlayerView.of(p, game) for p in game)


def replay_steps(game: StoredGame) -> list[Step]:
    """Every step of a stored game's record."""
    if not game.record:
        raise ReplayUnavailable("this game has no record to replay")
    try:
        record = parse_record(dict(game.record))
    except RecordError as exc:
        raise ReplayUnavailable(str(exc)) from None
    players = players_view(game.players)
    steps: list[Step] = []
    if isinstance(record, PerlenRecord):
        state = perlen.new_game(record.options)
        steps.append(Step(0, "", None, (), position(players, state, record.options)))
        for number, move in enumerate(record.moves, start=1):
            mover = state.to_move
            try:
                state, bonuses = perlen.play(state, move)
            except perlen.IllegalMoveError as exc:
                raise ReplayUnavailable(f"move {number} ({move}): {exc}") from None
            snap = position(players, state, record.options, last_move=move)
            earned = tuple(b.position.short for b in bonuses)
            steps.append(Step(number, move, mover, earned, snap))
        return steps
    assert isinstance(record, PyramidosRecord)

    def name(number: int) -> Param:
        view = players[number] if number < len(players) else None
        return "?" if view is None else view.default_name or view.name

    pstate = pyramidos.new_game(options=record.options)
    steps.append(Step(0, "", None, (), position(players, pstate, record.options)))
    for number, text in enumerate(record.events, start=1):
        before = pstate
        try:
            pstate = pyramidos.apply(pstate, pyramidos.parse_event(text))
        except (ValueError, pyramidos.ImpossibleEventError) as exc:
            raise ReplayUnavailable(f"event {number} ({text}): {exc}") from None
        snap = position(players, pstate, record.options)
        steps.append(Step(number, text, before.to_move, (), snap, said(before, text, name)))
    return steps

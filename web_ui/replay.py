"""Past games step by step: a stored game's record replayed into snapshot-shaped dicts.

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
>>> len(steps), steps[4].label, [p["pos"] for p in steps[4].snapshot["pearls"]][-1]
(5, 'c4', '2:c3')
>>> steps[4].bonuses
('2:c3',)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller import palette
from controller.rules import perlen, pyramidos
from controller.rules.records import (
    PERLEN,
    PerlenRecord,
    PyramidosRecord,
    RecordError,
    parse_record,
)


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
    snapshot: dict[str, Any]
    """Snapshot-shaped: what the drawing functions read."""


class ReplayUnavailable(ValueError):
    """The stored game has no record that can be replayed (the message says why)."""


def players_dicts(players: Sequence[Any]) -> list[dict[str, Any]]:
    """Stored players as the snapshot lists them (seat, name, colour, name, letter)."""
    out = []
    for p in players:
        try:
            colour = palette.by_name(p.colour)
            letter = colour.letter
        except palette.PaletteError:
            letter = str(p.seat + 1)
        out.append(
            {
                "seat": p.seat,
                "name": p.name,
                "colour": p.hex,
                "colour_name": p.colour,
                "letter": letter,
                "computer": p.computer,
            }
        )
    return out


def _perlen_snapshot(
    state: perlen.PerlenState, players: list[dict[str, Any]], options: Mapping[str, Any]
) -> dict[str, Any]:
    result = perlen.outcome(state)
    return {
        "game": PERLEN,
        "status": "over" if result.over else "playing",
        "players": players,
        "to_move": state.to_move,
        "pearls": [{"pos": str(p), "colour": c} for p, c in state.pearls()],
        "pending": [],
        "mismatches": [],
        "scores": {
            "visible": list(result.visible),
            "totals": list(result.totals),
            "scores": list(result.scores),
        },
        "pools_left": list(state.pools_left()),
        "over": result.over,
        "winners": list(result.winners),
        "options": dict(options),
    }


def _pyramidos_snapshot(
    state: pyramidos.PyramidosState, players: list[dict[str, Any]], options: Mapping[str, Any]
) -> dict[str, Any]:
    result = pyramidos.outcome(state)
    return {
        "game": "pyramidos",
        "status": "over" if result.over else "playing",
        "players": players,
        "to_move": None if state.over else state.to_move,
        "targets": state.targets(),
        "top_open": state.top_open,
        "scores": {"points": list(result.points)},
        "over": result.over,
        "winners": list(result.winners),
        "options": dict(options),
    }


def replay_steps(game: Any) -> list[Step]:
    """Every step of a :class:`controller.store.StoredGame`'s record."""
    if not game.record:
        raise ReplayUnavailable("this game has no record to replay")
    try:
        record = parse_record(dict(game.record))
    except RecordError as exc:
        raise ReplayUnavailable(str(exc)) from None
    players = players_dicts(game.players)
    steps: list[Step] = []
    if isinstance(record, PerlenRecord):
        options = record.options.to_dict()
        state = perlen.new_game(record.options)
        steps.append(Step(0, "", None, (), _perlen_snapshot(state, players, options)))
        for number, move in enumerate(record.moves, start=1):
            mover = state.to_move
            try:
                state, bonuses = perlen.play(state, move)
            except perlen.IllegalMoveError as exc:
                raise ReplayUnavailable(f"move {number} ({move}): {exc}") from None
            snapshot = _perlen_snapshot(state, players, options)
            snapshot["last_move"] = move
            earned = tuple(b.position.short for b in bonuses)
            steps.append(Step(number, move, mover, earned, snapshot))
        return steps
    assert isinstance(record, PyramidosRecord)
    options = record.options.to_dict()
    pstate = pyramidos.new_game(options=record.options)
    steps.append(Step(0, "", None, (), _pyramidos_snapshot(pstate, players, options)))
    for number, text in enumerate(record.events, start=1):
        mover = pstate.to_move
        try:
            pstate = pyramidos.apply(pstate, pyramidos.parse_event(text))
        except (ValueError, pyramidos.ImpossibleEventError) as exc:
            raise ReplayUnavailable(f"event {number} ({text}): {exc}") from None
        steps.append(Step(number, text, mover, (), _pyramidos_snapshot(pstate, players, options)))
    return steps

"""The games played, for reading: the history page by page, one whole game with its
record, and the leaderboard.

:class:`History` runs its queries on the reading connection of the thread that asks
(:meth:`controller.store.Store._read`), so the web page's reads never hold up the Table's
writes (WAL lets readers and the writer run side by side). History is in play order
(game ids and event numbers), never by the wall clock. ``Store.history`` is the one for
a store. A game's record (the moves that stand) is worked out from its events by the
game's rules, which the store does not know: whoever knows them gives a
:data:`Recorder` (:meth:`History.with_records`; the Table does, and hands that history
to the web page).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any

from controller.store.values import GameSummary, LeaderRow, PlayerRecord, StoredEvent, StoredGame

log = logging.getLogger("controller.store")

Recorder = Callable[[StoredGame], Mapping[str, Any]]
"""The game record of a kept game (``{}`` when it has none this version can read)."""


class History:
    """The reads of one store; ``read`` gives this thread's reading connection."""

    def __init__(
        self, read: Callable[[], sqlite3.Connection], recorder: Recorder | None = None
    ) -> None:
        self._read = read
        self._recorder = recorder

    def with_records(self, recorder: Recorder) -> History:
        """The same reads, with each whole game's record made by ``recorder``."""
        return History(self._read, recorder)

    def games(self, limit: int = 50, offset: int = 0) -> list[GameSummary]:
        """Games, newest first."""
        limit = _bounded(limit, "limit", 1, 1000)
        offset = _bounded(offset, "offset", 0, 1 << 40)
        conn = self._read()
        rows = conn.execute(
            "SELECT g.*, (SELECT count(*) FROM events e WHERE e.game_id=g.id) AS n "
            "FROM games g ORDER BY g.id DESC LIMIT ? OFFSET ?",
            (limit, offset),
        ).fetchall()
        return [self._summary(conn, row) for row in rows]

    def count_games(self) -> int:
        return int(self._read().execute("SELECT count(*) FROM games").fetchone()[0])

    def game(self, game_id: int) -> StoredGame | None:
        """One whole game, or None when there is no game ``game_id``."""
        if isinstance(game_id, bool) or not isinstance(game_id, int):
            raise ValueError(f"a game id is a whole number, not {game_id!r}")
        conn = self._read()
        row = conn.execute(
            "SELECT g.*, (SELECT count(*) FROM events e WHERE e.game_id=g.id) AS n "
            "FROM games g WHERE g.id=?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        summary = self._summary(conn, row)
        events = tuple(
            StoredEvent(e["seq"], e["at"], e["kind"], json.loads(e["data"]))
            for e in conn.execute(
                "SELECT seq, at, kind, data FROM events WHERE game_id=? ORDER BY seq", (game_id,)
            )
        )
        options = json.loads(row["options"])
        game = StoredGame(
            summary=summary,
            options=options,
            children_help=bool(row["children_help"]),
            events=events,
            result=None if row["result"] is None else json.loads(row["result"]),
        )
        if self._recorder is None:
            return game
        return dataclasses.replace(game, record=self._recorder(game))

    def leaderboard(self, game: str | None = None) -> list[LeaderRow]:
        """Players of finished games by wins, then points (``game`` limits to one kind):
        the people first, then the computers. Unnamed computer seats count together by
        level (also those that older releases stored as ``Computer (strong)``); unnamed
        people are nobody in particular and are left out."""
        if game is not None and not isinstance(game, str):
            raise ValueError(f"game must be a game's name or None, not {game!r}")
        unnamed = (
            "(p.computer IS NOT NULL AND (p.name = '' OR p.name = 'Computer (' || p.computer"
            " || ')' OR p.name GLOB 'Computer [0-9] (' || p.computer || ')'))"
        )
        sql = (
            f"SELECT CASE WHEN {unnamed} THEN '' ELSE p.name END AS shown, "
            f"CASE WHEN {unnamed} THEN p.computer END AS level, "
            "p.computer IS NOT NULL AS computer, count(*) AS games, "
            "sum(p.won) AS wins, sum(p.points) AS points FROM players p "
            "JOIN games g ON g.id = p.game_id WHERE g.status = 'over' "
            "AND NOT (p.computer IS NULL AND p.name = '')"
            + (" AND g.game = ?" if game else "")
            + " GROUP BY shown, level, p.computer IS NOT NULL "
            "ORDER BY computer, wins DESC, points DESC, shown, level"
        )
        rows = self._read().execute(sql, (game,) if game else ()).fetchall()
        return [
            LeaderRow(
                r["shown"],
                r["games"],
                r["wins"] or 0,
                r["points"] or 0,
                bool(r["computer"]),
                r["level"],
            )
            for r in rows
        ]

    def _summary(self, conn: sqlite3.Connection, row: sqlite3.Row) -> GameSummary:
        players = tuple(
            PlayerRecord(
                p["number"],
                p["seat"],
                p["name"],
                p["colour"],
                p["hex"],
                p["computer"],
                p["points"],
                None if p["won"] is None else bool(p["won"]),
            )
            for p in conn.execute(
                "SELECT * FROM players WHERE game_id=? ORDER BY number", (row["id"],)
            )
        )
        winners = tuple(p.name for p in players if p.won)
        return GameSummary(
            id=row["id"],
            game=row["game"],
            status=row["status"],
            started=row["started"],
            finished=row["finished"],
            players=players,
            winners=winners,
            events=row["n"],
        )


def _bounded(value: int, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}, not {value!r}")
    return value

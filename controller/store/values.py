"""What the game store holds, as values: its players, events, games and errors.

:mod:`controller.store` reads and writes them; the referee, the web page and the tools
use them without a database at hand.
"""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class StoreError(RuntimeError):
    """The store cannot be used; the message names the file and what happened to it."""

    def __init__(self, path: Path, problem: str, set_aside: Path | None = None) -> None:
        where = f"game store {path}"
        tail = (
            f"; it was renamed to {set_aside.name} and a new store can start" if set_aside else ""
        )
        super().__init__(f"{where}: {problem}{tail}")
        self.path = path
        self.problem = problem
        self.set_aside = set_aside
        """Where the unusable file went, or None when it was left in place."""


class StoreWriteError(StoreError):
    """The file cannot be written now; ``fault`` says why: ``full`` (the disk or card is
    full, or the store reached its size limit), ``read-only`` (a card that turned
    read-only, a file without write permission) or ``other``. Nothing of the transaction
    was kept, and everything stored before stays."""

    def __init__(self, path: Path, fault: str, problem: str) -> None:
        super().__init__(path, problem)
        self.fault = fault


def write_fault(exc: BaseException) -> str:
    """``full``, ``read-only`` or ``other``: what kind of write failure ``exc`` is."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_FULL or getattr(exc, "errno", None) == errno.ENOSPC:
        return "full"
    if code is not None and code & 0xFF == sqlite3.SQLITE_READONLY:
        return "read-only"
    if getattr(exc, "errno", None) == errno.EROFS:
        return "read-only"
    text = str(exc).lower()
    if "full" in text:
        return "full"
    if "readonly" in text or "read-only" in text:
        return "read-only"
    return "other"


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A player of one game, as kept in the store."""

    number: int
    """The colour number (Perlen-Pyramide, turn order) or the seat (Pyramidos)."""
    seat: int
    """The physical seat at the board (0–3)."""
    name: str
    colour: str
    """The palette colour name (``red``)."""
    hex: str
    """``#rrggbb`` as it was in this game."""
    computer: str | None = None
    """The computer level of a computer seat, or None for a person."""
    points: int | None = None
    """Score once the game is over."""
    won: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "seat": self.seat,
            "name": self.name,
            "colour": self.hex,
            "colour_name": self.colour,
            "computer": self.computer,
            "points": self.points,
            "won": self.won,
        }


@dataclass(frozen=True, slots=True)
class StoredEvent:
    seq: int
    """1, 2, … within its game."""
    at: float
    """Unix time when it was committed."""
    kind: str
    data: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "at": self.at, "kind": self.kind, "data": dict(self.data)}


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One line of the history page."""

    id: int
    game: str
    status: str
    """``playing``, ``over`` or ``aborted``."""
    started: float
    finished: float | None
    players: tuple[PlayerRecord, ...]
    winners: tuple[str, ...]
    """Names of the winners (several on a shared win; empty unless over)."""
    events: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "status": self.status,
            "started": self.started,
            "finished": self.finished,
            "players": [p.to_dict() for p in self.players],
            "winners": list(self.winners),
            "events": self.events,
        }


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A whole game: players, options, every event with its time, the result, the record."""

    summary: GameSummary
    options: Mapping[str, Any]
    children_help: bool
    events: tuple[StoredEvent, ...]
    result: Mapping[str, Any] | None
    """Scores and winners once over; ``{"reason": …}`` for an aborted game."""
    record: Mapping[str, Any] = field(default_factory=dict)
    """The game record (``controller.rules.records``) of the moves that stand."""

    @property
    def id(self) -> int:
        return self.summary.id

    @property
    def game(self) -> str:
        return self.summary.game

    @property
    def players(self) -> tuple[PlayerRecord, ...]:
        return self.summary.players

    def to_dict(self) -> dict[str, Any]:
        out = self.summary.to_dict()
        out.update(
            options=dict(self.options),
            children_help=self.children_help,
            events=[e.to_dict() for e in self.events],
            result=None if self.result is None else dict(self.result),
            record=dict(self.record),
        )
        return out


@dataclass(frozen=True, slots=True)
class LeaderRow:
    name: str
    games: int
    """Finished games played."""
    wins: int
    """Games won, shared wins included."""
    points: int
    """Sum of scores (visible pearls, or Pyramidos points)."""
    computer: bool = False
    level: str | None = None
    """For the unnamed computer seats of one level (``name`` empty): that level."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "games": self.games,
            "wins": self.wins,
            "points": self.points,
            "computer": self.computer,
            "level": self.level,
        }

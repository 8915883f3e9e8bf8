"""The referee alone, in virtual time: a board of sensor names, a ledger for a store.

:class:`Play` holds a :class:`~controller.referee.state.RefereeState` and drives it exactly as
the Table does (every step through :func:`controller.table.carried`), but
time only moves when a test says so (:meth:`Play.wait`, which fires every timer that falls
due on the way) and the computer answers only when a test answers it. Nothing sleeps.

The :class:`Memory` ledger models what the referee needs of the store: numbered games,
events appended only to a game being played, a result or an abort ending it, and a
write fault that refuses every write until it is cleared. It does not model SQLite
(tests/table has the real store).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from controller.games.perlen.hints import Why
from controller.games.registry import GAMES
from controller.hardware.channels import ChannelMap
from controller.hardware.port import Led, Sound
from controller.referee import lights, referee, showing
from controller.referee.commands import Command, NewGame
from controller.referee.events import Aborted, Event, Result
from controller.referee.messages import Message, english
from controller.referee.snapshot import Snapshot
from controller.referee.state import AskComputer, PlaySound, RefereeConfig, RefereeState, Reply
from controller.store import PlayerRecord, StoreError, StoreWriteError
from controller.table import carried

_PATH = Path("memory")
FAST = RefereeConfig(
    games=GAMES,
    settle_s=0.5,
    together_s=0.25,
    leds=tuple(ChannelMap.default().led_by_name),
    levels=("gentle", "easy", "medium", "strong", "strongest"),
)
"""The rules of ``pyramid run`` (time is virtual, so the real holds cost nothing)."""


class Memory:
    """A ledger in memory (see the module docstring for what it models)."""

    def __init__(self) -> None:
        self.games: dict[int, dict[str, Any]] = {}
        self.fault: str | None = None

    def create_game(
        self,
        game: str,
        players: Sequence[PlayerRecord],
        options: dict[str, str | int],
        *,
        children_help: bool,
    ) -> int:
        self._check()
        number = len(self.games) + 1
        self.games[number] = {
            "game": game,
            "players": list(players),
            "options": options,
            "status": "playing",
            "events": [],
            "result": None,
        }
        return number

    def append(
        self, game_id: int, events: Sequence[Event], *, result: Result | None = None
    ) -> None:
        self._check()
        record = self.games[game_id]
        if record["status"] != "playing":
            raise StoreError(_PATH, f"game {game_id} is not being played")
        record["events"].extend(events)
        if any(isinstance(e, Aborted) for e in events):
            record["status"] = "aborted"
        if result is not None:
            record["status"], record["result"] = "over", result

    def _check(self) -> None:
        if self.fault is not None:
            raise StoreWriteError(_PATH, self.fault, f"cannot be written ({self.fault})")


class Play:
    """One table: the referee, a ledger, a clock that only moves when told."""

    def __init__(self, rules: RefereeConfig = FAST) -> None:
        self.state = RefereeState(config=rules)
        self.ledger = Memory()
        self.now = 1000.0
        self.seq = 0
        self.asked: list[AskComputer] = []
        self.sounds: list[Sound] = []
        self._shown: tuple[RefereeState, Snapshot] | None = None
        # As the Table does at its start: the board as it is found, an empty one here.
        self.adopt(referee.sensed(self.state, frozenset(), seq=0, now=self.now))

    # -- adopting steps as the Table does ----------------------------------------------------
    def adopt(self, step: referee.Step) -> Reply | None:
        """``step`` carried as the Table carries it (:func:`controller.table.carried`: stored
        first, then whatever timer fell due by now); the reply is the step's own."""
        reply = None
        for number, (_, adopted) in enumerate(carried(self.state, step, self.ledger, self.now)):
            self.state = adopted.state
            for effect in adopted.effects:
                if isinstance(effect, AskComputer):
                    self.asked.append(effect)
                elif isinstance(effect, PlaySound):
                    self.sounds.append(effect.sound)
            if number == 0:
                reply = adopted.reply
        return reply

    def do(self, command: Command) -> Reply:
        reply = self.adopt(referee.command(self.state, command, self.now))
        return reply or Reply(True)

    def new(
        self,
        game: str = "perlen-pyramide",
        players: Iterable[str] = ("Anna", "Ben", "Cleo"),
        **kw: Any,
    ) -> Play:
        reply = self.do(NewGame(game, tuple(players), **kw))
        assert reply.ok, reply.message and english(reply.message)
        return self

    # -- the board ---------------------------------------------------------------------------
    @property
    def names(self) -> frozenset[str]:
        return self.state.reading.names

    def set(self, names: Iterable[str]) -> Snapshot:
        self.seq += 1
        self.adopt(referee.sensed(self.state, frozenset(names), seq=self.seq, now=self.now))
        return self.snap

    def put(self, *names: str) -> Snapshot:
        return self.set(self.names | set(names))

    def lift(self, *names: str) -> Snapshot:
        return self.set(self.names - set(names))

    def press(self, button: str) -> Snapshot:
        self.put(button)
        return self.lift(button)

    def play(self, *cells: str, gap: float = 1.0) -> Snapshot:
        """Each cell placed as a person would: a moment apart, bonus pearls confirmed
        by going on."""
        for cell in cells:
            self.wait(gap)
            self.put(cell)
        return self.snap

    # -- time ------------------------------------------------------------------------------
    def wait(self, seconds: float) -> Snapshot:
        """Let ``seconds`` of virtual time pass, firing every timer due on the way."""
        end = self.now + seconds
        while True:
            deadline = referee.next_deadline(self.state)
            if deadline is None or deadline > end:
                break
            self.now = max(self.now, deadline)
            self.adopt(referee.Step(self.state))  # as the Table wakes: what fell due
        self.now = end
        return self.snap

    @property
    def rules(self) -> RefereeConfig:
        return self.state.config

    def settle(self, seconds: float) -> Snapshot:
        """The board stays as it is for ``seconds`` (the scripts' word for :meth:`wait`)."""
        return self.wait(seconds)

    # -- the computer ------------------------------------------------------------------------
    def answer(
        self,
        cell: str | None,
        *,
        purpose: str = "move",
        ask: AskComputer | None = None,
        why: Why | None = None,
    ) -> Snapshot:
        question = ask or next(a for a in reversed(self.asked) if a.purpose == purpose)
        step = referee.answered(self.state, question.purpose, question.token, cell, self.now, why)
        self.adopt(step)
        return self.snap

    # -- what it shows -----------------------------------------------------------------------
    @property
    def snap(self) -> Snapshot:
        # The snapshot is a pure function of the (immutable) state: made once per state,
        # however often a test looks (every set() and wait() returns it).
        shown = self._shown
        if shown is None or shown[0] is not self.state:
            shown = self._shown = (self.state, showing.of(self.state, version=0, at=0.0))
        return shown[1]

    @property
    def lit(self) -> dict[str, Led]:
        """The LED picture by name (lit LEDs only)."""
        return {n: led for n, led in lights.picture(self.state).items() if led.lit}

    @property
    def events(self) -> list[tuple[str, dict[str, Any]]]:
        """(kind, data) of every event stored for the current (or last) game."""
        number = max(self.ledger.games)
        return [(e.kind, e.data()) for e in self.ledger.games[number]["events"]]

    def said(self) -> str:
        """The status line in English: the note, then the prompt."""
        snap = self.snap
        return " ".join(english(m) for m in (*snap.note, *snap.prompt))


def text(messages: Iterable[Message]) -> str:
    return " ".join(english(m) for m in messages)

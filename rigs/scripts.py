"""Whole games as players would play them: scripts of steps, and what the store must hold.

The same scripts drive the pure referee (:class:`rigs.referee.Play`), the Table
on its thread (:class:`rigs.table.Harness`) and the SIGKILL test's own process.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Protocol

from controller.games.perlen import rules as perlen
from controller.games.perlen.commands import ConfirmBonus
from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.games.pyramidos import rules as pyramidos
from controller.referee.commands import Command
from controller.referee.snapshot import Snapshot
from controller.referee.state import RefereeConfig, Reply

NAMES = {"perlen-pyramide": ("Anna", "Ben", "Cleo"), "pyramidos": ("Anna", "Ben", "Cleo")}

HINTED_ENDGAME = tuple("c3 c4 b2 c2 d3 d5 e4 e5 b5 a5 a2 b3 e2 b4 d1 d4 c1".split())  # noqa: SIM905
"""Seventeen random pearls (random.Random(0) over the legal cells), colour 2 to move with
eight base cells left. The exact search (deterministic, a tenth of a second here) finds
that a4 wins the bonus pearl 2:a4 and makes exactly one visible pearl more than a1, the
next best cell: ``advise(state, budget=1.0)`` gives cell a4, wins (2:a4,), worth 1.0,
next_best a1, exact."""


@dataclass(frozen=True)
class Step:
    """One thing players do in a scripted game."""

    action: str
    """``place`` (a base pearl), ``lift`` (take the last back), ``confirm`` / ``page``
    (the bonus pearls placed, by button or page), ``undo`` (button), ``land``, ``leave``,
    ``end`` (Pyramidos; ``end`` by button)."""
    name: str = ""


def perlen_script(seed: int, options: perlen.PerlenOptions | None = None) -> list[Step]:
    """A whole random game of Perlen-Pyramide.

    Bonus pearls are acknowledged by the confirm button, the page, or the next pearl, at
    random; now and then a player lifts their pearl again (a take-back) and plays another.
    """
    rng = random.Random(seed)
    state = perlen.new_game(options)
    steps: list[Step] = []
    pending = False
    while not state.over:
        cell = rng.choice(perlen.legal_moves(state)).short
        if pending and rng.random() < 0.6:
            steps.append(Step(rng.choice(("confirm", "page"))))
        before = state
        state, bonuses = perlen.play(state, cell)
        steps.append(Step("place", cell))
        if not bonuses and not state.over and rng.random() < 0.1:
            steps.append(Step("lift", cell))
            state = before
            pending = False
            continue
        pending = bool(bonuses)
    return steps


def pyramidos_script(seed: int, seats: int = 3) -> list[Step]:
    """A whole random game of Pyramidos (landings, knock-offs, ended turns)."""
    rng = random.Random(seed)
    state = pyramidos.new_game(seats)
    steps: list[Step] = []
    while not state.over:
        event = rng.choice(pyramidos.legal_events(state))
        if isinstance(event, pyramidos.Leave) and rng.random() < 0.75:
            continue  # balls are knocked off now and then, not every other turn
        if isinstance(event, pyramidos.Land):
            steps.append(Step("land", str(event.target)))
        elif isinstance(event, pyramidos.Leave):
            steps.append(Step("leave", str(event.target)))
        else:
            steps.append(Step("end"))
        state = pyramidos.apply(state, event)
    return steps


def script_for(game: str, seed: int) -> list[Step]:
    return perlen_script(seed) if game == "perlen-pyramide" else pyramidos_script(seed, 3)


def expected_events(game: str, steps: list[Step]) -> list[list[tuple[str, dict[str, Any]]]]:
    """The events (kind, data) the store must hold after each step of ``steps``."""
    out: list[list[tuple[str, dict[str, Any]]]] = []
    if game == "perlen-pyramide":
        state = perlen.new_game()
        history: list[perlen.PerlenState] = []
        pending: tuple[perlen.Bonus, ...] = ()
        for step in steps:
            if step.action == "place":
                mover = state.to_move
                acks = [
                    ("bonus", {"pos": str(b.position), "colour": b.colour, "by": "pearl"})
                    for b in pending
                ]
                out.append([*acks, ("move", {"cell": step.name, "colour": mover})])
                history.append(state)
                state, pending = perlen.play(state, step.name)
            elif step.action in ("confirm", "page"):
                by = "button" if step.action == "confirm" else "page"
                out.append(
                    [
                        ("bonus", {"pos": str(b.position), "colour": b.colour, "by": by})
                        for b in pending
                    ]
                )
                pending = ()
            elif step.action == "lift":
                out.append([("undo", {"by": "lift", "what": step.name})])
                state, pending = history.pop(), ()
        return out
    pstate = pyramidos.new_game(3)
    for step in steps:
        seat = pstate.to_move
        if step.action == "land":
            out.append([("land", {"target": step.name, "seat": seat})])
            pstate = pyramidos.apply(pstate, pyramidos.parse_event(f"land {step.name}"))
        elif step.action == "leave":
            owner = pstate.targets()[step.name]
            out.append([("leave", {"target": step.name, "seat": owner})])
            pstate = pyramidos.apply(pstate, pyramidos.parse_event(f"leave {step.name}"))
        else:
            out.append([("end", {"seat": seat, "by": "button"})])
            pstate = pyramidos.apply(pstate, pyramidos.EndTurn())
    return out


def physical_after(board: set[str], step: Step) -> set[str]:
    """What lies on the board after a person did ``step`` (buttons are let go again)."""
    if step.action in ("place", "land"):
        return board | {step.name}
    if step.action in ("lift", "leave"):
        return board - {step.name}
    return board


class Table(Protocol):
    """What playing a script needs: the pure referee's Play or the Table's Harness."""

    @property
    def snap(self) -> Snapshot: ...

    def put(self, *names: str) -> Snapshot: ...

    def lift(self, *names: str) -> Snapshot: ...

    def press(self, button: str) -> Snapshot: ...

    def do(self, command: Command) -> Reply: ...

    def settle(self, seconds: float) -> Snapshot:
        """Let the board stay as it is for ``seconds`` (holds decide)."""

    @property
    def rules(self) -> RefereeConfig: ...


def play(t: Table, step: Step) -> Snapshot:
    """Do ``step`` on the board (or the page) and check the referee took it."""
    before = t.snap
    if step.action in ("place", "land"):
        t.settle(t.rules.together_s + 0.01)  # people take a moment between two moves
        snap = t.put(step.name)
        assert snap.moves == before.moves + 1, snap.to_json()
        return snap
    if step.action in ("lift", "leave"):
        t.lift(step.name)
        snap = t.settle(t.rules.settle_s + 0.05)
        wanted = before.moves - 1 if step.action == "lift" else before.moves + 1
        assert snap.moves == wanted, snap.to_json()
        return snap
    if step.action in ("confirm", "page"):
        if step.action == "confirm":
            snap = t.press("button:confirm")
        else:
            assert t.do(ConfirmBonus()).ok
            snap = t.snap
        assert perlen_parts(snap).pending == (), snap.to_json()
        return snap
    if step.action == "end":
        snap = t.press("button:end_turn")
        assert snap.moves == before.moves + 1, snap.to_json()
        return snap
    raise ValueError(f"unknown step {step}")

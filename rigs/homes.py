"""Two homes, each a ``pyramid run`` process on the simulated board, linked through one
broker (:mod:`rigs.mosquitto`): a home's program, its API client and its store, and the
checks the games across two boards wait for (tests/remote, bench/remote_attack.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.games.perlen.kind import PERLEN_PYRAMIDE
from controller.referee import shared_kinds
from controller.store import Store
from rigs.mosquitto import Mosquitto
from rigs.program import Client, Program, unlocked

SHARED = shared_kinds(PERLEN_PYRAMIDE)

WAIT = 30.0
PLAYERS = [
    {"name": "Oma", "colour": "red"},
    {"name": "Tim", "colour": "blue", "remote": True},
    {"name": "Opa", "colour": "yellow"},
]


class Home:
    """One home: its data folder, its config naming the broker, its running program."""

    def __init__(self, folder: Path, name: str, broker: Mosquitto) -> None:
        folder.mkdir()
        self.folder, self.name = folder, name
        self.config = folder / "pyramid.toml"
        self.config.write_text(
            f'[board]\nadapter = "sim"\n\n[remote]\n'
            f'broker = "mqtt://127.0.0.1:{broker.port}"\nname = "{name}"\n'
        )
        self.client = Client()
        self.placed = 0.0
        """When this home last made a move (monotonic)."""
        self.start()

    def start(self) -> None:
        self.program = Program(self.folder, "--config", str(self.config))
        self.url = unlocked(self.program, self.client)

    def state(self) -> Any:
        return self.client.get(self.url + "api/state")

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self.client.post(self.url + "api/" + path, body)

    def touch(self, cell: str, action: str = "toggle") -> Any:
        return self.post("virtual", {"name": cell, "action": action})

    def remote(self) -> dict[str, Any]:
        view: dict[str, Any] = self.state()["remote"]
        return view

    def shared(self) -> tuple[list[tuple[str, dict[str, Any]]], Any]:
        with Store(self.folder / "pyramid.sqlite3") as store:
            game = store.game(1)
            assert game is not None
            return [(e.kind, dict(e.data)) for e in game.events if e.kind in SHARED], game.result


def base_cells(state: Any) -> set[str]:
    return {p["pos"].split(":")[1] for p in state["pearls"] if p["pos"].startswith("1:")}


def matched(home: Home, moves: int) -> Any:
    """``home`` has ``moves`` moves and its wood matches them (pearls placed by hand)."""
    state = home.state()
    if state["moves"] != moves:
        return None
    for cell in base_cells(state) - set(_on_board(state)):
        home.touch(cell, "on")
    for cell in set(_on_board(state)) - base_cells(state):
        home.touch(cell, "off")
    state = home.state()
    return state if state["status"] in ("playing", "bonus", "over") else None


def has_moves(home: Home, moves: int) -> bool:
    return bool(home.state()["moves"] == moves)


def link_is(home: Home, key: str, value: object) -> bool:
    return bool(home.remote()[key] == value)


def _on_board(state: Any) -> list[str]:
    return [s for s in state["sensors"] if len(s) == 2 and s[0] in "abcde"]

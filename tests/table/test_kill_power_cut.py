"""After a power cut, the real program: the pearl placed in the dark, the finished game.

``pyramid run`` in a subprocess, driven over HTTP only, killed with SIGKILL: first while
a game is on, then the family puts the next pearl down while it is off (the virtual
board keeps its pieces in a file beside the store, as wood keeps its pearls), and the
program started again plays it as the move. Then the game is played to its 25th pearl
and the program killed the moment that move is answered: started again, the finished
game, its winner and its scores are on the page until a new game starts.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

from controller.store import Store
from rigs.program import Client, Program, unlocked

SEATS = (("Anna", "red"), ("Ben", "blue"), ("Cleo", "yellow"))


def lay(data: Path, pieces: set[str]) -> None:
    """The family's hands while the program is off: what lies on the virtual board."""
    keep = data / "virtual-board.json"
    keep.write_text(json.dumps({"version": 1, "pieces": sorted(pieces)}), encoding="utf-8")


def place(client: Client, url: str, cell: str) -> dict[str, Any]:
    """Put a pearl on ``cell`` as a person does: a pearl put down too soon after the last
    one counts as placed together with it (``together_s``), so a person lifts it and puts
    it down again, until it is the move (or a deadline says it never will be)."""
    end = time.monotonic() + 10
    before = client.get(url + "api/state")["moves"]
    while True:
        answer: dict[str, Any] = client.post(url + "api/virtual", {"name": cell, "action": "on"})
        if answer["moves"] > before or time.monotonic() > end:
            return answer
        client.post(url + "api/virtual", {"name": cell, "action": "off"})


def page(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode())


def test_the_pearl_placed_in_the_dark_and_the_finished_game_survive_sigkill(
    tmp_path: Path,
) -> None:
    client = Client()
    program = Program(tmp_path)
    try:
        url = unlocked(program, client)
        players = [{"name": n, "colour": c} for n, c in SEATS]
        client.post(url + "api/game", {"game": "perlen-pyramide", "players": players})
        for cell in ("c3", "d4"):
            assert place(client, url, cell)["ok"]
    finally:
        program.kill()
    lay(tmp_path, {"c3", "d4", "d3"})  # Cleo's pearl, put down while the power was off

    program = Program(tmp_path)
    try:
        url = unlocked(program, client)
        state: dict[str, Any] = client.get(url + "api/state")
        assert state["moves"] == 3 and state["last_move"] == "d3", state
        assert state["status"] == "playing" and state["to_move"] == 0
        with Store(tmp_path / "pyramid.sqlite3") as store:
            game = store.unfinished()
            assert game is not None
            assert [e.data["cell"] for e in game.events if e.kind == "move"] == ["c3", "d4", "d3"]
        # Play on to the 25th pearl; the program dies the moment that move is answered.
        while not state["over"]:
            if state["pending"]:
                client.post(url + "api/command/confirm", {})
            else:
                place(client, url, state["legal"][0])
            state = client.get(url + "api/state")
        ended = state
    finally:
        program.kill()

    program = Program(tmp_path)
    try:
        url = unlocked(program, client)
        state = client.get(url + "api/state")
        assert state["over"] and state["status"] == "over" and state["game_id"] == ended["game_id"]
        assert state["winners"] == ended["winners"] and state["scores"] == ended["scores"]
        assert "play_again" in state["commands"]
        live = page(url)
        assert "No game is being played" not in live and "wins!" in live
        # Until a new game starts.
        assert client.post(url + "api/command/play_again", {})["ok"]
        state = client.get(url + "api/state")
        assert state["game_id"] == ended["game_id"] + 1 and not state["over"]
    finally:
        program.kill()

"""A move the page was told about survives a crash right after the telling.

Issue 15: ``POST /api/virtual`` answered before the Table had stored the move, and a
``pyramid run`` killed right after the 200 lacked the move after its restart in 2 to 8
of about 20 tries. Now the answer waits for the Table (``Table.handled``): the move is
committed (``synchronous=FULL``) before the 200 leaves.

The real program in a subprocess, driven over HTTP only, as an outside client would:
each round starts it, makes the virtual board match the stored game, places one pearl,
and sends SIGKILL the moment the 200 has been read; the store must then hold exactly
the moves that were answered, none lost and none invented. (SIGKILL keeps the page
cache; what a power cut can lose is tests/store/test_durability.py's subject.)
"""

from __future__ import annotations

from pathlib import Path

from controller.store import Store
from rigs.program import Client, Program, unlocked

ROUNDS = 12


def test_a_move_answered_is_a_move_kept_across_sigkill(tmp_path: Path) -> None:
    client = Client()
    played: list[str] = []
    for round_ in range(ROUNDS):
        program = Program(tmp_path)
        try:
            url = unlocked(program, client)  # the first start logs the PIN; the cookie stays
            if round_ == 0:
                seats = (("Anna", "red"), ("Ben", "blue"), ("Cleo", "yellow"))
                players = [{"name": n, "colour": c} for n, c in seats]
                client.post(url + "api/game", {"game": "perlen-pyramide", "players": players})
            # The stored game is back; lay its pearls on the (virtual) board again.
            for cell in played:
                client.post(url + "api/virtual", {"name": cell, "action": "on"})
            state = client.get(url + "api/state")
            assert state["moves"] == len(played) and state["status"] in ("playing", "bonus"), state
            cell = state["legal"][0]
            answer = client.post(url + "api/virtual", {"name": cell, "action": "on"})
            program.kill()  # the moment the 200 is read
        finally:
            if program.proc.poll() is None:
                program.kill()
        assert answer["moves"] == len(played) + 1, answer
        played.append(cell)
        with Store(tmp_path / "pyramid.sqlite3") as store:
            game = store.unfinished()
            assert game is not None
            moves = [e.data["cell"] for e in game.events if e.kind == "move"]
        assert moves == played, f"round {round_}: answered {played}, stored {moves}"

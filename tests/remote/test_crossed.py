"""A take-back that crossed a move, played to the end of the game: two ``pyramid run``
processes on the simulated board, one Mosquitto on loopback (rigs/mosquitto.py).

Oma's board invites (Oma and Opa play there, Tim at the other home). Twice the broker is
stopped and each home acts on the same position while apart:

1. Tim has just moved at his home; Opa moves at Oma's, and Tim takes his move back. The
   inviting board's order stands: Tim's take-back is refused on both boards. His board
   undoes it (its store and its page), says so, and its wood must match again: his pearl
   goes back and Opa's is placed, as the normal mismatch shows.
2. Oma has just moved; she takes it back at her home while Tim moves at his. Her take-back
   stands on both boards; Tim's move is undone at his, and his wood loses both pearls.

After each, the program of the board that undid or crossed something is killed and
started again (its store and its record of those numbers rebuild the link). Then the
game is played to its end. Both stores hold the same shared events and result,
no link stopped, and nothing is left "not yet delivered". The people here are the test's
touches through each program's ``/api/virtual`` (the simulated board's sensors).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from controller.remote.stored import LinkRecord
from controller.store import Store
from rigs.homes import PLAYERS, WAIT, Home, has_moves, link_is, matched
from rigs.mosquitto import Mosquitto
from rigs.poll import wait_until


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    with Mosquitto(tmp_path) as running:
        yield running


def touch(home: Home, cell: str, action: str) -> Any:
    # A person's pace: a pearl within together_s (0.25 s) of the last one placed at the
    # same board counts as placed together with it (a mismatch, by design).
    time.sleep(max(0.0, home.placed + 0.3 - time.monotonic()))
    done = home.touch(cell, action)
    home.placed = time.monotonic()
    return done


def apart(broker: Mosquitto, homes: tuple[Home, Home]) -> None:
    """The broker goes away and both boards know it."""
    broker.stop()
    for home in homes:
        wait_until(partial(link_is, home, "connection", "unreachable"), WAIT, what=home.remote)


def test_a_crossed_take_back_is_played_to_the_end_on_both_boards(
    broker: Mosquitto, tmp_path: Path
) -> None:
    rng = random.Random(31)
    oma = Home(tmp_path / "oma", "Oma", broker)
    tim = Home(tmp_path / "tim", "Tim", broker)
    homes = (oma, tim)
    crossings: list[str] = []
    try:
        answer = oma.post("game", {"game": "perlen-pyramide", "players": PLAYERS})
        assert tim.post("remote/join", {"code": answer["code"]})["ok"]
        wait_until(lambda: tim.state()["game_id"], WAIT)
        wait_until(lambda: tim.remote()["peer_name"] == "Oma", WAIT, what=tim.remote)
        moves = 0
        made: list[tuple[Home, str]] = []  # the game's moves: where each was made, its cell
        for _turn in range(80):  # 25 moves and the crossings; never forever
            if oma.state()["over"] and tim.state()["over"]:
                break
            state = wait_until(partial(matched, oma, moves), WAIT, what=oma.state)
            wait_until(partial(matched, tim, moves), WAIT, what=tim.state)
            if state["over"]:
                break
            mover = state["players"][state["to_move"]]
            home = tim if mover["remote"] else oma
            other = oma if home is tim else tim
            last = made[-1][0] if made else None
            here = home.state()
            cell = rng.choice(here["legal"])
            if not crossings and moves >= 4 and home is oma and last is tim:
                # 1. Tim moved last at his home; Opa moves at Oma's, Tim takes his back.
                tims = made[-1][1]
                apart(broker, homes)
                assert touch(oma, cell, "on")["moves"] == moves + 1
                assert tim.post("command/undo", {})["ok"]
                assert touch(tim, tims, "off")["moves"] == moves - 1
                assert tim.remote()["unsent"] == 1
                broker.start()
                moves += 1  # Opa's move stands; Tim's take-back is refused on both
                wait_until(partial(has_moves, tim, moves), WAIT, what=tim.state)
                said = tim.state()
                assert {"key": "remote_crossed", "params": {"name": "Oma"}} in said["note"]
                # His wood lacks his own pearl and Opa's: the board's usual mismatch.
                assert {m["cell"] for m in said["mismatches"]} == {tims, cell}
                made.append((oma, cell))
                crossings.append("take-back refused")
                # Tim's program stops and starts again: its store and the record of the
                # undone take-back give the link the same numbers as before.
                tim.program.kill()
                tim.start()
                continue
            if len(crossings) == 1 and moves >= 8 and home is tim and last is oma:
                # 2. Oma moved last; she takes it back while Tim moves at his home.
                omas = made[-1][1]
                apart(broker, homes)
                assert oma.post("command/undo", {})["ok"]
                assert touch(oma, omas, "off")["moves"] == moves - 1
                assert touch(tim, cell, "on")["moves"] == moves + 1
                broker.start()
                moves -= 1  # Oma's take-back stands on both; Tim's move is undone
                wait_until(partial(has_moves, tim, moves), WAIT, what=tim.state)
                wait_until(partial(has_moves, oma, moves), WAIT, what=oma.state)
                said = tim.state()
                assert {m["cell"] for m in said["mismatches"]} == {omas, cell}
                made.pop()
                crossings.append("take-back carried out")
                oma.program.kill()  # and Oma's, with the crossed move of Tim's in its record
                oma.start()
                continue
            done = touch(home, cell, "on")
            assert done["moves"] == moves + 1, (done["note"], done["prompt"])
            made.append((home, cell))
            moves += 1
            wait_until(partial(has_moves, other, moves), WAIT, what=other.state)
        else:
            pytest.fail(f"the game did not end: {oma.state()['moves']} moves")
        assert crossings == ["take-back refused", "take-back carried out"]
        for home in homes:
            wait_until(partial(link_is, home, "unsent", 0), WAIT, what=home.remote)
            assert home.remote()["stopped"] is None
    finally:
        for home in homes:
            home.program.kill()
    # Each board keeps the numbers of what it never applied or undid: Tim's take-back and
    # Tim's move, crossed at Oma's board and undone at Tim's.
    records = []
    for home in homes:
        with Store(home.folder / "pyramid.sqlite3") as store:
            text = store.get_setting("remote.game.1")
            assert text is not None
            records.append(LinkRecord.read(text))
    assert [seq for seq, _, _ in records[0].void_there] == [e for e, _, _ in records[1].void_here]
    assert [e["kind"] for _, _, e in records[1].void_here] == ["undo", "move"]
    oma_log, oma_result = oma.shared()
    tim_log, tim_result = tim.shared()
    assert oma_log == tim_log and oma_result == tim_result
    kinds = [kind for kind, _ in oma_log]
    assert kinds.count("undo") == 1 and kinds.count("move") == moves + 1
    assert oma_result is not None and oma_result["winners"]

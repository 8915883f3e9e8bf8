"""The way back from a disagreement no family causes: the joining board takes the inviting
board's record, and the game goes on to its end. Two ``pyramid run`` processes on the
simulated board, one Mosquitto on loopback (rigs/mosquitto.py).

The disagreement is made as a fault would make it: while Tim's program is stopped, his
store's copy of Oma's last move is changed to another cell (a card that kept the wrong
bytes, or a bug; what a family never does). Tim's board then shows her pearl elsewhere,
and Tim moves onto the cell where it really is: Oma's game refuses that move. Her board
keeps going (its order stands) and says so in every message; Tim's link stops and offers
to take her record. Taken, Tim's board has her game again (his refused move undone) and
shows what to take off and put back; the game is played to its end, and both stores end
equal. The same way back when Oma's store is the one that changed and her board sends
her last move again, with other content under its number: Tim's board says the boards
disagree (``differs``) instead of dropping it as a duplicate.
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from rigs.homes import PLAYERS, WAIT, Home, has_moves, link_is, matched
from rigs.mosquitto import Mosquitto
from rigs.poll import wait_until


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    with Mosquitto(tmp_path) as running:
        yield running


def touch(home: Home, cell: str, action: str) -> Any:
    time.sleep(max(0.0, home.placed + 0.3 - time.monotonic()))  # a person's pace
    done = home.touch(cell, action)
    home.placed = time.monotonic()
    return done


def linked_again(home: Home) -> bool:
    """The link made again from the record: there, connected, not stopped."""
    remote = home.state()["remote"]
    return bool(remote and remote["stopped"] is None and remote["connection"] == "connected")


def corrupt_last_move(home: Home, cell: str) -> str:
    """Change the cell of the last move in ``home``'s store (its program stopped): the
    cell it had."""
    with sqlite3.connect(home.folder / "pyramid.sqlite3") as db:
        seq, data = db.execute(
            "SELECT seq, data FROM events WHERE game_id=1 AND kind='move' ORDER BY seq DESC"
        ).fetchone()
        move = json.loads(data)
        was: str = move["cell"]
        move["cell"] = cell
        db.execute("UPDATE events SET data=? WHERE game_id=1 AND seq=?", (json.dumps(move), seq))
    return was


def tim_moves_where_his_store_is_wrong(oma: Home, tim: Home, cell: str, elsewhere: str) -> None:
    """Tim's store says Oma's last pearl went ``elsewhere``; he moves onto ``cell``, free on
    his board only: Oma's game refuses it, and says so."""
    tim.program.kill()
    assert corrupt_last_move(tim, elsewhere) == cell
    tim.start()
    wait_until(partial(matched, tim, oma.state()["moves"]), WAIT, what=tim.state)
    assert touch(tim, cell, "on")["moves"] == oma.state()["moves"] + 1


def oma_sends_her_last_move_again_changed(oma: Home, tim: Home, cell: str, elsewhere: str) -> None:
    """Oma's store says her last pearl went ``elsewhere`` and that Tim has not yet
    acknowledged it (a backup put back, say): she sends it again under its number, with
    other content. Tim's board says the boards disagree instead of taking it as a
    duplicate."""
    oma.program.kill()
    assert corrupt_last_move(oma, cell=elsewhere) == cell
    with sqlite3.connect(oma.folder / "pyramid.sqlite3") as db:
        (text,) = db.execute("SELECT value FROM settings WHERE key='remote.game.1'").fetchone()
        record = json.loads(text)
        record["acked"] = 0
        db.execute("UPDATE settings SET value=? WHERE key='remote.game.1'", (json.dumps(record),))
    oma.start()
    wait_until(lambda: tim.remote()["counts"]["differs"] >= 1, WAIT, what=tim.remote)


Fault = Callable[[Home, Home, str, str], None]


@pytest.mark.parametrize(
    "fault", [tim_moves_where_his_store_is_wrong, oma_sends_her_last_move_again_changed]
)
def test_a_joining_board_takes_the_inviting_boards_record_and_the_game_ends(
    broker: Mosquitto, tmp_path: Path, fault: Fault
) -> None:
    rng = random.Random(32)
    oma = Home(tmp_path / "oma", "Oma", broker)
    tim = Home(tmp_path / "tim", "Tim", broker)
    homes = (oma, tim)
    took = False
    try:
        answer = oma.post("game", {"game": "perlen-pyramide", "players": PLAYERS})
        assert tim.post("remote/join", {"code": answer["code"]})["ok"]
        wait_until(lambda: tim.state()["game_id"], WAIT)
        wait_until(lambda: tim.remote()["peer_name"] == "Oma", WAIT, what=tim.remote)
        moves = 0
        for _turn in range(80):
            state = wait_until(partial(matched, oma, moves), WAIT, what=oma.state)
            wait_until(partial(matched, tim, moves), WAIT, what=tim.state)
            if state["over"]:
                break
            mover = state["players"][state["to_move"]]
            home = tim if mover["remote"] else oma
            other = oma if home is tim else tim
            legal = home.state()["legal"]
            cell = rng.choice(legal)
            if not took and moves >= 3 and home is oma and len(legal) > 1:
                next_is_tim = state["players"][(state["to_move"] + 1) % 3]["remote"]
                if next_is_tim:
                    # Oma moves; then one of the two stores says her pearl went elsewhere.
                    assert touch(oma, cell, "on")["moves"] == moves + 1
                    moves += 1
                    wait_until(partial(has_moves, tim, moves), WAIT, what=tim.state)
                    fault(oma, tim, cell, rng.choice([c for c in legal if c != cell]))
                    wait_until(lambda: tim.remote()["stopped"], WAIT, what=tim.remote)
                    assert tim.remote()["can_take_record"] and oma.state()["moves"] == moves
                    assert tim.post("remote/take-record", {})["ok"]
                    wait_until(partial(linked_again, tim), WAIT, what=tim.state)
                    said = wait_until(partial(has_moves, tim, moves), WAIT, what=tim.state)
                    assert said
                    note = tim.state()["note"]
                    assert {"key": "remote_took_record", "params": {"name": "Oma"}} in note
                    took = True
                    continue
            done = touch(home, cell, "on")
            assert done["moves"] == moves + 1, (done["note"], done["prompt"])
            moves += 1
            wait_until(partial(has_moves, other, moves), WAIT, what=other.state)
        else:
            pytest.fail(f"the game did not end: {oma.state()['moves']} moves")
        assert took
        for home in homes:
            wait_until(partial(link_is, home, "unsent", 0), WAIT, what=home.remote)
            assert home.remote()["stopped"] is None
    finally:
        for home in homes:
            home.program.kill()
    oma_log, oma_result = oma.shared()
    tim_log, tim_result = tim.shared()
    assert oma_log == tim_log and oma_result == tim_result
    assert oma_result is not None and oma_result["winners"]

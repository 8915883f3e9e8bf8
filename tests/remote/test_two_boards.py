"""Two homes, one game, for real: two ``pyramid run`` processes on the simulated board,
one Mosquitto on loopback, a whole game played through each side's ``/api/virtual``.

Oma's board invites (``POST /api/game`` with Tim's seat marked remote), Tim's joins with
the code. On the way the broker is stopped for a few seconds (a move made meanwhile is
kept, shown as not yet delivered and sent when it is back), a move is taken back where it
was made (and taken off the other board), Tim's program is SIGKILLed
and started again (it catches up from its store and the broker; its empty wooden board
is set again by hand, as a family would), and a stranger who knows the room but not the
key publishes moves, which are ignored. Both stores end with the same moves and result.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.remote.invitation import new_code
from controller.remote.wire import Kind, Side, derive_keys
from rigs.homes import PLAYERS, WAIT, Home, has_moves, link_is, matched
from rigs.mosquitto import Mosquitto
from rigs.network import link_of
from rigs.poll import wait_until


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    with Mosquitto(tmp_path) as running:
        yield running


def stranger_publishes(broker: Mosquitto, code: str) -> None:
    """Someone on the broker who knows the room (the topics) but not the key."""
    real = derive_keys(code)
    keys = dataclasses.replace(derive_keys(new_code()), room=real.room)
    link = link_of("intruder", "Eve", Side.INVITER, keys=keys)
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="eve")
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    step = link.connected(0.0)
    for n in range(3):
        step = step.link.send({"kind": "move", "cell": "a1", "colour": n % 3}, 0.0)
        for message in step.publish:
            client.publish(message.topic, message.payload, qos=1).wait_for_publish(5)
    client.publish(real.topic(Side.INVITER, Kind.EVENT), b"not even sealed", qos=1)
    client.disconnect()
    client.loop_stop()


def test_two_boards_play_a_whole_game_through_faults(broker: Mosquitto, tmp_path: Path) -> None:
    rng = random.Random(25)
    oma = Home(tmp_path / "oma", "Oma", broker)
    tim = Home(tmp_path / "tim", "Tim", broker)
    homes = {"Oma": oma, "Tim": tim}
    try:
        answer = oma.post("game", {"game": "perlen-pyramide", "players": PLAYERS})
        code = answer["code"]
        assert answer["ok"] and len(code) == 14
        assert tim.post("remote/join", {"code": code.lower().replace("-", " ")})["code"] == code
        joined = wait_until(lambda: tim.state()["game_id"] and tim.state(), WAIT)
        assert [p["remote"] for p in joined["players"]] == [True, False, True]
        wait_until(lambda: tim.remote()["peer_name"] == "Oma", WAIT, what=tim.remote)
        moves = 0
        taken_back = False
        for _turn in range(60):  # 25 moves and one taken back; never forever
            if oma.state()["over"]:
                break
            state = wait_until(partial(matched, oma, moves), WAIT, what=oma.state)
            mover = state["players"][state["to_move"]]
            home = tim if mover["remote"] else oma
            other = oma if home is tim else tim
            here = wait_until(partial(matched, home, moves), WAIT, what=home.state)
            cell = rng.choice(here["legal"])
            if moves == 6:  # the broker goes away; the move is kept and shown as such
                broker.stop()
                wait_until(partial(link_is, home, "connection", "unreachable"), WAIT)
            # A person's pace: a pearl within together_s (0.25 s) of the last one placed at
            # the same board counts as placed together with it (a mismatch, by design).
            time.sleep(max(0.0, home.placed + 0.3 - time.monotonic()))
            done = home.touch(cell, "on")
            home.placed = time.monotonic()
            assert done["moves"] == moves + 1, (done["note"], done["prompt"])
            moves += 1
            if moves == 7:
                assert home.remote()["unsent"] >= 1
                with home.client.opener.open(home.url, timeout=10) as page:
                    assert "not yet delivered to the other board." in page.read().decode()
                broker.start()
            if moves == 12:  # Tim's program dies and comes back; his wood is set again
                tim.program.kill()
                tim.start()
            if moves == 15:
                stranger_publishes(broker, code)
            if moves == 9 and not taken_back:  # a change of mind: taken back where it was
                taken_back = True  # made, shown on both
                wait_until(partial(has_moves, other, moves), WAIT, what=other.state)
                assert home.post("command/undo", {})["ok"]
                home.touch(cell, "off")
                moves -= 1
            wait_until(partial(has_moves, other, moves), WAIT, what=other.state)
        else:
            pytest.fail(f"the game did not end: {oma.state()['moves']} moves")
        for home in homes.values():
            wait_until(partial(link_is, home, "unsent", 0), WAIT, what=home.remote)
        assert tim.remote()["counts"]["wrong_key"] + tim.remote()["counts"]["malformed"] >= 1
    finally:
        for home in homes.values():
            home.program.kill()
    oma_log, oma_result = oma.shared()
    tim_log, tim_result = tim.shared()
    assert oma_log == tim_log and oma_result == tim_result
    kinds = [kind for kind, _ in oma_log]
    assert (kinds.count("move"), kinds.count("undo"), kinds[-1]) == (moves + 1, 1, "move")
    assert oma_result is not None and oma_result["winners"]

"""The API of games across two boards: inviting, joining, and what bad input gets.

The link itself is tested through a real broker in tests/remote (``test_two_boards.py``
plays a whole game across two ``pyramid run`` processes); here the link points at a
loopback port where no broker listens, which is all the input checks and the snapshot's
``remote`` (a board still connecting) need.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from controller.config import RemoteConfig
from rigs.mosquitto import free_port
from rigs.web import Rig, build_rig, close_rig, unlocked

PLAYERS: list[dict[str, object]] = [
    {"name": "Oma", "colour": "red"},
    {"name": "Tim", "colour": "blue", "remote": True},
    {"name": "Opa", "colour": "yellow"},
]


@pytest.fixture
def linked(tmp_path: Path) -> Iterator[Rig]:
    config = RemoteConfig(broker=f"mqtt://127.0.0.1:{free_port()}", name="Oma")
    built = build_rig(tmp_path, remote=config)
    yield built
    close_rig(built)


@pytest.fixture
def linked_admin(linked: Rig) -> tuple[FlaskClient, dict[str, str]]:
    """An unlocked client of the linked rig's page and the headers its JSON writes need."""
    client = linked.app.test_client()
    return client, {"X-CSRFToken": unlocked(client)}


def test_a_remote_seat_needs_a_broker(rig: Rig, admin: tuple[FlaskClient, dict[str, str]]) -> None:
    client, headers = admin
    body = {"game": "perlen-pyramide", "players": PLAYERS}
    answer = client.post("/api/game", json=body, headers=headers)
    assert answer.status_code == 400
    assert "players[1].remote" in answer.get_json()["error"]
    joined = client.post("/api/remote/join", json={"code": "7KQM-X4PA-9HZD"}, headers=headers)
    assert joined.status_code == 400 and "code" in joined.get_json()["error"]
    assert rig.snapshot()["remote"] is None


def test_inviting_answers_with_a_code_and_the_snapshot_shows_the_link(
    linked: Rig, linked_admin: tuple[FlaskClient, dict[str, str]]
) -> None:
    client, headers = linked_admin
    wrong: list[dict[str, object]] = [dict(p) for p in PLAYERS]
    wrong[1]["remote"] = "yes please"
    bad = client.post(
        "/api/game", json={"game": "perlen-pyramide", "players": wrong}, headers=headers
    )
    assert bad.status_code == 400 and "players[1].remote" in bad.get_json()["error"]
    answer = client.post(
        "/api/game", json={"game": "perlen-pyramide", "players": PLAYERS}, headers=headers
    )
    assert answer.status_code == 200
    code = answer.get_json()["code"]
    snap = linked.wait(lambda s: s["remote"] is not None and s["remote"]["code"] == code)
    assert [p["remote"] for p in snap["players"]] == [False, True, False]
    remote = snap["remote"]
    assert (remote["side"], remote["unsent"], remote["peer_name"]) == ("a", 1, None)
    assert remote["connection"] in ("connecting", "unreachable")
    # Nobody on this board may move for Tim.
    linked.place("c3")
    snap = linked.wait(lambda s: s["moves"] == 1)
    linked.place("b2")
    snap = linked.wait(lambda s: s["status"] == "mismatch")
    assert snap["moves"] == 1


@pytest.mark.parametrize(
    ("code", "says"),
    [("7KQM-X4PA-9HZ", "12 characters"), ("7KQM-X4PA-0HZD", "0"), ("7KQM-X4PA-9HDZ", "swapped")],
)
def test_a_bad_code_gets_a_400_saying_what_is_wrong(
    linked: Rig, linked_admin: tuple[FlaskClient, dict[str, str]], code: str, says: str
) -> None:
    client, headers = linked_admin
    answer = client.post("/api/remote/join", json={"code": code}, headers=headers)
    assert answer.status_code == 400
    error = answer.get_json()["error"]
    assert error.startswith("code") and says in error, error
    missing = client.post("/api/remote/join", json={}, headers=headers)
    assert missing.status_code == 400 and "code" in missing.get_json()["error"]


def test_the_pages_invite_and_join_without_script(
    linked: Rig, linked_admin: tuple[FlaskClient, dict[str, str]]
) -> None:
    client, headers = linked_admin
    token = headers["X-CSRFToken"]
    setup = client.get("/setup").get_data(as_text=True)
    assert '<option value="remote">a person on another board</option>' in setup
    assert 'href="/join"' in setup
    form = {"csrf_token": token, "game": "perlen-pyramide", "first_seat": "0"}
    for seat, (name, colour) in enumerate([("Oma", "red"), ("Tim", "blue"), ("Opa", "yellow")]):
        form |= {f"name_{seat}": name, f"colour_{seat}": colour, f"computer_{seat}": ""}
    form["computer_1"] = "remote"
    assert client.post("/setup", data=form).status_code == 302
    snap = linked.wait(lambda s: s["remote"] is not None and s["remote"]["code"] is not None)
    code = snap["remote"]["code"]
    assert [p["remote"] for p in snap["players"]] == [False, True, False]
    live = client.get("/").get_data(as_text=True)
    assert f'<strong class="code" data-code>{code}</strong>' in live
    assert "Invitation code for the other home:" in live
    assert "not yet delivered" not in live  # the game itself is what waits for them
    settings = client.get("/settings").get_data(as_text=True)
    assert "Playing with another home" in settings
    german = client.get("/settings", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Mit einem anderen Zuhause spielen" in german
    page = client.get("/join").get_data(as_text=True)
    assert 'name="code"' in page
    wrong = client.post("/join", data={"csrf_token": token, "code": "7KQM-X4PA-9HDZ"})
    assert wrong.status_code == 400
    assert "That is not the code" in wrong.get_data(as_text=True)
    assert client.post("/join", data={"csrf_token": token, "code": code}).status_code == 302
    snap = linked.wait(lambda s: s["remote"] is not None and s["remote"]["side"] == "b")
    assert snap["remote"]["code"] == code


def test_without_a_broker_the_pages_say_how_to_get_one(
    rig: Rig, admin: tuple[FlaskClient, dict[str, str]]
) -> None:
    client, headers = admin
    assert "remote" not in client.get("/setup").get_data(as_text=True).split("<form")[1]
    page = client.get("/join").get_data(as_text=True)
    assert "add [remote] to its config file" in page
    joined = client.post("/join", data={"csrf_token": headers["X-CSRFToken"], "code": "x"})
    assert joined.status_code == 400

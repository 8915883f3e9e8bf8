"""One rule for every JSON write: a body that does not parse, an unknown field, a wrong
type, NaN or Infinity is a 400 naming the field, and nothing changes.

Against the real rig (SimBoard -> Table -> Store -> the app): each refused body is
checked to have left the game, the board, the store and the settings as they were.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from controller.settings import PIN_HASH_KEY, Settings
from rigs.web import PIN, Rig, csrf

WRITES = (
    "/api/unlock",
    "/api/lock",
    "/api/pin",
    "/api/game",
    "/api/command/confirm",
    "/api/command/undo",
    "/api/command/abort",
    "/api/command/end_turn",
    "/api/command/hint",
    "/api/command/play_again",
    "/api/led-test",
    "/api/virtual",
    "/api/settings",
)

UNPARSABLE: list[tuple[str, bytes, str]] = [
    ("980 nested arrays (issue 15)", b"[" * 980 + b"]" * 980, "nested too deeply"),
    ("nested objects", b'{"a":' * 3000 + b"1" + b"}" * 3000, "nested too deeply"),
    ("9 levels", b"[" * 9 + b"]" * 9, "nested too deeply"),
    ("invalid UTF-8", b'{"pin": "\xff\xfe"}', "not UTF-8"),
    ("UTF-16", '{"pin": "1"}'.encode("utf-16"), "not UTF-8"),
    ("NaN", b'{"pin": NaN}', "NaN is not a JSON number"),
    ("Infinity", b'{"led": "all", "colour": [Infinity, 0, 0]}', "Infinity is not"),
    ("-Infinity", b'{"stop": -Infinity}', "-Infinity is not"),
    ("a float too large", b'{"first_seat": 1e999}', "too large"),
    ("5000 digits", b'{"first_seat": ' + b"9" * 5000 + b"}", "cannot be read"),
    ("a lone surrogate", b'{"name": "\\ud800"}', "lone surrogate"),
    ("cut short", b'{"name": "c3"', "not JSON"),
    ("two values", b"{} {}", "not JSON"),
    ("not JSON at all", b"name=c3", "not JSON"),
]


def state_of(rig: Rig) -> tuple[Any, ...]:
    """Everything a write could change on the server."""
    snap = rig.snapshot()
    return (
        snap["version"],
        snap["moves"],
        rig.board.read().active,
        rig.store.get_setting(PIN_HASH_KEY),
        rig.store.get_setting("web.language"),
        rig.store.count_games(),
    )


@pytest.fixture
def playing(
    rig: Rig, admin: tuple[FlaskClient, dict[str, str]]
) -> tuple[FlaskClient, dict[str, str]]:
    """An unlocked client while a game with one pearl is being played (so Undo and Abort
    would change something if a junk body got through)."""
    rig.new_perlen()
    rig.place("c3")
    rig.wait(lambda s: s["moves"] == 1)
    return admin


@pytest.mark.parametrize(("what", "body", "words"), UNPARSABLE, ids=[u[0] for u in UNPARSABLE])
def test_a_body_that_does_not_parse_is_a_400_on_every_write(
    rig: Rig, playing: tuple[FlaskClient, dict[str, str]], what: str, body: bytes, words: str
) -> None:
    client, headers = playing
    before = state_of(rig)
    for path in WRITES:
        response = client.post(path, data=body, content_type="application/json", headers=headers)
        assert response.status_code == 400, (path, response.get_data(as_text=True))
        answer = response.get_json()
        assert answer["ok"] is False and words in answer["error"], (path, answer)
        assert answer["field"] in ("body", "name"), answer
    assert state_of(rig) == before


def test_a_key_given_twice_is_refused_by_name(
    rig: Rig, admin: tuple[FlaskClient, dict[str, str]]
) -> None:
    client, headers = admin
    response = client.post(
        "/api/virtual",
        data=b'{"name": "c3", "name": "d4"}',
        content_type="application/json",
        headers=headers,
    )
    assert response.status_code == 400
    assert response.get_json() == {
        "ok": False,
        "error": "name: is given twice",
        "field": "name",
        "errors": [{"field": "name", "error": "is given twice"}],
    }
    assert rig.board.read().active == frozenset()


def test_a_command_takes_an_empty_object_or_nothing_and_refuses_junk(
    rig: Rig, playing: tuple[FlaskClient, dict[str, str]]
) -> None:
    client, headers = playing
    before = state_of(rig)
    body: object
    for body in ({"force": True}, {"": 1}, [], "undo", 0, None):
        raw = json.dumps(body)  # null too: only an empty body is no body
        response = client.post(
            "/api/command/undo", data=raw, content_type="application/json", headers=headers
        )
        assert response.status_code == 400, body
        answer = response.get_json()
        assert answer["field"] in ("force", "", "body"), answer
    junk = client.post("/api/command/abort", json={"really": "yes"}, headers=headers)
    assert junk.get_json()["error"] == ("really: unknown field (known: none: send {} or nothing)")
    assert state_of(rig) == before  # neither undone nor aborted
    # An empty body, whatever it says it is, is {}: `curl -X POST` undoes the move.
    undo = client.post("/api/command/undo", headers=headers)
    assert undo.status_code == 200, undo.get_json()
    assert rig.wait(lambda s: s["moves"] == 0)
    abort = client.post("/api/command/abort", json={}, headers=headers)
    assert abort.status_code == 200
    assert rig.wait(lambda s: s["game"] is None)


def test_led_test_refuses_unknown_fields_nan_and_stop_with_a_colour(
    rig: Rig, admin: tuple[FlaskClient, dict[str, str]]
) -> None:
    client, headers = admin
    cases: list[tuple[object, str]] = [
        ({"pin": 1}, "pin"),
        ({"led": "c3", "brightness": 0.5}, "brightness"),
        ({"led": 3}, "led"),
        ({"led": "c3", "colour": {"r": 1}}, "colour"),
        ({"led": "c3", "colour": [255, 0.5, 0]}, "colour"),
        ({"stop": "yes"}, "stop"),
        ({"stop": True, "colour": "red"}, "colour"),
    ]
    for body, field in cases:
        response = client.post("/api/led-test", json=body, headers=headers)
        assert response.status_code == 400, body
        assert response.get_json()["field"] == field, (body, response.get_json())
    nan = client.post(
        "/api/led-test", data=b'{"pin": NaN}', content_type="application/json", headers=headers
    )
    assert nan.status_code == 400 and nan.get_json()["field"] == "body"
    assert rig.snapshot()["led_test"] is None  # no walk was started
    assert client.post("/api/led-test", json={"stop": False}, headers=headers).status_code == 200
    assert rig.wait(lambda s: s["led_test"] is not None)["led_test"]["led"] is None


def test_wrong_types_are_named_down_to_the_player(
    rig: Rig, admin: tuple[FlaskClient, dict[str, str]]
) -> None:
    client, headers = admin
    players = [
        {"name": "Anna", "colour": "red"},
        {"name": "Ben", "colour": "blue"},
        {"name": "Cleo", "colour": "yellow"},
    ]
    game = {"game": "perlen-pyramide", "players": players}
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({**game, "first_seat": "1"}, "first_seat", "must be an integer, not a string"),
        ({**game, "first_seat": 1.0}, "first_seat", "must be an integer, not a number"),
        ({**game, "first_seat": True}, "first_seat", "must be an integer, not a boolean"),
        ({**game, "children_help": "on"}, "children_help", "must be a boolean"),
        ({**game, "options": {"ties": 1}}, "options.ties", "must be a string"),
        ({**game, "options": {"colour": "x"}}, "options.colour", "unknown field"),
        ({**game, "options": []}, "options", "must be an object"),
        ({**game, "players": {"0": players[0]}}, "players", "must be an array"),
        (
            {**game, "players": [{"name": 5, "colour": "red"}, *players[1:]]},
            "players[0].name",
            "must be a string or null, not an integer",
        ),
        (
            {**game, "players": [players[0], {"name": "Ben"}, players[2]]},
            "players[1].colour",
            "is required",
        ),
        (
            {**game, "players": [*players[:2], {**players[2], "age": 7}]},
            "players[2].age",
            "unknown field",
        ),
        ({"players": players}, "game", "is required"),
        ({**game, "seed": 4}, "seed", "unknown field"),
    ]
    for body, field, words in cases:
        response = client.post("/api/game", json=body, headers=headers)
        answer = response.get_json()
        assert response.status_code == 400, body
        assert answer["field"] == field and words in answer["error"], (body, answer)
    assert rig.store.count_games() == 0
    fine = client.post("/api/game", json={**game, "first_seat": 2}, headers=headers)
    assert fine.status_code == 200, fine.get_json()
    robot = {"colour": "green", "computer": "gentle", "name": None}  # named by its level
    unnamed = client.post(
        "/api/game", json={**game, "players": [robot, *players[1:]]}, headers=headers
    )
    assert unnamed.status_code == 200, unnamed.get_json()


def test_a_body_with_several_mistakes_names_every_one(
    rig: Rig, admin: tuple[FlaskClient, dict[str, str]]
) -> None:
    """Every mistake at once, each with its field: unknown fields first, then missing ones,
    then wrong types; ``error`` and ``field`` are the first of them."""
    client, headers = admin
    body = {
        "game": 5,
        "seed": 4,
        "first_seat": "1",
        "options": {"ties": 1, "colour": "x"},
        "players": [
            {"name": "Anna", "colour": "red", "age": 7},
            {"name": "B" * 201},
            "Cleo",
            {"name": None, "colour": "green", "computer": "gentle", "remote": "yes"},
        ],
    }
    response = client.post("/api/game", json=body, headers=headers)
    assert response.status_code == 400
    answer = response.get_json()
    assert answer["errors"] == [
        {"field": "players[0].age", "error": "unknown field (known: name, colour, computer, "
                                             "remote)"},
        {"field": "options.colour", "error": "unknown field (known: ties, pools, start, "
                                             "placement, score, variant)"},
        {"field": "seed", "error": f"unknown field (known: {KNOWN_SETUP})"},
        {"field": "players[1].colour", "error": "is required"},
        {"field": "game", "error": "must be a string, not an integer"},
        {"field": "players[1].name", "error": "is too long (at most 200 characters)"},
        {"field": "players[2]", "error": "must be an object, not a string"},
        {"field": "players[3].remote", "error": "must be a boolean, not a string"},
        {"field": "first_seat", "error": "must be an integer, not a string"},
        {"field": "options.ties", "error": "must be a string, not an integer"},
    ]  # fmt: skip
    assert answer["field"] == "players[0].age"
    assert answer["error"] == answer["field"] + ": " + answer["errors"][0]["error"]
    # A colour given as an object is one mistake, though the field takes two types.
    led = client.post("/api/led-test", json={"colour": {"r": 1}, "stop": 1}, headers=headers)
    assert led.get_json()["errors"] == [
        {"field": "colour", "error": "must be a string or an array, not an object"},
        {"field": "stop", "error": "must be a boolean, not an integer"},
    ]
    assert rig.store.count_games() == 0 and rig.snapshot()["led_test"] is None


KNOWN_SETUP = "game, players, first_seat, options, children_help"


def test_virtual_settings_unlock_and_pin_bodies_are_strict(rig: Rig, client: FlaskClient) -> None:
    token = csrf(client)
    headers = {"X-CSRFToken": token}
    assert client.post("/api/unlock", json={}, headers=headers).get_json()["field"] == "pin"
    number = client.post("/api/unlock", json={"pin": 2468}, headers=headers)
    assert number.status_code == 400 and number.get_json()["field"] == "pin"
    extra = client.post("/api/unlock", json={"pin": PIN, "next": "/"}, headers=headers)
    assert extra.status_code == 400 and extra.get_json()["field"] == "next"
    pin = client.post("/api/pin", json={"current": PIN, "new": "12"}, headers=headers)
    assert pin.status_code == 400 and pin.get_json()["field"] == "new"
    assert Settings(rig.store).check_pin(PIN)
    # Only a right PIN with nothing else unlocks.
    right = client.post("/api/unlock", json={"pin": PIN}, headers=headers)
    headers = {"X-CSRFToken": right.get_json()["csrf_token"]}
    body: object
    for body, field in (
        ({"name": "c3", "action": "toggle", "force": 1}, "force"),
        ({"action": "on"}, "name"),
        ({"name": ["c3"]}, "name"),
    ):
        response = client.post("/api/virtual", json=body, headers=headers)
        assert response.status_code == 400 and response.get_json()["field"] == field, body
    for body, field in (
        ({"language": "da", "x": 1}, "x"),
        ({"language": "fr"}, "language"),
        ({}, "body"),
        ({"language": "da", "volume": 55}, "volume"),  # neither is stored
        ({"volume": 110}, "volume"),
        ({"volume": 50.0}, "volume"),
        ({"volume": "50"}, "volume"),
    ):
        response = client.post("/api/settings", json=body, headers=headers)
        assert response.status_code == 400 and response.get_json()["field"] == field, body
    assert rig.board.read().active == frozenset()
    assert rig.store.get_setting("web.language") is None
    assert rig.store.get_setting("board.volume") is None
    both = client.post("/api/settings", json={"volume": 0, "language": "de"}, headers=headers)
    assert both.get_json() == {"ok": True, "language": "de", "volume": 0}
    assert rig.store.get_setting("board.volume") == "0"


def test_a_body_must_say_it_is_json(rig: Rig, admin: tuple[FlaskClient, dict[str, str]]) -> None:
    client, headers = admin
    response = client.post("/api/virtual", data='{"name": "c3"}', headers=headers)
    assert response.status_code == 415
    assert rig.board.read().active == frozenset()

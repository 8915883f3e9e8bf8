"""docs/api.md against the app: every route, every write's fields (probed through the
real routes, not read from the code), every snapshot key, every value of the enums it
names, the SSE event names and the game buttons.

A field's documented type and whether it is required are checked by sending what the
document says is wrong (another JSON type, the field left out): each such body must be a
400 naming exactly that field, which is what a client reading the document relies on.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from controller.games.perlen.rules import BonusRule
from controller.games.perlen.snapshot import PerlenParts
from controller.games.pyramidos.snapshot import PyramidosParts
from controller.games.registry import GAMES
from controller.hardware.port import LinkState, Sound
from controller.referee import snapshot
from controller.referee.commands import ACTIONS
from controller.referee.events import COMMON, By
from rigs.web import Rig, csrf

EVENT_TYPES = {kind: cls for game in GAMES.values() for kind, cls in game.events.items()}
EVENT_TYPES.update(COMMON)
GAME_BUTTONS = [*(name for game in GAMES.values() for name in game.actions), *ACTIONS]

DOC = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
ROUTE = re.compile(r"^(?:### |\| )`(GET|POST) (/[^`]*)`", re.M)
SAMPLES: dict[str, Any] = {
    "string": "x",
    "integer": 0,
    "array": [],
    "object": {},
    "boolean": False,
    "null": None,
}


def documented_routes() -> set[tuple[str, str]]:
    return {(m.group(1), m.group(2)) for m in ROUTE.finditer(DOC)}


def section(heading: str) -> str:
    """The text under ``heading`` up to the next heading of any level."""
    start = DOC.index(heading + "\n") + len(heading)
    following = re.compile(r"^#{2,3} ", re.M).search(DOC, start)
    return DOC[start : following.start() if following else len(DOC)]


def table(text: str, after: str | None = None) -> Iterator[list[str]]:
    """The rows of the first table in ``text`` (after ``after``); the first cell unquoted."""
    if after is not None:
        text = text[text.index(after) :]
    lines = text[text.index("\n|") + 1 :].splitlines()
    for line in lines[2:]:
        if not line.startswith("|"):
            return
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        yield [cells[0].strip("`"), *cells[1:]]


@dataclasses.dataclass
class Field:
    name: str
    kinds: tuple[str, ...]
    required: bool


def fields(text: str, after: str | None = None) -> list[Field]:
    found = []
    for cells in table(text, after):
        kinds = tuple(k.strip() for k in cells[1].split(" or "))  # "string or null"
        assert all(k in SAMPLES for k in kinds), cells
        assert cells[2] in ("yes", "no"), cells
        found.append(Field(cells[0], kinds, cells[2] == "yes"))
    return found


def test_every_route_of_the_app_is_documented_and_nothing_else(rig: Rig) -> None:
    app_routes = {
        (method, rule.rule)
        for rule in rig.app.url_map.iter_rules()
        for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}
    }
    documented = documented_routes()
    assert app_routes - documented == set(), "routes docs/api.md does not list"
    assert documented - app_routes == set(), "docs/api.md lists routes the app does not have"


WRITES = [
    (path, f"### `POST {path}`")
    for method, path in sorted(ROUTE.findall(DOC))
    if method == "POST" and path.startswith("/api/")
]


def probe(client: FlaskClient, path: str, body: object, headers: dict[str, str]) -> dict[str, Any]:
    response = client.post(path, json=body, headers=headers)
    answer = response.get_json()
    assert response.status_code == 400, (path, body, answer)
    assert isinstance(answer, dict)
    return answer


@pytest.mark.parametrize(("path", "heading"), WRITES, ids=[w[0] for w in WRITES])
def test_each_write_takes_exactly_the_documented_fields(
    rig: Rig, admin: tuple[FlaskClient, dict[str, str]], path: str, heading: str
) -> None:
    client, headers = admin
    text = section(heading)
    target = path.replace("<name>", "undo")
    documented = [] if "No fields" in text else fields(text)
    # Unknown fields are refused, and the answer lists the known ones: the documented ones.
    answer = probe(client, target, {"zz": 1}, headers)
    assert answer["field"] == "zz"
    known = answer["error"].split("(known: ")[1].rstrip(")")
    if documented:
        assert known.split(", ") == [f.name for f in documented]
    else:
        assert known == "none: send {} or nothing"
    required = {f.name: SAMPLES[f.kinds[0]] for f in documented if f.required}
    for field in documented:
        wrong = next(v for k, v in SAMPLES.items() if k not in field.kinds and k != "null")
        body = {field.name: wrong, **{k: v for k, v in required.items() if k != field.name}}
        answer = probe(client, target, body, headers)
        assert answer["field"] == field.name and "must be" in answer["error"], answer
        if field.required:
            body = {k: v for k, v in required.items() if k != field.name}
            answer = probe(client, target, body, headers)
            assert answer["field"] == field.name and "is required" in answer["error"], answer
    assert rig.store.count_games() == 0 and rig.board.read().active == frozenset()


def test_a_players_fields_are_the_documented_ones(
    rig: Rig, admin: tuple[FlaskClient, dict[str, str]]
) -> None:
    client, headers = admin
    documented = fields(section("### `POST /api/game`"), after="Each player:")
    player = {f.name: SAMPLES[f.kinds[0]] for f in documented if f.required}
    two = [{**player, "zz": 1}, player]  # Pyramidos: 2 to 4 players
    answer = probe(client, "/api/game", {"game": "pyramidos", "players": two}, headers)
    assert answer["field"] == "players[0].zz"
    known = answer["error"].split("(known: ")[1].rstrip(")")
    assert known.split(", ") == [f.name for f in documented]
    for field in documented:
        wrong = next(v for k, v in SAMPLES.items() if k not in field.kinds)
        body = {"game": "pyramidos", "players": [{**player, field.name: wrong}, player]}
        answer = probe(client, "/api/game", body, headers)
        assert answer["field"] == f"players[0].{field.name}", answer


def test_the_commands_are_the_game_buttons() -> None:
    names = [cells[0] for cells in table(section("### `POST /api/command/<name>`"))]
    assert names == GAME_BUTTONS


def test_every_snapshot_key_is_documented_in_order() -> None:
    keys = [cells[0] for cells in table(section("## The snapshot"))]
    assert keys == [f.name for f in dataclasses.fields(snapshot.Snapshot)]
    games = section("### Each game's keys")
    for parts in (PerlenParts, PyramidosParts):
        listed = [cells[0] for cells in table(games, after=f"`{parts.__name__}`")]
        assert listed == [f.name for f in dataclasses.fields(parts)], parts.__name__
    status = next(c[1] for c in table(section("## The snapshot")) if c[0] == "status")
    waiting = [kind.waiting_status for kind in GAMES.values()]
    documented = re.findall(r"`(\w+)`", status)
    assert sorted(documented) == sorted({*snapshot.STATUSES, *waiting})


def test_the_values_of_every_enumeration_named() -> None:
    values = section("### Values")

    def listed(name: str) -> list[str]:
        line = next(line for line in values.split("\n- ") if line.startswith(f"`{name}`"))
        return re.findall(r"`([a-z-]+)`", line.split(":", 1)[1])

    assert listed("link.state") == [s.value for s in (LinkState.SEARCHING, LinkState.CONNECTED,
                                                      LinkState.LOST)]  # fmt: skip
    assert set(listed("link.state")) == {s.value for s in LinkState}
    assert listed("pending[].reason") == [r.value for r in BonusRule]
    assert listed("cue.sound") == [s.value for s in Sound]


def test_every_event_kind_with_its_data_and_every_by() -> None:
    text = section("## Events")
    rows = {cells[0]: re.findall(r"`(\w+)`", cells[1]) for cells in table(text)}
    assert list(rows) == list(EVENT_TYPES)
    for kind, cls in EVENT_TYPES.items():
        assert rows[kind] == [f.name for f in dataclasses.fields(cls)], kind
    by = re.findall(r"^- `(\w+)`:", text, re.M)
    assert by == [b.value for b in By]


def test_the_stream_sends_what_the_document_says(rig: Rig, client: FlaskClient) -> None:
    """``retry``, then ``snapshot`` events with ``id`` and the documented data members."""
    text = section("### `GET /events`")
    names = re.findall(r"One event name only, \*\*`(\w+)`\*\*", text)
    members = re.findall(r"`(\w+)` \(", text.split("Its data is", 1)[1].split(".\n-")[0])
    response = client.get("/events?view=none")
    chunks = iter(response.response)
    first = ""
    while "data: " not in first:
        chunk = next(chunks)
        assert isinstance(chunk, bytes)  # the app streams bytes
        first += chunk.decode()
    response.close()
    assert first.startswith("retry: 2000\n\n")
    block = dict(line.split(": ", 1) for line in first.split("\n\n")[1].split("\n"))
    assert names == [block["event"]] and block["id"] == str(rig.snapshot()["version"])
    assert list(json.loads(block["data"])) == ["version", *members]


def test_the_error_table_has_every_status_the_app_answers(rig: Rig) -> None:
    from web_ui import errors

    statuses = {int(cells[0]) for cells in table(section("## Answers and errors"))}
    with rig.app.test_request_context():
        titled = set(errors._titles())  # every status the error pages have a title for
    assert titled - {500} == statuses  # a 500 is a bug, said in the text below the table


def test_the_session_route_answers_what_is_documented(rig: Rig, client: FlaskClient) -> None:
    text = section("### `GET /api/session`")
    documented = re.findall(r'"(\w+)":', text)
    csrf(client)
    assert list(client.get("/api/session").get_json()) == documented

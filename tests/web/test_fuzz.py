"""Fuzzing every write endpoint: never a 500, nothing changes without the PIN, and a body
that does not parse (nested too deeply, NaN, Infinity, junk) is a 400 on every route."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.settings import PIN_HASH_KEY
from rigs.web import PIN, Rig, build_rig, close_rig, csrf, unlocked

JSON_WRITES = (
    "/api/unlock",
    "/api/pin",
    "/api/game",
    "/api/command/confirm",
    "/api/command/end_turn",
    "/api/command/undo",
    "/api/command/abort",
    "/api/command/hint",
    "/api/command/play_again",
    "/api/command/x",
    "/api/led-test",
    "/api/virtual",
    "/api/settings",
)
FORM_WRITES = (
    "/setup",
    "/control/confirm",
    "/control/undo",
    "/control/abort",
    "/control/hint",
    "/control/end_turn",
    "/control/nope",
    "/diagnostics/led-test",
    "/settings/pin",
    "/settings/language",
    "/unlock",
)
KEYS = (
    "game",
    "players",
    "name",
    "colour",
    "computer",
    "first_seat",
    "options",
    "pin",
    "children_help",
    "led",
    "action",
    "stop",
    "language",
    "current",
    "new",
    "again",
    "ties",
    "pools",
    "seats",
    "name_0",
    "colour_0",
    "variant",
    "next",
    "csrf_token",
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
    | st.sampled_from(
        [
            "c3",
            "t1",
            "top",
            "button:confirm",
            "red",
            "perlen-pyramide",
            "pyramidos",
            "toggle",
            "press",
            "all",
            "#ff0000",
            "da",
            "1",
        ]
    )
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=12,
)
bodies = st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), values, max_size=8)
form_values = st.dictionaries(
    st.sampled_from(KEYS) | st.text(max_size=8),
    st.text(max_size=30) | st.sampled_from(["c3", "on", "0", "2", "red", "pyramidos", PIN[:-1]]),
    max_size=10,
)
raw_bodies = st.binary(max_size=200)
content_types = st.sampled_from(
    ["application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
)


@st.composite
def nested_bodies(draw: st.DrawFn) -> bytes:
    """Arrays and objects nested 9 to 3000 deep (the parser's limit is 8), maybe cut short."""
    depth = draw(st.integers(min_value=9, max_value=3000))
    openers = draw(st.lists(st.sampled_from([b"[", b'{"a":', b'{"players":[', b"[1,"]), min_size=1))
    closers = {b"[": b"]", b'{"a":': b"}", b'{"players":[': b"]}", b"[1,": b"]"}
    levels = [openers[i % len(openers)] for i in range(depth)]
    cut = draw(st.integers(min_value=0, max_value=depth))
    return b"".join(levels) + b"0" + b"".join(closers[o] for o in reversed(levels[cut:]))


# Tokens that are not JSON numbers or not text, though Python's json would read them.
not_json = st.sampled_from(
    [b"NaN", b"Infinity", b"-Infinity", b"1e999", b"-1e400", b'"\\udc00"', b"9" * 5000]
)
junk_bodies = st.builds(
    lambda key, token: b'{"' + key.encode() + b'": ' + token + b"}",
    st.sampled_from(KEYS),
    not_json,
)

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def fuzz_rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    rig = build_rig(tmp_path_factory.mktemp("fuzz"))
    yield rig
    close_rig(rig)


@pytest.fixture(scope="module")
def locked(fuzz_rig: Rig) -> tuple[FlaskClient, str]:
    """A browser that never had the PIN, with its CSRF token."""
    client = fuzz_rig.app.test_client()
    return client, csrf(client, "/unlock")


@pytest.fixture(scope="module")
def admin_client(fuzz_rig: Rig) -> tuple[FlaskClient, str]:
    """A browser unlocked once (the PIN hash check is slow on purpose)."""
    client = fuzz_rig.app.test_client()
    return client, unlocked(client)


def state_of(rig: Rig) -> tuple[Any, ...]:
    """Everything a write could change on the server."""
    snap = rig.snapshot()
    return (
        snap["version"],
        rig.board.read().active,
        rig.store.get_setting(PIN_HASH_KEY),
        rig.store.get_setting("web.language"),
        rig.store.count_games(),
        snap["led_test"],
    )


@FUZZ
@given(path=st.sampled_from(JSON_WRITES), body=bodies | values)
def test_json_writes_without_the_pin_change_nothing(
    fuzz_rig: Rig, locked: tuple[FlaskClient, str], path: str, body: object
) -> None:
    client, token = locked
    before = state_of(fuzz_rig)
    response = client.post(
        path, json=body, headers={"X-CSRFToken": token}, environ_base={"REMOTE_ADDR": "10.9.9.9"}
    )
    assert 400 <= response.status_code < 500, (path, body, response.get_data(as_text=True))
    assert response.get_json()["ok"] is False
    assert state_of(fuzz_rig) == before


@FUZZ
@given(path=st.sampled_from(JSON_WRITES + FORM_WRITES), body=raw_bodies, kind=content_types)
def test_raw_bodies_without_the_pin_change_nothing(
    fuzz_rig: Rig, locked: tuple[FlaskClient, str], path: str, body: bytes, kind: str
) -> None:
    client, token = locked
    before = state_of(fuzz_rig)
    response = client.post(
        path,
        data=body,
        content_type=kind,
        headers={"X-CSRFToken": token},
        environ_base={"REMOTE_ADDR": "10.9.9.8"},
    )
    assert response.status_code < 500, (path, body)
    assert response.status_code in (302, 400, 403, 404, 405, 413, 415, 429), response.status_code
    assert state_of(fuzz_rig) == before


@FUZZ
@given(path=st.sampled_from(FORM_WRITES), form=form_values, with_token=st.booleans())
def test_forms_without_the_pin_change_nothing(
    fuzz_rig: Rig,
    locked: tuple[FlaskClient, str],
    path: str,
    form: dict[str, str],
    with_token: bool,
) -> None:
    client, token = locked
    before = state_of(fuzz_rig)
    data = {**form, "csrf_token": token} if with_token else form
    response = client.post(path, data=data, environ_base={"REMOTE_ADDR": "10.9.9.7"})
    assert response.status_code < 500, (path, form)
    if response.status_code == 302:  # only to the PIN page (or back after a locked request)
        assert "/unlock" in response.headers["Location"], (path, form)
    assert state_of(fuzz_rig) == before


@FUZZ
@given(path=st.sampled_from(JSON_WRITES[2:]), body=bodies | values)
def test_json_writes_with_the_pin_never_answer_500(
    admin_client: tuple[FlaskClient, str], path: str, body: object
) -> None:
    client, token = admin_client
    response = client.post(path, json=body, headers={"X-CSRFToken": token})
    assert response.status_code < 500, (path, body, response.get_data(as_text=True))
    assert response.is_json


@FUZZ
@given(path=st.sampled_from(FORM_WRITES[:-1]), form=form_values)
def test_forms_with_the_pin_never_answer_500(
    admin_client: tuple[FlaskClient, str], path: str, form: dict[str, str]
) -> None:
    client, token = admin_client
    response = client.post(path, data={**form, "csrf_token": token})
    assert response.status_code < 500, (path, form, response.get_data(as_text=True))


@FUZZ
@given(path=st.text(max_size=30), query=st.text(max_size=30))
def test_reading_any_address_never_answers_500(fuzz_rig: Rig, path: str, query: str) -> None:
    client = fuzz_rig.app.test_client()
    target = "/" + path.lstrip("/").replace("?", "").replace("#", "")
    if target.startswith("/events"):
        return  # an endless stream; covered by test_events
    response = client.get(target, query_string={"q": query, "page": query, "step": query})
    assert response.status_code < 500, target


@FUZZ
@given(path=st.sampled_from(["/lock", "/language", "/api/lock"]), form=form_values)
def test_session_only_writes_change_nothing_on_the_server(
    fuzz_rig: Rig, locked: tuple[FlaskClient, str], path: str, form: dict[str, str]
) -> None:
    """Locking a browser or choosing its language touches only that browser's cookies."""
    client, token = locked
    before = state_of(fuzz_rig)
    if path.startswith("/api/"):
        response = client.post(path, json=form, headers={"X-CSRFToken": token})
    else:
        response = client.post(path, data={**form, "csrf_token": token})
    assert response.status_code < 500, (path, form)
    if response.status_code == 302:
        location = response.headers["Location"]
        assert location.startswith("/") and not location.startswith("//"), location
    assert state_of(fuzz_rig) == before


@FUZZ
@given(path=st.sampled_from((*JSON_WRITES, "/api/lock")), body=nested_bodies() | junk_bodies)
def test_nested_and_junk_bodies_are_a_400_and_change_nothing(
    fuzz_rig: Rig, admin_client: tuple[FlaskClient, str], path: str, body: bytes
) -> None:
    """Even unlocked (so the body is read on every route), the answer is 400 with the
    field ``body``; a route that does not exist says 404 before reading."""
    client, token = admin_client
    before = state_of(fuzz_rig)
    response = client.post(
        path, data=body, content_type="application/json", headers={"X-CSRFToken": token}
    )
    answer = response.get_json()
    if path.endswith("/x"):
        assert response.status_code == 404, answer
    else:
        assert response.status_code == 400 and answer["field"] == "body", (path, body[:60], answer)
    assert state_of(fuzz_rig) == before

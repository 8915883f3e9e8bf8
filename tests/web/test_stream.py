"""Server-Sent Events through the Flask test client: snapshot first, then every change."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from rigs.web import Rig, build_rig, close_rig
from web_ui.app import WebSettings, close_app


def events(response: TestResponse) -> Iterator[tuple[str, Any]]:
    """(kind, payload) for each SSE block: ("snapshot", data), ("comment", text), ("retry", ms)."""
    buffer = b""
    for chunk in response.response:
        assert isinstance(chunk, bytes)  # the app streams bytes
        buffer += chunk
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            text = block.decode()
            if text.startswith(":"):
                yield "comment", text[1:].strip()
            elif text.startswith("retry:"):
                yield "retry", int(text.split(":")[1])
            else:
                fields = dict(line.split(": ", 1) for line in text.split("\n"))
                yield fields["event"], (fields.get("id"), json.loads(fields["data"]))


def test_a_new_stream_gets_the_snapshot_first_then_every_change(
    rig: Rig, client: FlaskClient
) -> None:
    rig.new_perlen(("<b>Anna</b>", "Ben", "Cleo"))
    response = client.get("/events?view=live")
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"].startswith("no-cache")
    stream = events(response)
    assert next(stream) == ("retry", 2000)
    kind, (event_id, first) = next(stream)
    assert kind == "snapshot"
    current = rig.snapshot()
    assert first["version"] == current["version"] and event_id == str(current["version"])
    assert first["snapshot"]["players"][0]["name"] == "<b>Anna</b>"  # data, as sent
    html = first["html"]
    assert set(html) == {"live-status", "live-bar", "live-board", "live-scores", "live-controls"}
    assert first["text"]["prompt"] == "<b>Anna</b> to move."  # text; the html escapes it
    assert "&lt;b&gt;Anna&lt;/b&gt;" in html["live-status"] and "<b>Anna" not in html["live-status"]

    rig.place("c3")
    seen = []
    for kind, payload in stream:
        if kind != "snapshot":
            continue
        seen.append(payload[1]["version"])
        if payload[1]["snapshot"]["moves"] == 1:
            assert "c3" in payload[1]["snapshot"]["sensors"]
            assert (
                'aria-label="c3: &lt;b&gt;Anna&lt;/b&gt; (red, R) pearl'
                in payload[1]["html"]["live-board"]
            )
            break
    assert seen == sorted(seen) and seen[0] > first["version"]
    response.close()


def test_idle_streams_get_heartbeats_and_end_when_the_server_stops(
    rig: Rig, client: FlaskClient
) -> None:
    response = client.get("/events?view=none")
    stream = events(response)
    next(stream)
    kind, (_id, first) = next(stream)
    assert kind == "snapshot" and first["html"] == {}
    assert next(stream) == ("comment", "keep-alive")
    assert rig.app.extensions["pyramid"].hub.viewers == 1
    close_app(rig.app)
    assert list(stream) == []  # the generator returned: the stream is over
    assert rig.app.extensions["pyramid"].hub.viewers == 0
    assert client.get("/events").status_code == 503


def test_diagnostics_stream_renders_sensors(rig: Rig, client: FlaskClient) -> None:
    response = client.get("/events?view=diagnostics")
    stream = events(response)
    next(stream)
    _kind, (_id, first) = next(stream)
    assert set(first["html"]) == {"diag-sensors", "diag-link"}
    rig.place("e5")
    for kind, payload in stream:
        if kind == "snapshot" and "e5" in payload[1]["snapshot"]["sensors"]:
            assert '<li class="on" id="sensor-e5">' in payload[1]["html"]["diag-sensors"]
            break
    response.close()


def test_streams_are_limited_so_pages_always_get_a_thread(tmp_path: Path) -> None:
    rig = build_rig(tmp_path, web=WebSettings(heartbeat=0.3, max_streams=1))
    try:
        client = rig.app.test_client()
        one = client.get("/events?view=none")
        stream = events(one)
        next(stream), next(stream)
        two = client.get("/events?view=none")
        assert two.status_code == 503 and two.headers["Retry-After"] == "5"
        assert client.get("/api/state").status_code == 200
        one.close()
    finally:
        close_rig(rig)


def test_unknown_view_is_a_clear_400(client: FlaskClient) -> None:
    response = client.get("/events?view=<x>")
    assert response.status_code == 400
    assert response.get_json()["error"].startswith("Unknown view")


def test_streams_end_when_the_table_stops(rig: Rig, client: FlaskClient) -> None:
    response = client.get("/events?view=none")
    stream = events(response)
    next(stream), next(stream)
    hub = rig.app.extensions["pyramid"].hub
    rig.table.stop()
    assert list(stream)[-1:] in ([], [("comment", "keep-alive")])  # the stream ended
    assert hub.stopping and hub.viewers == 0

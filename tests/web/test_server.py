"""The app under waitress on a free loopback port: pages, many live streams, clean stop."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rigs.web import Rig, build_rig, close_rig
from web_ui.server import serve, stop


def open_stream(
    port: int, source: str = "127.0.0.1"
) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(source, 0))
    conn.request("GET", "/events?view=none")
    response = conn.getresponse()
    assert response.status == 200
    return conn, response


def next_snapshot(response: http.client.HTTPResponse) -> dict[str, Any]:
    """Read SSE lines until one ``data:`` line; return its JSON."""
    while True:
        line = response.readline()
        if not line:
            raise EOFError("stream ended")
        if line.startswith(b"data: "):
            data = json.loads(line[6:])
            assert isinstance(data, dict)
            return data


def test_waitress_serves_streams_to_many_viewers_and_stops_cleanly(tmp_path: Path) -> None:
    rig = build_rig(tmp_path)
    ready = threading.Event()
    server = threading.Thread(target=serve, args=(rig.app, "127.0.0.1", 0, ready), daemon=True)
    server.start()
    try:
        assert ready.wait(5)
        port = rig.app.config["SERVER_PORT"]
        page = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        page.request("GET", "/", headers={"Accept-Language": "de"})
        answer = page.getresponse()
        body = answer.read().decode()
        assert answer.status == 200 and '<html lang="de">' in body
        assert answer.getheader("Server") == "pyramid-board"

        viewers = [open_stream(port, f"127.0.0.{n + 2}") for n in range(12)]  # 12 phones
        firsts = [next_snapshot(response) for _conn, response in viewers]
        version = firsts[0]["version"]
        assert all(f["version"] == version for f in firsts)
        rig.place("b2")
        for _conn, response in viewers:
            update = next_snapshot(response)
            while "b2" not in update["snapshot"]["sensors"]:
                update = next_snapshot(response)
            assert update["version"] > version
        assert rig.app.extensions["pyramid"].hub.viewers == 12

        started = time.monotonic()
        stop(rig.app)
        server.join(5)
        assert not server.is_alive()
        assert time.monotonic() - started < 3.0  # the streams ended at once
        for _conn, response in viewers:
            rest = response.read()  # EOF: the server ended the stream
            assert b"data:" not in rest or rest.endswith(b"\n\n")
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", port)) != 0  # no longer listening
    finally:
        stop(rig.app)
        server.join(5)
        close_rig(rig)


@contextlib.contextmanager
def served(tmp_path: Path) -> Iterator[tuple[Rig, int]]:
    """A rig served by waitress on a free loopback port, stopped afterwards."""
    rig = build_rig(tmp_path)
    ready = threading.Event()
    server = threading.Thread(target=serve, args=(rig.app, "127.0.0.1", 0, ready), daemon=True)
    server.start()
    try:
        assert ready.wait(5)
        yield rig, rig.app.config["SERVER_PORT"]
    finally:
        stop(rig.app)
        server.join(5)
        close_rig(rig)


def test_nested_json_under_waitress_is_a_400_not_a_500(tmp_path: Path) -> None:
    """Issue 15's first defect as it was found: under waitress (a deeper stack than the
    test client's) 980 nested brackets made ``json.loads`` raise RecursionError."""
    with served(tmp_path) as (_rig, port):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/api/session")
        session = conn.getresponse()
        token = json.loads(session.read())["csrf_token"]
        cookie = session.getheader("Set-Cookie", "").split(";")[0]
        headers = {"Content-Type": "application/json", "X-CSRFToken": token, "Cookie": cookie}
        for body in (b"[" * 980 + b"]" * 980, b'{"pin":' * 990 + b"1" + b"}" * 990):
            conn.request("POST", "/api/unlock", body=body, headers=headers)
            answer = conn.getresponse()
            reply = json.loads(answer.read())
            assert answer.status == 400, reply
            assert reply["field"] == "body" and "nested too deeply" in reply["error"]

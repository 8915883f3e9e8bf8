"""The page served by waitress on a loopback port, and a browser session on it, as a
stranger's device would use it: other devices are other loopback addresses (127.0.0.x;
Linux routes all of 127/8 to lo). Used by tests/web/test_attacks.py and
bench/web_attacks.py."""

from __future__ import annotations

import http.client
import json
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from controller.config import RemoteConfig
from controller.remote.seats import RemoteSeats
from tests.remote.mosquitto import free_port
from tests.web.conftest import PIN, Rig, build_rig, close_rig
from web_ui.server import serve, stop
from web_ui.state import WebSettings

WRONG = "000000"


class Page:
    """One served page and a browser session on it."""

    def __init__(self, rig: Rig, port: int) -> None:
        self.rig = rig
        self.port = port

    def ask(
        self,
        method: str,
        path: str,
        *,
        source: str = "127.0.0.1",
        headers: dict[str, str] | None = None,
        body: Any = None,
        timeout: float = 30.0,
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=timeout, source_address=(source, 0)
        )
        sent = dict(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        try:
            conn.request(method, path, body=data, headers=sent)
            answer = conn.getresponse()
            return answer.status, dict(answer.getheaders()), answer.read()
        finally:
            conn.close()

    def session(self, source: str = "127.0.0.1") -> dict[str, str]:
        """A fresh browser session: the headers its writes send (cookie and CSRF token)."""
        _status, headers, body = self.ask("GET", "/api/session", source=source)
        cookie = headers["Set-Cookie"].split(";", 1)[0]
        return {"Cookie": cookie, "X-CSRFToken": json.loads(body)["csrf_token"]}

    def unlock(self, headers: dict[str, str], pin: str, source: str = "127.0.0.1") -> int:
        status, answered, body = self.ask(
            "POST", "/api/unlock", source=source, headers=headers, body={"pin": pin}
        )
        if status == 200:  # the session cookie and its CSRF token are renewed on unlock
            headers["Cookie"] = answered["Set-Cookie"].split(";", 1)[0]
            headers["X-CSRFToken"] = json.loads(body)["csrf_token"]
        return status


@contextmanager
def served(folder: Path, web: WebSettings | None = None, host: str = "127.0.0.1") -> Iterator[Page]:
    """The page of a fresh rig in ``folder``, linked to a broker nobody runs (so a game
    with a seat on another board has an invitation code), served on ``host``."""
    rig = build_rig(folder, web=web or WebSettings())
    seats = RemoteSeats(
        rig.table,
        rig.store,
        RemoteConfig(host="127.0.0.1", port=free_port(), tls=False, name="Oma"),
    )
    rig.table.linker = seats
    ready = threading.Event()
    thread = threading.Thread(target=serve, args=(rig.app, host, 0, ready), daemon=True)
    thread.start()
    try:
        assert ready.wait(10), "the page did not start"
        yield Page(rig, rig.app.config["SERVER_PORT"])
    finally:
        stop(rig.app)
        thread.join(10)
        seats.close()
        close_rig(rig)


def invite(page: Page) -> str:
    """Start a game with a seat on another board (as the family does); its code."""
    headers = page.session()
    assert page.unlock(headers, PIN) == 200
    players = [
        {"name": "Oma", "colour": "red"},
        {"name": "Tim", "colour": "blue", "remote": True},
        {"name": "Opa", "colour": "yellow"},
    ]
    status, _h, body = page.ask(
        "POST",
        "/api/game",
        headers=headers,
        body={"game": "perlen-pyramide", "players": players},
    )
    assert status == 200, body
    code = json.loads(body)["code"]
    assert isinstance(code, str) and code
    page.rig.wait(lambda s: s["remote"] is not None and s["remote"]["code"] == code)
    return code


def first_event(
    page: Page, source: str, headers: dict[str, str] | None = None, view: str = "live"
) -> bytes:
    """The first ``data:`` line of a live stream (b"" when it is refused)."""
    conn = http.client.HTTPConnection(
        "127.0.0.1", page.port, timeout=10, source_address=(source, 0)
    )
    try:
        conn.request("GET", f"/events?view={view}", headers=headers or {})
        answer = conn.getresponse()
        if answer.status != 200:
            return b""
        while True:
            line = answer.readline()
            if not line or line.startswith(b"data: "):
                return line
    finally:
        conn.close()


def rotate(
    page: Page, headers: dict[str, str], *, addresses: int, each: int, workers: int
) -> Counter[int | str]:
    """``addresses`` devices (127.0.1.x) each try ``each`` wrong PINs, ``workers`` at a
    time: the answers by status ("no answer" for none)."""
    statuses: Counter[int | str] = Counter()
    lock = threading.Lock()
    todo = [f"127.0.1.{n + 1}" for n in range(addresses)]

    def worker() -> None:
        while True:
            with lock:
                if not todo:
                    return
                source = todo.pop()
            for _ in range(each):
                try:
                    status: int | str = page.unlock(dict(headers), WRONG, source)
                except OSError:
                    status = "no answer"
                with lock:
                    statuses[status] += 1

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    return statuses

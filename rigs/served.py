"""The page served by waitress on a loopback port, and a browser session on it, as a
stranger's device would use it: other devices are other loopback addresses (127.0.0.x;
Linux routes all of 127/8 to lo). Used by tests/web/test_attacks.py and
bench/web_attacks.py."""

from __future__ import annotations

import http.client
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.config import RemoteConfig
from controller.settings import Settings
from rigs.mosquitto import free_port
from rigs.web import PIN, Rig, build_rig, close_rig
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
    remote = RemoteConfig(broker=f"mqtt://127.0.0.1:{free_port()}", name="Oma")
    rig = build_rig(folder, web=web or WebSettings(), remote=remote)
    ready = threading.Event()
    thread = threading.Thread(target=serve, args=(rig.app, host, 0, ready), daemon=True)
    thread.start()
    try:
        assert ready.wait(10), "the page did not start"
        yield Page(rig, rig.app.config["SERVER_PORT"])
    finally:
        stop(rig.app)
        thread.join(10)
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


class HeldHashes:
    """The page's PIN check held until released, so tries sent at once stay at once
    whatever the machine's speed; ``entered`` counts the PINs checked."""

    def __init__(self, settings: Settings, wait_s: float) -> None:
        self._check: Callable[[object], bool] = settings.check_pin
        self._wait_s = wait_s
        self.entered = 0
        self.cond = threading.Condition()
        self.released = threading.Event()
        settings.check_pin = self.check  # type: ignore[method-assign]

    def check(self, pin: object) -> bool:
        with self.cond:
            self.entered += 1
            self.cond.notify_all()
        if not self.released.wait(self._wait_s):
            raise TimeoutError("the held PIN checks were never released")
        return self._check(pin)


@dataclass(frozen=True)
class AtOnce:
    statuses: Counter[int]
    """Every answer by status (0: the connection was refused at the door)."""
    right: int
    """The answer to the right PIN, sent last."""
    checked: int
    """PINs the page really checked (a scrypt hash each)."""


def at_once(
    page: Page, headers: dict[str, str], *, source: str, tries: int, wait_s: float
) -> AtOnce:
    """``tries - 1`` wrong PINs sent at once from ``source``, then the right one while
    they are all still being checked (the page's checks are held until it has been
    handled: answered, or itself being checked)."""
    held = HeldHashes(page.rig.table.household, wait_s)
    statuses: Counter[int] = Counter()
    right: list[int] = []

    def attempt(pin: str) -> None:
        try:
            status = page.unlock(dict(headers), pin, source)
        except OSError:  # refused at the door
            status = 0
        with held.cond:
            statuses[status] += 1
            if pin != WRONG:
                right.append(status)
            held.cond.notify_all()

    def handled(count: int) -> Callable[[], bool]:  # answered, or held in the check
        return lambda: sum(statuses.values()) + held.entered >= count

    wrong = [threading.Thread(target=attempt, args=(WRONG,)) for _ in range(tries - 1)]
    last = threading.Thread(target=attempt, args=(PIN,))
    try:
        for thread in wrong:
            thread.start()
        with held.cond:
            if not held.cond.wait_for(handled(tries - 1), wait_s):
                raise TimeoutError("the wrong PINs were not all handled")
        last.start()
        with held.cond:
            if not held.cond.wait_for(handled(tries), wait_s):
                raise TimeoutError("the right PIN was not handled")
    finally:
        held.released.set()
        for thread in [*wrong, last]:
            if thread.is_alive() or thread.ident is not None:
                thread.join(wait_s)
    return AtOnce(statuses, right[0], held.entered)

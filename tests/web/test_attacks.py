"""A stranger on the home network against the real page (issue 39, the web half).

The app runs under waitress on a loopback port (:mod:`rigs.served`); other devices
are other loopback addresses. Each test makes the attack and shows it failing; the PIN's
limits run on a clock that stands still, so what is admitted does not depend on the
machine's speed (``bench/web_attacks.py`` gives the figures on the real clock).
"""

from __future__ import annotations

import http.client
import json
import logging
import select
import socket
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.settings import Settings
from rigs.served import WRONG, Page, at_once, first_event, invite, rotate, served
from rigs.web import PIN, build_rig, close_rig, csrf
from web_ui import security
from web_ui.connections import GuardedServer
from web_ui.state import WebSettings, state_of

WAIT_S = 60.0
"""How long a test waits for the server to reach the state it needs (an event wait that
ends the moment it is there)."""


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Page]:
    with served(tmp_path) as served_page:
        yield served_page


def still_clock(page: Page) -> None:
    """The page's PIN limits on a clock that does not move (a wait never runs out)."""
    web = state_of(page.rig.app)
    web.pins = security.PinGuard(web.settings.pin_limits, clock=lambda: 1000.0)


def test_sixty_unlocks_at_once_check_a_handful_and_the_right_pin_last_does_not_unlock(
    tmp_path: Path,
) -> None:
    # Every try reaches the PIN check (one device's connections are limited too: below).
    with served(tmp_path, WebSettings(connections_per_device=100)) as page:
        sixty_at_once(page)


def sixty_at_once(page: Page) -> None:
    still_clock(page)
    headers = page.session("127.0.0.2")
    tried = at_once(page, headers, source="127.0.0.2", tries=60, wait_s=WAIT_S)
    limits = state_of(page.rig.app).pins.limits
    assert tried.checked == limits.free + 1  # the 4th try is checked, then the device waits
    # A wrong PIN checked while the device already waits is answered with the wait too.
    assert tried.right == 429
    assert tried.statuses[200] == 0 and tried.statuses[403] + tried.statuses[429] == 60
    _s, _h, body = page.ask("GET", "/api/session", headers={"Cookie": headers["Cookie"]})
    assert json.loads(body)["unlocked"] is False


def test_three_hundred_rotated_addresses_check_only_the_shared_allowance(page: Page) -> None:
    still_clock(page)
    headers = page.session()
    statuses = rotate(page, headers, addresses=100, each=3, workers=6)
    burst = state_of(page.rig.app).pins.limits.burst
    assert statuses == Counter({403: burst, 429: 300 - burst})
    # The family, from its own phone, is told how long to wait rather than let in by
    # anyone's wrong PINs; the store keeps their count.
    status, answered, _body = page.ask(
        "POST", "/api/unlock", source="127.0.0.9", headers=headers, body={"pin": PIN}
    )
    assert status == 429 and int(answered["Retry-After"]) == 360
    assert page.rig.table.household.wrong_pins() == burst


def test_an_ipv6_device_is_counted_by_its_64(tmp_path: Path) -> None:
    rig = build_rig(tmp_path, web=WebSettings(heartbeat=0.3, throttle_free=2, throttle_base=30))
    try:
        client = rig.app.test_client()
        headers = {"X-CSRFToken": csrf(client)}
        statuses = [
            client.post(
                "/api/unlock",
                json={"pin": WRONG},
                headers=headers,
                environ_base={"REMOTE_ADDR": f"2001:db8:5:6::{n + 1:x}"},
            ).status_code
            for n in range(3)
        ]
        assert statuses == [403, 403, 429]  # three addresses, one /64: one device
        other = client.post(
            "/api/unlock",
            json={"pin": PIN},
            headers=headers,
            environ_base={"REMOTE_ADDR": "2001:db8:5:7::1"},
        )
        assert other.status_code == 200
    finally:
        close_rig(rig)


def test_enough_wrong_pins_lock_the_pin_until_pyramid_pin_even_across_a_restart(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    web = WebSettings(heartbeat=0.3, throttle_free=3, pin_burst=50, pin_lockout=5)
    rig = build_rig(tmp_path, web=web)
    try:
        client = rig.app.test_client()
        headers = {"X-CSRFToken": csrf(client)}

        def unlock(pin: str, n: int) -> int:
            answer = client.post(
                "/api/unlock",
                json={"pin": pin},
                headers=headers,
                environ_base={"REMOTE_ADDR": f"10.0.0.{n}"},
            )
            return answer.status_code

        with caplog.at_level(logging.WARNING, logger="web_ui"):
            assert [unlock(WRONG, n) for n in range(4)] == [403, 403, 403, 403]
            assert unlock(WRONG, 9) == 423  # the 5th wrong PIN: none is checked any more
        assert "pyramid pin" in caplog.text
        locked = client.post(
            "/api/unlock",
            json={"pin": PIN},
            headers=headers,
            environ_base={"REMOTE_ADDR": "10.9.9.9"},
        )
        assert locked.status_code == 423 and locked.get_json()["locked_out"] is True
        assert "pyramid pin" in locked.get_json()["error"]
        form = client.post("/unlock", data={"pin": PIN, "csrf_token": headers["X-CSRFToken"]})
        assert form.status_code == 423 and "pyramid pin" in form.get_data(as_text=True)
    finally:
        close_rig(rig)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="web_ui"):
        again = build_rig(tmp_path, web=web)  # a restart on the same store: said again
    assert "pyramid pin" in caplog.text
    try:
        client = again.app.test_client()
        headers = {"X-CSRFToken": csrf(client)}
        assert client.post("/api/unlock", json={"pin": PIN}, headers=headers).status_code == 423
        Settings(again.store).set_pin("97531")  # what `pyramid pin` does
        assert client.post("/api/unlock", json={"pin": "97531"}, headers=headers).status_code == 200
    finally:
        close_rig(again)


# -- the invitation code ----------------------------------------------------------------------


def test_a_locked_browser_never_gets_the_invitation_code_an_unlocked_one_does(
    page: Page,
) -> None:
    code = invite(page)
    admin = page.session("127.0.0.4")
    assert page.unlock(admin, PIN, "127.0.0.4") == 200
    cookie = {"Cookie": admin["Cookie"]}
    _s, _h, state = page.ask("GET", "/api/state", source="127.0.0.4", headers=cookie)
    broker = json.loads(state)["remote"]["broker"]
    assert json.loads(state)["remote"]["code"] == code and broker
    for path in ("/", "/diagnostics", "/settings"):
        _s, _h, body = page.ask("GET", path, source="127.0.0.4", headers=cookie)
        if path == "/":
            assert code in body.decode()  # the invite flow: read it to the other home
    assert code.encode() in first_event(page, "127.0.0.4", cookie)

    for path in ("/api/state", "/", "/diagnostics", "/settings", "/join", "/setup"):
        status, _h, body = page.ask("GET", path, source="127.0.0.2")
        assert status == 200, path
        assert code not in body.decode() and broker not in body.decode(), path
    locked = json.loads(page.ask("GET", "/api/state", source="127.0.0.2")[2])["remote"]
    assert (locked["code"], locked["broker"], locked["side"]) == (None, None, "a")
    for view in ("live", "diagnostics", "none"):
        event = first_event(page, "127.0.0.2", view=view)
        assert event.startswith(b"data: ") and code.encode() not in event
        assert broker.encode() not in event


# -- only the board's own names ---------------------------------------------------------------


def test_a_foreign_host_is_refused_on_pages_api_and_stream(page: Page) -> None:
    port = page.port
    for path in ("/", "/api/state", "/events?view=none", "/settings", "/static/app.css"):
        status, _h, body = page.ask("GET", path, headers={"Host": "attacker.example"})
        assert status == 400 and "names" in body.decode(), path
    headers = page.session()
    status, _h, _b = page.ask(
        "POST",
        "/api/unlock",
        headers={**headers, "Host": "rebound.example:8080"},
        body={"pin": PIN},
    )
    assert status == 400
    assert page.rig.table.household.wrong_pins() == 0  # not even counted
    own = (
        "pyramid.local",
        f"pyramid.local:{port}",
        f"127.0.0.1:{port}",
        f"localhost:{port}",
        socket.gethostname(),
        f"[::1]:{port}",
        "127.0.0.5",
    )
    for host in own:
        assert page.ask("GET", "/api/state", headers={"Host": host})[0] == 200, host


# -- a page no single device can close --------------------------------------------------------


def test_one_device_cannot_take_all_live_streams(page: Page) -> None:
    per_device = state_of(page.rig.app).settings.streams_per_device
    # The answers are kept: the server says ``Connection: close``, so the answer alone owns
    # its socket, and an answer dropped would close a stream (freeing its slot).
    held: list[http.client.HTTPResponse] = []
    try:
        for _ in range(per_device + 1):
            conn = http.client.HTTPConnection(
                "127.0.0.1", page.port, timeout=WAIT_S, source_address=("127.0.0.2", 0)
            )
            conn.request("GET", "/events?view=none")
            answer = conn.getresponse()
            if answer.status != 200:
                assert answer.status == 503 and answer.getheader("Retry-After") == "5"
                conn.close()
                break
            held.append(answer)
        assert len(held) == per_device
        assert first_event(page, "127.0.0.3", view="none").startswith(b"data: ")
    finally:
        for answer in held:
            answer.close()


class VirtualClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_slow_connections_from_one_device_leave_the_page_to_the_others(page: Page) -> None:
    web = state_of(page.rig.app)
    server = web.server
    assert isinstance(server, GuardedServer)
    clock = VirtualClock()
    server.clock = clock
    slow: list[socket.socket] = []
    try:
        for _ in range(200):
            sock = socket.socket()
            sock.settimeout(WAIT_S)
            sock.bind(("127.0.0.2", 0))
            sock.connect(("127.0.0.1", page.port))
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            slow.append(sock)
        # Beyond the device's connections, each is answered 503 and closed at once.
        per_device = web.settings.connections_per_device
        refused = [s for s in slow[per_device:] if closed_by_server(s)]
        assert len(refused) == 200 - per_device
        assert server.held("127.0.0.2") == per_device
        status, _h, body = page.ask("GET", "/", source="127.0.0.3", timeout=WAIT_S)
        assert status == 200 and b"<html" in body
        # A header line now and then keeps waitress' own timeout from running out, not
        # the request's deadline.
        for step in (web.settings.request_deadline / 2, web.settings.request_deadline / 2 + 1):
            clock.now += step
            for sock in slow[:per_device]:
                sock.sendall(b"X-Slow: 1\r\n")
        assert all(closed_by_server(s) for s in slow[:per_device])
        assert server.held("127.0.0.2") == 0
    finally:
        for sock in slow:
            sock.close()


def closed_by_server(sock: socket.socket) -> bool:
    """Read until the server closes ``sock`` (its 503 answer, if any, read on the way);
    False if it is still open after ``WAIT_S``."""
    try:
        while True:
            readable, _w, _x = select.select([sock], [], [], WAIT_S)
            if not readable:
                return False
            if not sock.recv(4096):
                return True
    except ConnectionResetError:
        return True

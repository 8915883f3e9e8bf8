"""A stranger on the home network against the web page (issue 39's web half): figures.

    .venv/bin/python bench/web_attacks.py [--slow 200] [--streams 70] [--wait 20]

The page runs as ``pyramid run`` serves it: the Flask app under waitress on a free
loopback port, default :class:`web_ui.state.WebSettings`, a game linked with another
board (its broker a loopback port where nobody listens, as tests/web/test_remote_api.py
does), so the snapshot holds an invitation code. Other devices are other loopback
addresses (127.0.0.x; Linux routes all of 127/8 to lo). Each attack gets a fresh page:

1. **The code for a locked browser**: is the invitation code in ``GET /api/state``, in the
   first event of ``/events``, on the live page, Diagnostics, Settings?
2. **60 concurrent unlocks** from one address, 59 wrong PINs and then the right one while
   they are still being checked: the answers by status, and whether it unlocked.
3. **300 rotated addresses**: 100 addresses × 3 wrong PINs each: PINs checked (403) and
   refused unchecked (429), and how long all 10⁶ six-digit PINs would take at that rate.
4. **A foreign Host** (DNS rebinding): ``GET /api/state`` with ``Host: attacker.example``.
5. **Live streams**: one address opens ``--streams`` streams, then another opens one.
6. **Slow connections**: one address opens ``--slow`` connections, each sending a header
   line every 2 s; then another address asks for ``/`` (10 s allowed); after ``--wait``
   seconds, how many of the slow connections the server has closed.

Only loopback addresses are used; every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import http.client
import select
import socket
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import suppress
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rigs.served import WRONG, Page, at_once, first_event, invite, rotate, served  # noqa: E402
from rigs.web import PIN  # noqa: E402


def code_for_locked(page: Page) -> None:
    code = invite(page)
    parts = code.replace("-", "")
    found = {}
    for name, path in (
        ("GET /api/state", "/api/state"),
        ("live page /", "/"),
        ("Diagnostics", "/diagnostics"),
        ("Settings", "/settings"),
    ):
        _s, _h, body = page.ask("GET", path, source="127.0.0.2")
        text = body.decode()
        found[name] = code in text or parts in text
    found["/events (first event)"] = code.encode() in first_event(page, "127.0.0.2")
    for name, seen in found.items():
        print(f"   locked browser, {name:24s}: code {'SHOWN' if seen else 'absent'}")
    admin = page.session()
    assert page.unlock(admin, PIN) == 200
    _s, _h, body = page.ask("GET", "/api/state", headers={"Cookie": admin["Cookie"]})
    shown = "shown" if code in body.decode() else "ABSENT"
    print(f"   unlocked browser, GET /api/state        : code {shown}")


def count_checks(page: Page) -> list[int]:
    """Count the PINs the page really checks (each one scrypt hash): a list of one."""
    household = page.rig.table.household
    check = household.check_pin
    checked = [0]
    lock = threading.Lock()

    def counted(pin: object) -> bool:
        with lock:
            checked[0] += 1
        return check(pin)

    household.check_pin = counted  # type: ignore[method-assign]
    return checked


def concurrent_unlocks(page: Page, tries: int = 60) -> None:
    headers = page.session("127.0.0.2")
    started = time.monotonic()
    tried = at_once(page, headers, source="127.0.0.2", tries=tries, wait_s=120.0)
    took = time.monotonic() - started
    counts = ", ".join(f"{n} × {s}" for s, n in sorted(tried.statuses.items()))
    print(f"   {tries} unlocks at once from one address, the right PIN last: {counts}")
    print(f"   PINs checked (a scrypt hash each): {tried.checked}")
    verdict = "UNLOCKED" if tried.right == 200 else "refused"
    print(f"   the right PIN last: {tried.right} ({verdict}), {took:.1f} s")


def rotated_addresses(page: Page, addresses: int = 100, each: int = 3, workers: int = 8) -> None:
    checked = count_checks(page)
    headers = page.session()
    started = time.monotonic()
    statuses = rotate(page, headers, addresses=addresses, each=each, workers=workers)
    took = time.monotonic() - started
    others = sum(statuses.values()) - statuses[403] - statuses[429]
    print(
        f"   {addresses} addresses × {each} wrong PINs ({workers} at a time): {checked[0]} checked;"
        f" answers {statuses[403]} × 403, {statuses[429]} × 429, {others} other; {took:.1f} s"
    )
    if statuses[429] == 0:
        rate = checked[0] / took
        print(
            f"   {rate:.1f} PINs checked a second: all 10^6 six-digit PINs in"
            f" {1e6 / rate / 3600:.0f} h at this rate"
        )
    status, answered, _body = page.ask(
        "POST", "/api/unlock", source="127.0.2.1", headers=headers, body={"pin": WRONG}
    )
    wait = answered.get("Retry-After")
    print(f"   then a wrong PIN from a fresh address: {status}, Retry-After {wait}")


def foreign_host(page: Page) -> None:
    for host in ("attacker.example", "pyramid.local", f"127.0.0.1:{page.port}"):
        status, _h, _b = page.ask("GET", "/api/state", headers={"Host": host})
        print(f"   GET /api/state with Host: {host:22s} -> {status}")


def streams(page: Page, count: int) -> None:
    # The answers are kept: the server says ``Connection: close``, so an answer dropped
    # would close its stream's socket and free its slot.
    held: list[http.client.HTTPResponse] = []
    statuses: Counter[int] = Counter()
    try:
        for _ in range(count):
            conn = http.client.HTTPConnection(
                "127.0.0.1", page.port, timeout=10, source_address=("127.0.0.2", 0)
            )
            conn.request("GET", "/events?view=none")
            answer = conn.getresponse()
            statuses[answer.status] += 1
            if answer.status == 200:
                held.append(answer)
            else:
                answer.read()
                conn.close()
        other = http.client.HTTPConnection(
            "127.0.0.1", page.port, timeout=10, source_address=("127.0.0.3", 0)
        )
        other.request("GET", "/events?view=none")
        theirs = other.getresponse().status
        other.close()
        counts = ", ".join(f"{n} × {s}" for s, n in sorted(statuses.items()))
        print(f"   one address asks for {count} live streams: {counts}")
        print(f"   then another address's live stream: {theirs}")
    finally:
        for answer in held:
            answer.close()


def slow_connections(page: Page, count: int, wait: float) -> None:
    slow: list[socket.socket] = []
    stop_trickle = threading.Event()
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.settimeout(5)
            sock.bind(("127.0.0.2", 0))
            sock.connect(("127.0.0.1", page.port))
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            slow.append(sock)
        opened = time.monotonic()

        def trickle() -> None:
            while not stop_trickle.wait(2.0):
                for sock in slow:
                    with suppress(OSError):
                        sock.send(b"X-Slow: 1\r\n")

        thread = threading.Thread(target=trickle, daemon=True)
        thread.start()
        started = time.monotonic()
        try:
            status, _h, _b = page.ask("GET", "/", source="127.0.0.3", timeout=10)
            print(
                f"   {count} slow connections from one address; GET / from another: {status}"
                f" in {time.monotonic() - started:.2f} s"
            )
        except (TimeoutError, OSError) as exc:
            print(
                f"   {count} slow connections from one address; GET / from another:"
                f" no answer ({type(exc).__name__} after {time.monotonic() - started:.1f} s)"
            )
        deadline = time.monotonic() + wait
        last_closed = None
        closed: set[int] = set()
        while time.monotonic() < deadline and len(closed) < count:
            readable, _w, _x = select.select(
                [s for s in slow if s.fileno() not in closed], [], [], 0.5
            )
            for sock in readable:
                try:
                    data = sock.recv(4096)
                except OSError:
                    data = b""
                if not data or data.startswith(b"HTTP/"):
                    closed.add(sock.fileno())
                    last_closed = time.monotonic() - opened
        print(f"   after {wait:.0f} s of trickling: {len(closed)} of {count} closed by the server")
        if last_closed is not None:
            print(f"   the last of them closed {last_closed:.1f} s after they were all open")
    finally:
        stop_trickle.set()
        for sock in slow:
            sock.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow", type=int, default=200)
    parser.add_argument("--streams", type=int, default=70)
    parser.add_argument("--wait", type=float, default=20.0)
    args = parser.parse_args()
    attacks = [
        ("1. the invitation code", code_for_locked),
        ("2. 60 concurrent unlocks", concurrent_unlocks),
        ("3. 300 rotated addresses", rotated_addresses),
        ("4. a foreign Host", foreign_host),
        ("5. live streams", lambda page: streams(page, args.streams)),
        ("6. slow connections", lambda page: slow_connections(page, args.slow, args.wait)),
    ]
    for title, attack in attacks:
        print(title)
        with tempfile.TemporaryDirectory() as folder, served(Path(folder)) as page:
            attack(page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

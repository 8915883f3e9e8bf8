"""The whole product on an emulated Pico: `pyramid run` plays two games to the end.

`pyramid run` (a subprocess, its HTTP API and its SQLite store: public behaviour only)
drives the firmware on MicroPython for the Pico in rp2040js (firmware/emulator) over the
pty, as it would a Pico on /dev/ttyACM0. Pearls and balls are reed switches closed at the
emulated pins; the LEDs are the WS2812 bytes decoded from the LED pin's edges.

Time: the harness runs the emulated clock at ``RATE`` (a quarter) of wall time, and the
config stretches the serial adapter's timings by ``1 / RATE`` through ``[board.serial]``
(``refresh_s``), and what it waits for (``silence_s``, ``frame_retry_s``, ``handshake_s``)
three times more, so the adapter waits at least as long in the Pico's time as it would
for a real one, on a loaded machine too. The firmware runs with the shipped timings
(config.py as shipped).

Checked: every move is stored (the store's game record has every placement and landing
in order), and every LED frame the program sent (each ``F`` line, in the order sent) is
what the LEDs then show, bit for bit on the wire, with no WS2812 timing error.
"""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import re
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_emulated_pico import need_emulator

from controller.hardware.channels import ChannelMap
from firmware import protocol
from firmware.emulator.pico import EmulatedPico
from firmware.sim.harness import FIRMWARE_DIR, SimConfig
from rigs.poll import wait_until

RATE = 0.25
SHIPPED = SimConfig.from_file(FIRMWARE_DIR / "config.py")
CHANNELS = ChannelMap.matrix().channel_by_name  # the serial adapter's default map
TOGETHER_S = 0.4
"""Wall seconds between two placements: the referee takes pearls that arrive within its
``together_s`` (0.25 s) of each other as placed at once, and asks for one at a time."""
CSRF_RE = re.compile(r'<meta name="csrf-token" content="([^"]+)"')


class Product:
    """`pyramid run` on the emulated Pico, spoken to over HTTP."""

    def __init__(self, pico: EmulatedPico, folder: Path) -> None:
        self.pico = pico
        config = folder / "config.toml"
        stretch = 1 / RATE
        # What the adapter waits for (an answer, a line) three times more still: on a
        # loaded machine the chip's clock falls behind RATE, and a link lost or a frame
        # sent again for that would be the machine's fault, not the product's.
        patience = 3 * stretch
        config.write_text(
            "[board]\n"
            'adapter = "serial"\n'
            "[board.serial]\n"
            f'port = "{pico.port}"\n'
            f"silence_s = {3.0 * patience}\n"
            f"refresh_s = {2.0 * stretch}\n"
            f"frame_retry_s = {0.25 * patience}\n"
            f"handshake_s = {0.5 * patience}\n"
        )
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pyramid_board.cli",
                "run",
                "--config",
                str(config),
                "--data-dir",
                str(folder),
                "--host",
                "127.0.0.1",
                "--port",
                "0",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.log: list[str] = []
        self._seen = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        try:
            # The one line `pyramid run` prints on standard output for scripts.
            self.url = self._wait_log(r"^pyramid: serving on (http://127\.0\.0\.1:\d+/)")
            pin = self._wait_log(r"Admin PIN for the web page: (\d+)")
            self.opener = urllib.request.build_opener(
                urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
            )
            page = self.opener.open(self.url + "rules", timeout=10).read().decode()
            match = CSRF_RE.search(page)
            assert match, "no CSRF token on the page"
            self.token = match.group(1)
            self.token = self.post("/api/unlock", {"pin": pin})["csrf_token"]
        except BaseException:
            self.close()  # a product that did not come up must not outlive the test
            raise
        self.db = folder / "pyramid.sqlite3"

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._seen:
                self.log.append(line)
                self._seen.notify_all()

    def _wait_log(self, pattern: str, timeout: float = 30.0) -> str:
        regex = re.compile(pattern)

        def found() -> str | None:
            for line in self.log:
                match = regex.search(line)
                if match:
                    return match.group(1)
            return None

        with self._seen:
            if not self._seen.wait_for(lambda: found() is not None, timeout):
                raise AssertionError(f"no {pattern!r} in the log: {''.join(self.log[-20:])}")
        result = found()
        assert result is not None
        return result

    def get(self, path: str) -> Any:
        with self.opener.open(self.url + path.lstrip("/"), timeout=10) as response:
            return json.loads(response.read())

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            self.url + path.lstrip("/"),
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-CSRFToken": self.token},
            method="POST",
        )
        with self.opener.open(request, timeout=10) as response:
            return json.loads(response.read())

    def wait(
        self, check: Callable[[dict[str, Any]], bool], what: str, timeout: float = 60.0
    ) -> dict[str, Any]:
        last: list[dict[str, Any]] = [{}]

        def ready() -> dict[str, Any] | None:
            last[0] = self.get("/api/state")
            return last[0] if check(last[0]) else None

        return wait_until(ready, timeout, interval=0.05, what=lambda: f"{what}; state {last[0]}")

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="module")
def product(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Product]:
    need_emulator()
    with EmulatedPico(SHIPPED, rate=RATE) as pico:
        running = Product(pico, tmp_path_factory.mktemp("product"))
        try:
            running.wait(lambda s: s["link"]["state"] == "connected", "the link", 60)
            yield running
        finally:
            running.close()


def press_button(product: Product, name: str) -> None:
    """A push of a board button: closed long enough to be debounced, then open again."""
    channel = CHANNELS[name]
    product.pico.press(channel)
    product.wait(lambda s: name in s["sensors"], f"{name} pressed", 30)
    product.pico.release(channel)
    product.wait(lambda s: name not in s["sensors"], f"{name} released", 30)


def record_of(product: Product, game_id: int) -> dict[str, Any]:
    game = product.get(f"/api/games/{game_id}")
    record: dict[str, Any] = game["record"]
    return record


def check_pictures(product: Product, since: float) -> int:
    """Every F line the program sent since ``since`` was answered OK and then shown
    exactly, in the order sent; returns how many. (The winner's sweep sends frames
    faster, in the Pico's slowed time, than the firmware decodes them: they queue and are
    shown late, but all shown.)"""
    pico = product.pico
    frames = []
    for at, line in pico.lines(since, name="in"):
        try:
            message = protocol.decode(line)
        except protocol.ProtocolError:
            continue
        if isinstance(message, protocol.Frame):
            frames.append((at, message))
    assert frames
    last = frames[-1][1].n
    pico.wait_for("out", lambda e: e.data["line"].startswith(f"OK {last}*"), timeout=pico.wall(10))

    def matches(colours: tuple[int, ...], frame: protocol.Frame) -> bool:
        # A refresh of the frame already shown keeps the blink rhythm: its blinking LEDs
        # may be in their dark half.
        return all(
            shown_colour == wanted or (frame.blink >> i & 1 and shown_colour == 0)
            for i, (shown_colour, wanted) in enumerate(zip(colours, frame.colours, strict=True))
        )

    last_at, last_frame = frames[-1]
    # The last frame on the LEDs: every earlier write is in by then.
    pico.wait_for("leds", lambda e: matches(e.colours, last_frame), pico.wall(0.5), last_at)
    shown = pico.of("leds", since)
    # Each F line was answered OK by the firmware, on the chip's side of the wire (the
    # program counts an OK only for the frame it still waits for: on a loaded machine it
    # has often sent the next one by the time the OK comes).
    answered = set()
    for _, line in pico.lines(since):
        with contextlib.suppress(protocol.ProtocolError):
            message = protocol.decode(line)
            if isinstance(message, protocol.Ok):
                answered.add(message.n)
    assert {message.n for _, message in frames} <= answered

    position = 0
    for at, message in frames:
        while position < len(shown) and not (
            shown[position].t >= at and matches(shown[position].colours, message)
        ):
            position += 1
        assert position < len(shown), f"frame {message.n} sent at {at:.3f} s never shown"
        position += 1
    assert not pico.of("ws2812_error"), pico.of("ws2812_error")
    return len(frames)


def like_a_person(product: Product) -> None:
    """A moment before the next placement, as people take: the referee takes a pearl that
    comes within ``together_s`` of a move, on the product's own (wall) clock, as placed with
    it. So the pause is wall time, and it is what a person does, not a wait for an outcome:
    the chip's clock alone is no sign of it, for the emulator caps the chip at RATE x the
    wall time since power-up *in all*, and a chip that fell behind on a loaded machine
    catches up as fast as it runs (TOGETHER_S x RATE of chip time then passes in far less
    than TOGETHER_S of wall time: a run under load placed e2 0.1 s after e1 that way). Both
    clocks must have moved: the chip's, so the firmware has scanned since, and the wall's."""
    start, wall = product.pico.now, time.monotonic()
    chip_s = TOGETHER_S * RATE
    # A busy machine's patience; the chip's clock asked 50 times a second, not 500.
    wait_until(
        lambda: product.pico.now >= start + chip_s and time.monotonic() >= wall + TOGETHER_S,
        60.0,
        interval=0.02,
    )


def test_a_perlen_pyramide_game_to_the_end(product: Product) -> None:
    since = product.pico.now
    product.post(
        "/api/game",
        {
            "game": "perlen-pyramide",
            "players": [
                {"name": "Anna", "colour": "green"},
                {"name": "Ben", "colour": "blue"},
                {"name": "Cleo", "colour": "orange"},
            ],
            "first_seat": 0,
            "options": {"pools": "unlimited"},
        },
    )
    state = product.wait(lambda s: s["game"] == "perlen-pyramide", "the new game")
    game_id = state["game_id"]
    placed: list[str] = []
    while True:
        state = product.get("/api/state")
        if state["over"] and not state["pending"]:
            break
        if state["pending"]:
            owed = len(state["pending"])
            press_button(product, "button:confirm")  # the bonus pearl is placed

            def taken(s: dict[str, Any], owed: int = owed) -> bool:
                return len(s["pending"]) < owed

            product.wait(taken, "the bonus taken")
            continue
        cell = state["legal"][0]
        moves = state["moves"]
        product.pico.press(CHANNELS[cell])  # the pearl stays: its switch stays closed

        def moved(s: dict[str, Any], moves: int = moves) -> bool:
            return bool(s["moves"] > moves)

        product.wait(moved, f"the move {cell}")
        placed.append(cell)
        like_a_person(product)
    assert len(placed) == 25
    record = record_of(product, game_id)
    assert record["moves"] == placed  # every move stored, in order
    with sqlite3.connect(product.db) as db:
        (finished,) = db.execute("SELECT COUNT(*) FROM games WHERE id = ?", (game_id,)).fetchone()
    assert finished == 1
    assert check_pictures(product, since) >= 25
    counters = state["link"]["counters"]
    assert counters["frames_acked"] > 0 and counters["dropped_lines"] == 0, counters
    for cell in placed:  # clear the board for the next game
        product.pico.release(CHANNELS[cell])
    product.wait(lambda s: not s["sensors"], "an empty board")


def test_a_pyramidos_game_to_the_end(product: Product) -> None:
    since = product.pico.now
    product.post(
        "/api/game",
        {
            "game": "pyramidos",
            "players": [{"name": "Anna", "colour": "green"}, {"name": "Ben", "colour": "blue"}],
            "first_seat": 0,
        },
    )
    state = product.wait(lambda s: s["game"] == "pyramidos", "the new game")
    game_id = state["game_id"]
    landings = ["t1", "t2", "t3", "t4", "top"]
    for target in landings:
        moves = product.get("/api/state")["moves"]
        product.pico.press(CHANNELS[target])

        def landed(s: dict[str, Any], moves: int = moves) -> bool:
            return bool(s["moves"] > moves)

        product.wait(landed, f"the landing on {target}")
        like_a_person(product)
    state = product.wait(lambda s: s["over"], "the end of the game")
    assert state["winners"]
    record = record_of(product, game_id)
    assert [e for e in record["events"] if e.startswith("land")] == [f"land {t}" for t in landings]
    assert check_pictures(product, since) >= 5
    for target in landings:
        product.pico.release(CHANNELS[target])

"""``pyramid diag``, driven in-process on the sim board and on mock gpio wiring."""

from __future__ import annotations

import _thread
import io
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from flask import Flask
from flask_babel import Babel
from gpiozero.pins.mock import MockFactory

from controller.cli.acceptance import BUTTON_WORDS, Layout, Pass, Timing, start
from controller.cli.diag import (
    WALK,
    Guide,
    Watch,
    header_map,
    render,
    report,
    walk_leds,
    watch_board,
)
from controller.config import Config, load_config
from controller.hardware.adapters import build_board
from controller.hardware.apa102 import apparent
from controller.hardware.channels import BUTTONS, ChannelMap
from controller.hardware.port import BoardStatus, LinkState, SensorFrame
from controller.hardware.sim import SimBoard
from pyramid_board.cli import main
from rigs.circuits import Apa102Strip, DiodeMatrix
from rigs.poll import wait_until
from tests.hardware.conftest import LgpioRig
from web_ui.render import sensor_name

ROOT = Path(__file__).resolve().parents[2]
MATRIX = ROOT / "configs" / "matrix.toml"
CHANGE = re.compile(r"^ +\d+\.\d{3}  [+-]")
A1 = "(one at a time, 1 of 33): place the probe pearl on a1 and lift it"
B1 = "(one at a time, 2 of 33): place the probe pearl on b1 and lift it"


@pytest.fixture
def sim_config(tmp_path: Path) -> Path:
    path = tmp_path / "sim.toml"
    path.write_text('[board]\nadapter = "sim"\n')
    return path


@pytest.fixture
def cmap() -> ChannelMap:
    return ChannelMap.default()


def frame(seq: int, at: float, *active: int) -> SensorFrame:
    return SensorFrame(frozenset(active), seq, at)


# -- what was seen ----------------------------------------------------------------------------


def test_watch_reports_chatter_within_one_second(cmap: ChannelMap) -> None:
    watch = Watch(cmap, cmap.channel_count, baseline=frozenset())
    a1 = cmap.channel("a1")
    for i in range(8):  # 8 toggles in 0.7 s
        watch.feed(frame(i + 1, 10 + i * 0.1, *([a1] if i % 2 == 0 else [])))
    slow = cmap.channel("b1")
    for i in range(8):  # 8 toggles, one every 0.5 s: a busy player, not chatter
        watch.feed(frame(i + 9, 20 + i * 0.5, *([slow] if i % 2 == 0 else [])))
    assert watch.stats[a1].worst_second == 8
    assert watch.stats[slow].worst_second == 2
    chatter = [p for p in watch.problems(max_rate=6) if p.startswith("chattered")]
    assert chatter == ["chattered (more than 6 toggles a second): a1 (8 in one second)"]


def test_watch_reports_channels_without_a_name() -> None:
    cmap = ChannelMap.default(cells=False)  # channels 0–7 named
    watch = Watch(cmap, channels=10, baseline=frozenset())
    assert watch.feed(frame(1, 1.0, 9)) == [("#9", True)]
    assert any("no name" in p and "#9 (1×)" in p for p in watch.problems(6))


def test_render_plain(cmap: ChannelMap) -> None:
    watch = Watch(cmap, cmap.channel_count, baseline=frozenset())
    watch.feed(frame(1, 1.0, cmap.channel("c3"), cmap.channel("top")))
    text = render(watch, "sim: test", 1.0, tty=False)
    lines = text.splitlines()
    assert lines[0] == "sim: test"
    assert "  3   .  0  .  0  X  1  .  0  .  0" in lines
    assert any(line.startswith("targets") and "top X  1" in line for line in lines)
    assert any(line.startswith("buttons") and "Confirm .  0" in line for line in lines)
    assert any(line.startswith("buttons") and "End turn .  0" in line for line in lines)
    assert "\x1b" not in text


def test_diag_names_the_buttons_as_the_page_does() -> None:
    """The grid, the steps and the report say "End turn" where the page's diagnostics say
    "End turn button" (web_ui/render.py, in English): the same words, not ``end_turn``."""
    app = Flask(__name__)
    Babel(app)
    with app.test_request_context():
        for name, words in BUTTON_WORDS.items():
            assert sensor_name(name) == f"{words} button"
    assert set(BUTTON_WORDS) == set(BUTTONS)


def test_render_pyramidos_board_has_no_grid() -> None:
    cmap = ChannelMap.default(cells=False)
    text = render(Watch(cmap, 8, frozenset()), "x", 0.0, tty=True)
    assert "targets" in text and "  5   " not in text


# -- live view and LED walk on the sim board ------------------------------------------------


class Screen(io.StringIO):
    """The terminal the watch prints to, which a person at the board reads meanwhile."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            return super().write(text)

    def text(self) -> str:
        with self._lock:
            return self.getvalue()

    def changes(self) -> list[str]:
        """The change lines' marks so far (``+c3``, ``-t2``), in order."""
        lines = self.text().splitlines()
        return [mark for line in lines if CHANGE.match(line) for mark in line.split()[1:]]


Move = tuple[Callable[[], object], Callable[[], object]]
"""(what the screen must show first, what the person then does)."""


class Person:
    """Someone at the board who makes each move once the screen shows the one before
    (never after a pause: a slow machine only makes them wait longer), then ends the
    watch with ``end`` (``stop.set``, or Ctrl-C). A move the watch never shows ends it
    too, and the test fails naming what the person waited for."""

    def __init__(self, screen: Screen, moves: list[Move], end: Callable[[], object]) -> None:
        self.screen = screen
        self.moves = moves
        self.end = end
        self.error: Exception | None = None
        self._home = threading.Event()
        self._thread = threading.Thread(target=self._act, name="person", daemon=True)

    def __enter__(self) -> Person:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._home.set()  # the watch is over: whatever was left is not waited for
        self._thread.join(timeout=10)
        assert not self._thread.is_alive(), "the person at the board did not go home"
        if self.error is not None:
            raise AssertionError(f"the person at the board: {self.error}") from self.error

    def _act(self) -> None:
        try:
            for n, (until, then) in enumerate(self.moves, 1):
                self._see(until, n)
                then()
        except Exception as error:  # kept for the test's thread, which raises it
            self.error = error
        finally:
            if not self._home.is_set():
                self.end()

    def _see(self, until: Callable[[], object], n: int) -> None:
        def what() -> str:
            return f"before move {n}, the screen showed:\n{self.screen.text()}"

        wait_until(lambda: self._home.is_set() or until(), timeout=10, what=what)
        if self._home.is_set():
            raise AssertionError(f"the watch ended before move {n}; {what()}")


def printed(text: str, screen: Screen) -> Callable[[], bool]:
    return lambda: text in screen.text()


def changed(mark: str, screen: Screen) -> Callable[[], bool]:
    return lambda: mark in screen.changes()


def test_plain_view_prints_one_line_per_change(cmap: ChannelMap) -> None:
    board = SimBoard(cmap.channel_count, cmap.led_count)
    c3, t2 = cmap.channel("c3"), cmap.channel("t2")
    board.set_channel(t2, True)  # already occupied when diag starts: not a toggle
    stop = threading.Event()
    out = Screen()
    moves: list[Move] = [
        (printed("buttons", out), lambda: board.set_channel(c3, True)),  # the first view
        (changed("+c3", out), lambda: board.set_channel(c3, False)),
        (changed("-c3", out), lambda: board.set_channel(t2, False)),
        (changed("-t2", out), stop.set),
    ]
    with Person(out, moves, end=stop.set):
        watch = watch_board(board, cmap, out, tty=False, stop=stop, settle=0.05)
    text = out.getvalue()
    assert out.changes() == ["+c3", "-c3", "-t2"]  # nothing else, each on its own line
    assert [line.split()[1] for line in text.splitlines() if CHANGE.match(line)] == out.changes()
    assert watch.stats[c3].toggles == 2 and watch.stats[t2].toggles == 1
    assert "\x1b" not in text
    assert text.count("sim: simulated board") == 2  # the view at the start and at the end


def test_occupied_channels_light_their_led(cmap: ChannelMap) -> None:
    board = SimBoard(cmap.channel_count, cmap.led_count)
    stop = threading.Event()
    d4 = cmap.channel("d4")
    out = Screen()
    moves: list[Move] = [
        (printed("buttons", out), lambda: board.set_channel(d4, True)),
        (changed("+d4", out), stop.set),  # printed after its LEDs were shown
    ]
    with Person(out, moves, end=stop.set):
        watch_board(board, cmap, out, tty=False, stop=stop, settle=0.02)
    lit = [i for i, led in enumerate(board.shown[-1].leds) if led.lit]
    assert lit == [cmap.led("d4")]


def test_tty_view_redraws_in_place(cmap: ChannelMap) -> None:
    board = SimBoard(cmap.channel_count, cmap.led_count)
    stop = threading.Event()
    out = Screen()
    moves: list[Move] = [
        (printed("buttons", out), lambda: board.set_channel(cmap.channel("a1"), True)),
        (printed("●", out), stop.set),
    ]
    with Person(out, moves, end=stop.set):
        watch_board(board, cmap, out, tty=True, stop=stop, settle=0.0)
    text = out.getvalue()
    assert text.startswith("\x1b[?25l\x1b[H\x1b[2J")  # hide the cursor, clear once
    assert text.count("\x1b[H") >= 2  # then redraw from the top
    assert "●" not in text.split("\x1b[H")[2]  # the first view: nothing on the board yet
    assert text.endswith("\x1b[?25h\n")  # the cursor comes back


def test_led_walk_on_the_sim_board(cmap: ChannelMap) -> None:
    board = SimBoard(cmap.channel_count, cmap.led_count)
    out = io.StringIO()
    walk_leds(board, cmap, out, dwell=0.0)
    lines = out.getvalue().splitlines()
    assert len(lines) == 4 * cmap.led_count
    assert lines[0].split() == ["LED", "0", "a1", "red"]
    assert lines[-1].split() == ["LED", "36", "seat:3", "white"]
    shown = board.shown[:-1]
    assert len(shown) == 4 * cmap.led_count
    for n, picture in enumerate(shown):
        lit = [(i, led.colour) for i, led in enumerate(picture.leds) if led.lit]
        assert lit == [(n // 4, WALK[n % 4][1])]
    assert not any(led.lit for led in board.shown[-1].leds)  # blank at the end


def test_led_walk_reaches_the_apa102_strip(lgpio_pi: LgpioRig) -> None:
    """On the Pi's own path: gpiozero's LGPIOFactory over the lgpio model, the LEDs on the
    kernel's SPI0 as configs/matrix.toml asks (one write per picture)."""
    config = load_config(MATRIX)
    DiodeMatrix(lgpio_pi.model, config.board.gpio.rows, config.board.gpio.cols)
    strip = Apa102Strip(lgpio_pi.model, 37)
    board, cmap = build_board(config, pin_factory=lgpio_pi.factory)
    with board:
        walk_leds(board, cmap, io.StringIO(), dwell=0.0)
    pictures = list(strip.pictures)[1:-2]  # after the opening blank; before the closing ones
    assert len(pictures) == 4 * 37
    for n, picture in enumerate(pictures):
        lit = [(i, p.apparent) for i, p in enumerate(picture) if p.level]
        assert lit == [(n // 4, apparent(WALK[n % 4][1], config.leds.brightness))]


# -- the command -----------------------------------------------------------------------------


def test_check_on_the_sim_board_says_there_is_nothing_to_touch(
    sim_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not 'every channel never changed' (nobody could have changed one), but what to do."""
    status = main(["diag", "--config", str(sim_config), "--check", "30"])
    out = capsys.readouterr().out
    assert status == 0
    assert "the simulated board has no sensors to touch" in out
    assert "pyramid diag --config configs/matrix.toml --check\n" in out
    assert "never changed" not in out


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """Python's own Ctrl-C handler for the test, as in a terminal: a shell starts a
    background job (``make test &``) with SIGINT ignored, and then interrupt_main(),
    which simulates the signal, does nothing at all."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("ctrl_c_raises")
def test_ctrl_c_ends_a_guided_check_with_its_report(cmap: ChannelMap) -> None:
    board = SimBoard(cmap.channel_count, cmap.led_count)
    c3 = cmap.channel("c3")
    out = Screen()
    # a1 is asked for after the empty board, and c3 changes instead: a wrong wire.
    moves: list[Move] = [
        (printed(A1, out), lambda: board.set_channel(c3, True)),
        (changed("+c3", out), lambda: board.set_channel(c3, False)),
        (lambda: "-c3" in out.changes() and B1 in out.text(), _thread.interrupt_main),
    ]
    layout = Layout.of(cmap, columns=6)
    timing = Timing(settle=0.02, grace=0.1, patience=30.0)
    guide = Guide(layout, timing)
    with Person(out, moves, end=_thread.interrupt_main):
        watch = watch_board(board, cmap, out, tty=False, settle=0.0, guide=guide)
    check = guide.check
    assert check is not None
    assert "(check ended early)" in out.getvalue()
    assert check.step.pass_ is Pass.ONE and check.step.target == "b1"
    assert watch.stats[c3].toggles == 2
    status = report(check, watch, 6, out)
    assert status == 1
    assert "  seen: asked for a1, c3 changed\n" in out.getvalue()


def test_an_unfinished_check_is_not_a_pass(cmap: ChannelMap) -> None:
    board = SimBoard(cmap.channel_count, cmap.led_count)
    stop = threading.Event()
    out = Screen()
    layout = Layout.of(cmap, columns=6)
    guide = Guide(layout, Timing(0.02, 0.1, 30.0))
    with Person(out, [(printed(A1, out), stop.set)], end=stop.set):  # past the empty board
        watch = watch_board(board, cmap, out, tty=False, stop=stop, settle=0.0, guide=guide)
    assert guide.check is not None
    assert report(guide.check, watch, 6, out) == 1
    assert (
        out.getvalue()
        .rstrip()
        .endswith("check: ended early in the one at a time pass, no problem so far")
    )


def test_the_report_counts_chatter_and_stray_channels(cmap: ChannelMap) -> None:
    """Noise the board made during a check (a loose joint, a bridged spare crossing)."""
    watch = Watch(cmap, 36, baseline=frozenset({34}))
    c3 = cmap.channel("c3")
    for i in range(8):
        watch.feed(frame(i + 1, 10 + i * 0.1, 34, *([c3] if i % 2 == 0 else [])))
    check = start(Layout.of(cmap, 6), Timing(), now=0.0)
    out = io.StringIO()
    assert report(check, watch, 6, out) == 1
    text = out.getvalue()
    assert "  seen: chattered (more than 6 toggles a second): c3 (8 in one second)\n" in text
    assert "  seen: channels with no name changed or read occupied: #34 (0×)\n" in text


def test_pins_prints_the_header(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diag", "--config", str(MATRIX), "--pins"]) == 0
    out = capsys.readouterr().out
    assert "row 0: a1 b1 c1 d1 e1 t1  GPIO4 [ 7] [ 8] GPIO14" in out
    assert "LED clock (CI) SPI0 SCLK GPIO11 [23]" in out


def test_header_map_of_the_defaults_has_no_uses() -> None:
    text = header_map(Config())
    assert "GPIO4 [ 7]" in text and "row" not in text


def test_bad_config_exits_2_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[board]\nadapter = "gpio"\n[board.gpio]\nrows = [4, 99]\n')
    assert main(["diag", "--config", str(path)]) == 2
    assert "board.gpio.rows[1]" in capsys.readouterr().err


def test_a_config_with_three_mistakes_names_all_three(tmp_path: Path) -> None:
    """As a maker runs it: one run of the real command, every mistake on its own line."""
    path = tmp_path / "bad.toml"
    path.write_text(
        '[board]\nadapter = "gpio"\n[board.gpio]\nrows = [4, 99]\n'
        "[leds]\nbrightness = 1.5\n[remote]\nbroker = 'http://example.net'\nname = 'x'\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pyramid_board.cli", "diag", "--pins", "--config", str(path)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "pyramid diag: config: 3 mistakes:",
        "  board.gpio.rows[1]: GPIO 99 is not on the 40-pin header (BCM GPIO 2–27 are valid)",
        "  leds.brightness: must be from 0 to 1, not 1.5",
        "  remote.broker: must be mqtt://host:port or mqtts://host:port, not 'http://example.net'",
    ]


@pytest.mark.usefixtures("ctrl_c_raises")
def test_the_check_command_on_a_matrix_board(
    mock_factory: MockFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pyramid diag --check`` as a maker runs it: the intro, the steps, Ctrl-C, the report.

    Nobody is at the board: the empty board passes, then the first cell waits for a hand.
    """
    config = tmp_path / "matrix.toml"
    config.write_text(MATRIX.read_text().replace("spi = { clock = 11, mosi = 10 }", "spi = false"))
    gpio = load_config(config).board.gpio
    DiodeMatrix(mock_factory, gpio.rows, gpio.cols)
    screen = Screen()
    monkeypatch.setattr(sys, "stdout", screen)  # what the maker sees, as it is printed
    with Person(screen, [(printed(A1, screen), _thread.interrupt_main)], _thread.interrupt_main):
        status = main(["diag", "--config", str(config), "--check"])
    out = screen.getvalue()
    assert out.startswith("The acceptance check: it asks for one thing at a time.")
    assert "  next (empty board, 1 of 1): take every pearl and ball off the board" in out
    assert "  next (one at a time, 1 of 33): place the probe pearl on a1 and lift it\n" in out
    assert "(check ended early)" in out
    assert out.rstrip().endswith("check: ended early in the one at a time pass, no problem so far")
    assert status == 1


def test_the_check_in_a_terminal_shows_the_step_under_the_grid(cmap: ChannelMap) -> None:
    board = SimBoard(cmap.channel_count, cmap.led_count)
    stop = threading.Event()
    out = Screen()
    guide = Guide(Layout.of(cmap, 6), Timing(0.02, 0.1, 30.0))
    with Person(out, [(printed(A1, out), stop.set)], end=stop.set):
        watch_board(board, cmap, out, tty=True, stop=stop, settle=0.0, guide=guide)
    footer = f"\x1b[1mnext {A1}\x1b[0m\nEnter when done (or just wait); Ctrl-C ends"
    assert footer in out.getvalue()


def test_board_that_cannot_open_exits_2(
    mock_factory: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    holder = _Holder()
    mock_factory.reserve_pins(holder, 4)  # another gpiozero device has GPIO4
    assert main(["diag", "--config", str(MATRIX), "--check", "1"]) == 2
    assert "cannot open the board: GPIOPinInUse" in capsys.readouterr().err


class _Holder:
    """Something else holding a pin, as another gpiozero device would."""

    def _conflicts_with(self, other: object) -> bool:
        return True

    def close(self) -> None:
        pass


class _LateBoard(SimBoard):
    """A board found only after a while, as the Pico is: searching until ``found`` is set."""

    def __init__(self, channels: int, leds: int) -> None:
        super().__init__(channels, leds)
        self.found = threading.Event()

    def status(self) -> BoardStatus:
        found = self.found.is_set()
        return replace(
            super().status(),
            link=LinkState.CONNECTED if found else LinkState.SEARCHING,
            detail="found" if found else "looking for it",
        )


def test_a_board_found_late_is_waited_for(cmap: ChannelMap) -> None:
    """Pearls already on the board when it is found are its state, not toggles."""
    board = _LateBoard(cmap.channel_count, cmap.led_count)
    a1 = cmap.channel("a1")
    stop = threading.Event()
    out = Screen()

    def found_with_a1() -> None:
        board.set_channel(a1, True)  # its first frame, sent while it is being looked for
        board.found.set()

    moves: list[Move] = [
        (printed("waiting for the board", out), found_with_a1),
        (printed("buttons", out), stop.set),  # the first view
    ]
    with Person(out, moves, end=stop.set):
        watch = watch_board(board, cmap, out, tty=False, stop=stop, settle=0.05)
    assert out.getvalue().startswith("waiting for the board: looking for it\n")
    assert watch.baseline == {a1}
    assert watch.stats[a1].toggles == 0


def test_pins_show_the_buzzer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "buzzer.toml"
    path.write_text(MATRIX.read_text() + "\n[buzzer]\npin = 18\n")
    assert main(["diag", "--config", str(path), "--pins"]) == 0
    out = capsys.readouterr().out
    assert "[12] GPIO18 buzzer: 220 Ω to the piezo (its other lead to GND)" in out


def test_calibrate_refuses_a_sensor_the_board_has_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--calibrate c3,x9``: x9 is named, with the board's sensors, before anything is
    opened (the port does not exist)."""
    path = tmp_path / "pico.toml"
    path.write_text('[board]\nadapter = "serial"\n[board.serial]\nport = "/dev/ttyNOPE"\n')
    assert main(["diag", "--config", str(path), "--calibrate", "c3,x9"]) == 2
    err = capsys.readouterr().err
    assert "--calibrate: no sensor named x9 (this board's: a1, a2," in err
    assert "button:" not in err


def test_calibrate_on_a_board_that_keeps_none_says_so(
    mock_factory: MockFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The matrix on gpiozero's mock pins keeps no calibration: nothing calibrated, and
    where to read why; exit 1 (the sim board has no sensors at all: exit 0, as --check)."""
    path = tmp_path / "matrix.toml"
    path.write_text('[board]\nadapter = "gpio"\n')
    assert main(["diag", "--config", str(path), "--calibrate"]) == 1
    assert "calibration: nothing calibrated. Only the reflective Pico board" in (
        capsys.readouterr().out
    )
    sim = tmp_path / "sim.toml"
    sim.write_text('[board]\nadapter = "sim"\n')
    assert main(["diag", "--config", str(sim), "--calibrate", "c3"]) == 0
    assert "the simulated board has no sensors to touch" in capsys.readouterr().out

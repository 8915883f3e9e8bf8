"""``pyramid run`` as a real process: serves the page, says where, stops cleanly."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import IO

import pytest

from controller.addresses import interface_addresses, page_urls
from rigs.poll import wait_until

ROOT = Path(__file__).resolve().parents[2]


class Running:
    """``pyramid run`` in a subprocess: its log (standard error) and its standard output
    collected as they come."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pyramid_board.cli", "run", *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        self.lines: list[str] = []
        self.out: list[str] = []
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._reader = threading.Thread(
            target=self._read, args=(self.proc.stderr, self.lines), daemon=True
        )
        self._out_reader = threading.Thread(
            target=self._read, args=(self.proc.stdout, self.out), daemon=True
        )
        self._reader.start()
        self._out_reader.start()

    @staticmethod
    def _read(stream: IO[str], into: list[str]) -> None:
        for line in stream:
            into.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float = 15.0) -> re.Match[str]:
        def found() -> re.Match[str] | None:
            for line in list(self.lines):
                if m := re.search(pattern, line):
                    return m
            if self.proc.poll() is not None and not self._reader.is_alive():
                raise AssertionError(f"exited without {pattern!r}:\n" + "\n".join(self.lines))
            return None

        return wait_until(found, timeout, interval=0.02, what=lambda: "\n".join(self.lines))

    def stop(self, sig: int = signal.SIGTERM) -> int:
        self.proc.send_signal(sig)
        code = self.proc.wait(15)
        self._reader.join(5)
        self._out_reader.join(5)
        return code

    @property
    def log(self) -> str:
        return "\n".join(self.lines)


def test_serves_the_page_logs_where_and_stops_on_sigterm(tmp_path: Path) -> None:
    run = Running("--data-dir", str(tmp_path), "--host", "127.0.0.1", "--port", "0")
    try:
        url = run.wait_for(r"    (http://127\.0\.0\.1:\d+/)").group(1)
        with urllib.request.urlopen(url + "api/state", timeout=5) as response:
            state = json.load(response)
        assert state["status"] == "idle" and state["link"]["adapter"] == "sim"
        assert re.search(r"ready in \d+\.\d\d s", run.log)
    finally:
        code = run.stop(signal.SIGTERM)
    assert code == 0, run.log
    assert "SIGTERM: shutting down" in run.log and run.log.rstrip().endswith("stopped")
    assert (tmp_path / "pyramid.sqlite3").is_file()


def test_ctrl_c_stops_cleanly_too(tmp_path: Path) -> None:
    run = Running("--data-dir", str(tmp_path), "--host", "127.0.0.1", "--port", "0")
    run.wait_for("open the page at")
    assert run.stop(signal.SIGINT) == 0, run.log
    assert "SIGINT: shutting down" in run.log


def test_a_bad_config_exits_2_naming_the_key(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[board]\nadapter = "gpoi"\n')
    run = Running("--config", str(config), "--data-dir", str(tmp_path))
    assert run.proc.wait(15) == 2
    run._reader.join(5)
    assert "board.adapter" in run.log and "gpoi" in run.log


def test_a_gpio_board_without_gpio_hardware_exits_2_with_one_clear_line(tmp_path: Path) -> None:
    # This machine has no Raspberry Pi header: gpiozero finds no pin factory. The maker
    # gets a sentence naming the board, not a traceback.
    run = Running(
        "--config",
        str(ROOT / "configs" / "direct.toml"),
        "--data-dir",
        str(tmp_path),
        env={"GPIOZERO_PIN_FACTORY": "lgpio"},
    )
    assert run.proc.wait(15) == 2
    run._reader.join(5)
    assert "pyramid run: board:" in run.log and "not a Raspberry Pi" in run.log
    assert "Traceback" not in run.log


def test_a_taken_port_exits_1(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = Running("--data-dir", str(tmp_path), "--host", "127.0.0.1", "--port", str(port))
        assert run.proc.wait(20) == 1, run.log
        run._reader.join(5)
    assert "cannot be served" in run.log


def test_a_damaged_store_is_set_aside_and_the_program_starts(tmp_path: Path) -> None:
    (tmp_path / "pyramid.sqlite3").write_text("not a database")
    run = Running("--data-dir", str(tmp_path), "--host", "127.0.0.1", "--port", "0")
    try:
        run.wait_for("open the page at")
    finally:
        assert run.stop() == 0
    assert "is not an SQLite database" in run.log and "unusable-" in run.log
    aside = [p for p in tmp_path.iterdir() if ".unusable-" in p.name]
    assert len(aside) == 1 and aside[0].read_text() == "not a database"


def test_page_urls_name_the_host_and_every_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "gethostname", lambda: "pyramid")
    urls = page_urls("0.0.0.0", 8080)
    assert urls[0] == "http://pyramid.local:8080/"
    assert set(urls[1:]) == {f"http://{a}:8080/" for a in interface_addresses()}
    assert "127.0.0.1" in interface_addresses()
    assert page_urls("10.0.0.7", 80) == ["http://10.0.0.7:80/"]


def test_port_0_prints_the_bound_port_on_one_line_of_standard_output(tmp_path: Path) -> None:
    """Issue 15: a script reads where the page is from standard output, nothing else."""
    run = Running("--data-dir", str(tmp_path), "--port", "0")
    try:
        run.wait_for("open the page at")
        wait_until(lambda: run.out, 5.0, what=lambda: run.log)
        assert len(run.out) == 1, run.out
        match = re.fullmatch(r"pyramid: serving on (http://127\.0\.0\.1:(\d+)/)", run.out[0])
        assert match, run.out
        assert int(match.group(2)) != 0
        with urllib.request.urlopen(match.group(1) + "api/session", timeout=5) as response:
            assert json.load(response)["unlocked"] is False
        # The log says where it listens: every address (the built-in default), and each one.
        port = match.group(2)
        assert f"web page on http://0.0.0.0:{port}/ (every address of this machine" in run.log
        for address in interface_addresses():
            assert f"    http://{address}:{port}/" in run.log
    finally:
        assert run.stop() == 0
    assert len(run.out) == 1  # nothing more on standard output, shutting down included


def test_a_store_with_a_pin_says_how_to_set_a_new_one(tmp_path: Path) -> None:
    first = Running("--data-dir", str(tmp_path), "--host", "127.0.0.1", "--port", "0")
    try:
        pin = first.wait_for(r"Admin PIN for the web page: (\d{6}) \(shown once").group(1)
        assert "set before" not in first.log
        # The PIN and the addresses come last, boxed, and the PIN nowhere else.

        def boxed() -> list[str] | None:
            lines = list(first.lines)
            return lines if sum(line.startswith("+---") for line in lines) == 2 else None

        said = wait_until(boxed)
        top, bottom = (i for i, line in enumerate(said) if line.startswith("+---"))
        assert bottom == len(said) - 1
        assert all(line.startswith("| ") and line.endswith(" |") for line in said[top + 1 : bottom])
        (at,) = (i for i, line in enumerate(said) if pin in line)
        assert top < at < bottom and "| Open the page at:" in said[top + 1]
        assert re.search(r"ready in \d+\.\d\d s", "\n".join(said[:top]))
    finally:
        assert first.stop() == 0
    again = Running("--data-dir", str(tmp_path), "--host", "127.0.0.1", "--port", "0")
    try:
        line = again.wait_for(r"admin PIN: set before \(not shown again\); `(.+)` sets a new one")
        assert line.group(1) == f"pyramid pin --data-dir {tmp_path}"
        assert pin not in again.log and "Admin PIN for the web page" not in again.log
        again.wait_for(r"web page on http://127\.0\.0\.1:\d+/$")
    finally:
        assert again.stop() == 0
    # The command it names reaches the same store: a PIN set with it unlocks the page.
    from controller.settings import Settings
    from controller.store import Store

    done = subprocess.run(
        [sys.executable, "-m", "pyramid_board.cli", "pin", "--data-dir", str(tmp_path)],
        input="97531\n",
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    with Store(tmp_path / "pyramid.sqlite3") as store:
        assert Settings(store).check_pin("97531") and not Settings(store).check_pin(pin)


def test_configs_sim_toml_is_what_no_config_gives() -> None:
    """The file says so of itself; the README's web section says the same address."""
    import dataclasses

    from controller.config import Config, load_config

    sim = load_config(ROOT / "configs" / "sim.toml")
    assert dataclasses.replace(sim, source=None) == Config()
    assert sim.web.host == "0.0.0.0"

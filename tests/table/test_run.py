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
import time
import urllib.request
from pathlib import Path

import pytest

from controller.commands.run import interface_addresses, page_urls

ROOT = Path(__file__).resolve().parents[2]


class Running:
    """``pyramid run`` in a subprocess, its log collected as it comes."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "run", *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, **(env or {})},
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float = 15.0) -> re.Match[str]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in list(self.lines):
                m = re.search(pattern, line)
                if m:
                    return m
            if self.proc.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.02)
        raise AssertionError(f"no {pattern!r} in the log:\n" + "\n".join(self.lines))

    def stop(self, sig: int = signal.SIGTERM) -> int:
        self.proc.send_signal(sig)
        code = self.proc.wait(15)
        self._reader.join(5)
        return code

    @property
    def log(self) -> str:
        return "\n".join(self.lines)


def test_serves_the_page_logs_where_and_stops_on_sigterm(tmp_path: Path):
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


def test_ctrl_c_stops_cleanly_too(tmp_path: Path):
    run = Running("--data-dir", str(tmp_path), "--host", "127.0.0.1", "--port", "0")
    run.wait_for("open the page at")
    assert run.stop(signal.SIGINT) == 0, run.log
    assert "SIGINT: shutting down" in run.log


def test_a_bad_config_exits_2_naming_the_key(tmp_path: Path):
    config = tmp_path / "config.toml"
    config.write_text('[board]\nadapter = "gpoi"\n')
    run = Running("--config", str(config), "--data-dir", str(tmp_path))
    assert run.proc.wait(15) == 2
    run._reader.join(5)
    assert "board.adapter" in run.log and "gpoi" in run.log


def test_a_gpio_board_without_gpio_hardware_exits_2_with_one_clear_line(tmp_path: Path):
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


def test_a_taken_port_exits_1(tmp_path: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = Running("--data-dir", str(tmp_path), "--host", "127.0.0.1", "--port", str(port))
        assert run.proc.wait(20) == 1, run.log
        run._reader.join(5)
    assert "cannot be served" in run.log


def test_a_damaged_store_is_set_aside_and_the_program_starts(tmp_path: Path):
    (tmp_path / "pyramid.sqlite3").write_text("not a database")
    run = Running("--data-dir", str(tmp_path), "--host", "127.0.0.1", "--port", "0")
    try:
        run.wait_for("open the page at")
    finally:
        assert run.stop() == 0
    assert "is not an SQLite database" in run.log and "unusable-" in run.log
    aside = [p for p in tmp_path.iterdir() if ".unusable-" in p.name]
    assert len(aside) == 1 and aside[0].read_text() == "not a database"


def test_page_urls_name_the_host_and_every_address(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(socket, "gethostname", lambda: "pyramid")
    urls = page_urls("0.0.0.0", 8080)
    assert urls[0] == "http://pyramid.local:8080/"
    assert set(urls[1:]) == {f"http://{a}:8080/" for a in interface_addresses()}
    assert "127.0.0.1" in interface_addresses()
    assert page_urls("10.0.0.7", 80) == ["http://10.0.0.7:80/"]

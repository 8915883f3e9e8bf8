"""``pyramid run`` in a process of its own and a client of its JSON API, for the tests that
kill it (``tests/table/test_kill_after_answer.py``, ``test_kill_power_cut.py``)."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any

from rigs.poll import wait_until

ROOT = Path(__file__).resolve().parents[1]


class Program:
    """``pyramid run`` on ``data`` (with more ``args``), its URL read from its one line of
    standard output."""

    def __init__(self, data: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pyramid_board.cli", "run", "--data-dir", str(data),
             "--host", "127.0.0.1", "--port", "0", *args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.log: list[str] = []
        assert self.proc.stderr is not None and self.proc.stdout is not None
        threading.Thread(target=self._read_log, daemon=True).start()
        line = self.proc.stdout.readline()
        match = re.fullmatch(r"pyramid: serving on (http://\S+/)\n", line)
        assert match, (line, self.log)
        self.url = match.group(1)

    def _read_log(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.log.append(line)

    def pin(self) -> str | None:
        for line in self.log:
            found = re.search(r"Admin PIN for the web page: (\d+)", line)
            if found:
                return found.group(1)
        return None

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)


class Client:
    """A browser's session: a cookie jar and the CSRF token, all through the JSON API."""

    def __init__(self) -> None:
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        self.token = ""

    def get(self, url: str) -> Any:
        with self.opener.open(url, timeout=10) as response:
            return json.load(response)

    def post(self, url: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            url,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-CSRFToken": self.token},
        )
        with self.opener.open(request, timeout=10) as response:
            return json.load(response)


def unlocked(program: Program, client: Client) -> str:
    """Open the program's session for ``client`` (its PIN read from the log); the URL."""
    url = program.url
    session = client.get(url + "api/session")
    client.token = session["csrf_token"]
    if not session["unlocked"]:
        pin = wait_until(program.pin, 5.0, what=lambda: program.log)  # the log may lag
        client.token = client.post(url + "api/unlock", {"pin": pin})["csrf_token"]
    return url

"""A board's link in a process of its own, so a test can SIGKILL it: its store a file.

    python -m tests.remote.board_process --port P --side b --name Tim --journal FILE

:class:`FileJournal` models the store as the link relies on it: each event made here and
each step's delivered events and acknowledgement mark are one JSON line, written and
fsynced before the call returns (the store commits before the Table goes on); a line cut
short by a kill is ignored on reading (the store's WAL drops a torn commit the same way).
Standard input takes ``make N`` (an event made here) and ``report`` (answered with
``report`` and the link's report as JSON); standard output says ``ready`` once the link
is connected.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from controller.config import RemoteConfig
from controller.remote.journal import Logged, Origin
from controller.remote.link import Connection, Link, LinkTiming, Report
from controller.remote.mqtt import RemoteLink
from controller.remote.outcomes import Acknowledged, Delivered, Outcome, Paired
from controller.remote.wire import JsonObject, Side, derive_keys
from rigs.network import secret_of
from rigs.poll import wait_until

CODE = "5A4L-KPRX-AC7H"


class FileJournal:
    """A :class:`~controller.remote.journal.Journal` in a file of JSON lines, fsynced."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()

    def _lines(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        lines = []
        for text in self.path.read_text(encoding="utf-8").splitlines():
            try:
                lines.append(json.loads(text))
            except ValueError:
                break  # torn by a kill: nothing after it was written either
        return lines

    def _write(self, lines: Iterable[dict[str, object]]) -> None:
        with self.path.open("a", encoding="utf-8") as file:
            file.write("".join(json.dumps(line) + "\n" for line in lines))
            file.flush()
            os.fsync(file.fileno())

    def logged(self) -> list[Logged]:
        return [
            Logged(Origin(line["origin"]), line["seq"], line["event"])
            for line in self._lines()
            if "origin" in line
        ]

    def acked(self) -> int:
        return max((line["ack"] for line in self._lines() if "ack" in line), default=0)

    def peer(self) -> tuple[str, bytes] | None:
        """The other board once paired (kept as the store keeps it)."""
        peers = [line["peer"] for line in self._lines() if "peer" in line]
        return (peers[-1][0], bytes.fromhex(peers[-1][1])) if peers else None

    def made(self, event: JsonObject) -> None:
        with self.lock:
            seq = 1 + sum(1 for e in self.logged() if e.origin is Origin.HERE)
            self._write([{"origin": "here", "seq": seq, "event": dict(event)}])

    def keep(self, happened: tuple[Outcome, ...], _report: Report) -> None:
        lines: list[dict[str, object]] = []
        for outcome in happened:
            if isinstance(outcome, Delivered):
                lines.append({"origin": "there", "seq": outcome.seq, "event": dict(outcome.event)})
            elif isinstance(outcome, Acknowledged):
                lines.append({"ack": outcome.upto})
            elif isinstance(outcome, Paired):
                lines.append({"peer": [outcome.board, outcome.public.hex()]})
        if lines:
            with self.lock:
                self._write(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--side", choices=[s.value for s in Side], required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--journal", type=Path, required=True)
    args = parser.parse_args()
    journal = FileJournal(args.journal)
    link = Link.restore(
        journal,
        keys=derive_keys(CODE),
        side=Side(args.side),
        board=f"{args.name}-board",
        secret=secret_of(f"{args.name}-board"),
        name=args.name,
        now=time.monotonic(),
        timing=LinkTiming(resend_s=0.5, resend_max_s=2.0),
        peer=journal.peer(),
    )
    config = RemoteConfig(broker=f"mqtt://127.0.0.1:{args.port}", name=args.name)
    remote = RemoteLink(config, link, journal.keep)
    remote.start()
    try:
        wait_until(lambda: remote.report().connection is Connection.CONNECTED, 20, interval=0.01)
    except AssertionError:
        sys.exit("no connection to the broker")
    print("ready", flush=True)
    for line in sys.stdin:
        word, *number = line.split()
        if word == "report":  # what its page would show, as one line of JSON
            print("report " + json.dumps(remote.report().data()), flush=True)
        elif word == "make":
            event = {"kind": "move", "n": int(number[0]), "by": args.name}
            journal.made(event)
            remote.send(event)
            print(f"made {number[0]}", flush=True)
    remote.close()


if __name__ == "__main__":
    main()

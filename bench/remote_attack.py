"""What a stranger on the broker costs a linked board: its memory, and a real move's time.

    .venv/bin/python bench/remote_attack.py [memory] [flood] [--seconds 10]

Two ``pyramid run`` processes (tests/remote/test_two_boards.py's ``Home``) on one
Mosquitto on a free loopback port: Oma's board invites, Tim's joins. Then a client who
knows only the room (every client of the broker sees the topics) and not the code:

- **memory**: publishes one 250 MiB message on Oma's event topic, and Oma's resident
  memory (``VmRSS``, and its peak ``VmHWM``, from ``/proc``) is read before and once a
  small marker published after it has come through (or was counted); then a retained
  50 MiB message on Oma's state topic and 1,000 retained junk topics beside it, Oma's
  program is killed and started again, and its memory read once its link is connected
  and the marker counted.
- **flood**: publishes 1,000 junk messages a second (542 bytes each, shaped like the
  link's messages, sealed with no key) on Oma's two topics for ``--seconds`` while Tim
  makes a move every second: from Tim's pearl set until Oma's ``/api/state`` shows the
  move (polled every 10 ms), p50 / max, and how far Oma's snapshot version moved.

Needs ``mosquitto`` (apt-get install mosquitto). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

from bench.stats import latency_ms  # noqa: E402
from controller.remote.wire import FRAME, Kind, LinkKeys, Side, derive_keys  # noqa: E402
from rigs.homes import PLAYERS, Home, has_moves, matched  # noqa: E402
from rigs.mosquitto import Mosquitto  # noqa: E402
from rigs.poll import wait_until  # noqa: E402

WAIT = 60.0
MIB = 1024 * 1024


def memory_mb(pid: int) -> tuple[float, float]:
    """The process's resident memory now and at its peak, in MB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def stranger(port: int) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"eve-{random.random()}")
    client.max_queued_messages_set(0)
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


def junk(rng: random.Random) -> bytes:
    """A message shaped like the link's (frame, nonce, 512 sealed bytes, tag), no key."""
    return FRAME + rng.randbytes(12 + 512 + 16)


def dropped(home: Home) -> int:
    counts: dict[str, int] = home.remote()["counts"]
    return sum(v for k, v in counts.items() if k not in ("resent", "crossed", "voided"))


def counted_after(home: Home, before: int) -> Callable[[], bool]:
    return lambda: dropped(home) > before


def linked(folder: Path, broker: Mosquitto) -> tuple[Home, Home, LinkKeys]:
    oma = Home(folder / "oma", "Oma", broker)
    tim = Home(folder / "tim", "Tim", broker)
    answer = oma.post("game", {"game": "perlen-pyramide", "players": PLAYERS})
    tim.post("remote/join", {"code": answer["code"]})
    wait_until(lambda: tim.state()["game_id"], WAIT)
    wait_until(lambda: oma.remote()["peer_name"] == "Tim", WAIT)
    return oma, tim, derive_keys(answer["code"])


def marker(client: mqtt.Client, topic: str, home: Home) -> None:
    """A small junk message after the big one: counted once everything before it is."""
    before = dropped(home)
    client.publish(topic, b"marker", qos=1).wait_for_publish(WAIT)
    wait_until(counted_after(home, before), WAIT, what=home.remote)


def memory(folder: Path, broker: Mosquitto) -> None:
    oma, tim, keys = linked(folder, broker)
    try:
        event = keys.topic(Side.JOINER, Kind.EVENT)
        state = keys.topic(Side.JOINER, Kind.STATE)
        rss, peak = memory_mb(oma.program.proc.pid)
        print(f"Oma before: resident {rss:.0f} MB, peak {peak:.0f} MB")
        eve = stranger(broker.port)
        started = time.perf_counter()
        eve.publish(event, b"\0" * (250 * MIB), qos=1).wait_for_publish(WAIT)
        marker(eve, event, oma)
        rss, peak = memory_mb(oma.program.proc.pid)
        took = time.perf_counter() - started
        print(f"Oma after 250 MiB on its event topic: resident {rss:.0f} MB, peak {peak:.0f} MB "
              f"({took:.1f} s)")  # fmt: skip
        eve.publish(state, b"\0" * (50 * MIB), qos=1, retain=True).wait_for_publish(WAIT)
        base = event.rsplit("/", 1)[0]
        for n in range(1000):
            eve.publish(f"{base}/junk{n}", b"j" * 1000, qos=1, retain=True)
        eve.publish(f"{base}/junk-last", b"j", qos=1, retain=True).wait_for_publish(WAIT)
        oma.program.kill()
        oma.start()
        wait_until(lambda: oma.remote()["connection"] == "connected", WAIT, what=oma.remote)
        marker(eve, event, oma)
        rss, peak = memory_mb(oma.program.proc.pid)
        print(f"Oma restarted with 50 MiB retained and 1,000 retained junk topics: "
              f"resident {rss:.0f} MB, peak {peak:.0f} MB")  # fmt: skip
        eve.disconnect()
        eve.loop_stop()
    finally:
        oma.program.kill()
        tim.program.kill()


def flood(folder: Path, broker: Mosquitto, seconds: float) -> None:
    oma, tim, keys = linked(folder, broker)
    rng = random.Random(39)
    stop = threading.Event()
    sent = [0]
    topics = [keys.topic(Side.JOINER, kind) for kind in Kind]

    def flooding() -> None:
        eve = stranger(broker.port)
        start = time.perf_counter()
        while not stop.is_set():
            due = int((time.perf_counter() - start) * 1000)
            while sent[0] < due:
                eve.publish(topics[sent[0] % 2], junk(rng), qos=0)
                sent[0] += 1
            time.sleep(0.002)
        eve.disconnect()
        eve.loop_stop()

    try:
        version = oma.state()["version"]
        thread = threading.Thread(target=flooding, daemon=True)
        thread.start()
        started = time.perf_counter()
        latencies: list[float] = []
        moves = 0
        while time.perf_counter() - started < seconds:
            state = wait_until(partial(matched, oma, moves), WAIT, what=oma.state)
            if state["over"]:
                break
            mover = state["players"][state["to_move"]]
            home = tim if mover["remote"] else oma
            other = oma if home is tim else tim
            here = wait_until(partial(matched, home, moves), WAIT, what=home.state)
            time.sleep(max(0.0, home.placed + 0.3 - time.monotonic()))
            cell = rng.choice(here["legal"])
            placed = time.perf_counter()
            home.touch(cell, "on")
            home.placed = time.monotonic()
            moves += 1
            wait_until(partial(has_moves, other, moves), WAIT, interval=0.01)
            if home is tim:
                latencies.append(time.perf_counter() - placed)
        stop.set()
        thread.join()
        elapsed = time.perf_counter() - started
        after: Any = oma.state()
        print(f"flood: {sent[0]} junk messages in {elapsed:.1f} s "
              f"({sent[0] / elapsed:.0f} a second) on Oma's two topics")  # fmt: skip
        print(f"Tim's move at Oma's board: {latency_ms(latencies)} ({len(latencies)} moves)")
        print(f"Oma's snapshot version: {version} -> {after['version']}; "
              f"counts {after['remote']['counts']}")  # fmt: skip
    finally:
        oma.program.kill()
        tim.program.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", nargs="*", default=["memory", "flood"])
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    for what in args.what:
        with tempfile.TemporaryDirectory() as tmp, Mosquitto(Path(tmp)) as broker:
            if what == "memory":
                memory(Path(tmp), broker)
            elif what == "flood":
                flood(Path(tmp), broker, args.seconds)
            else:
                parser.error(f"no such measure: {what}")
    print(f"(machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()

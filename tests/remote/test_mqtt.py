"""Two links through a real Mosquitto on loopback: order, a broker restarted mid-game, a
board rebuilt from its journal, a stranger with the wrong key, and TLS with a test CA.

The boards' stores are :class:`MemoryJournal`s (see its docstring for what it models);
everything else is real: paho-mqtt, the broker, TCP and TLS. Nothing sleeps: the tests
wait for what they expect with a deadline (:func:`wait_until`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.config import RemoteConfig
from controller.remote.journal import Origin
from controller.remote.link import Connection, LinkTiming, Report
from controller.remote.mqtt import CODE_OPEN_S, RemoteLink
from controller.remote.outcomes import Delivered, Outcome, Paired
from controller.remote.wire import PROTOCOL, Envelope, Kind, Side, seal
from rigs.journal import MemoryJournal
from rigs.mosquitto import Mosquitto, Tls
from rigs.network import CODE, OTHER_CODE, keys, link_of, move
from rigs.poll import wait_until
from tests.remote.board_process import FileJournal

WAIT = 20.0
ROOT = Path(__file__).resolve().parents[2]
TIMING = LinkTiming(resend_s=0.5, resend_max_s=2.0)


class Home:
    """One board in its home: a journal standing for its store, and a RemoteLink."""

    def __init__(self, config: RemoteConfig, side: Side, *, code: str = CODE) -> None:
        self.config = config
        self.side = side
        self.code = code
        self.journal = MemoryJournal()
        self.lock = threading.Lock()
        self.delivered: list[int] = []
        self.reports: list[Report] = []
        self.refuse = 0
        """Steps with delivered events to refuse to keep (a store that cannot write)."""
        self.peer: tuple[str, bytes] | None = None
        """The other board once paired, kept as the store keeps it."""
        self.remote = self._open()

    def _open(self) -> RemoteLink:
        with self.lock:
            link = link_of(
                f"{self.config.name}-board",
                self.config.name,
                self.side,
                keys=keys(self.code),
                journal=self.journal,
                timing=TIMING,
                peer=self.peer,
            )
        remote = RemoteLink(self.config, link, self._kept)
        remote.start()
        return remote

    def _kept(self, happened: tuple[Outcome, ...], report: Report) -> None:
        with self.lock:  # the Table would commit to its store here
            if self.refuse and any(isinstance(o, Delivered) for o in happened):
                self.refuse -= 1
                raise OSError("the store could not write")
            self.journal.apply(happened)
            self.delivered += [o.seq for o in happened if isinstance(o, Delivered)]
            for outcome in happened:
                if isinstance(outcome, Paired):
                    self.peer = (outcome.board, outcome.public)
            self.reports.append(report)

    def make(self, n: int) -> None:
        with self.lock:
            self.journal.made(move(n, self.config.name))
        self.remote.send(move(n, self.config.name))

    def events(self, origin: Origin) -> list[object]:
        with self.lock:
            return list(self.journal.of(origin))

    def report(self) -> Report:
        return self.remote.report()

    def rebuild(self) -> None:
        """Closed and started again: the link comes back from the journal alone."""
        self.remote.close()
        self.remote = self._open()

    def connected(self) -> bool:
        return self.report().connection is Connection.CONNECTED


def remote_config(broker: Mosquitto, name: str) -> RemoteConfig:
    return RemoteConfig(broker=f"mqtt://127.0.0.1:{broker.port}", name=name)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    with Mosquitto(tmp_path) as running:
        yield running


@pytest.fixture
def homes(broker: Mosquitto) -> Iterator[tuple[Home, Home]]:
    oma = Home(remote_config(broker, "Oma"), Side.INVITER)
    tim = Home(remote_config(broker, "Tim"), Side.JOINER)
    try:
        wait_until(lambda: oma.connected() and tim.connected(), WAIT, what="both connect")
        # Paired at their first words, each connects once more so that its will is sealed
        # with the pair key.
        wait_until(lambda: all(renewed(home) for home in (oma, tim)), WAIT, what="both paired")
        yield oma, tim
    finally:
        oma.remote.close()
        tim.remote.close()


def dropped(home: Home) -> int:
    counts = home.report().counts
    return counts.wrong_key + counts.junk


def renewed(home: Home) -> bool:
    return home.report().paired and home.remote.connections == 2 and home.connected()


def both_have(oma: Home, tim: Home, from_oma: int, from_tim: int) -> bool:
    return (
        len(tim.events(Origin.THERE)) == from_oma
        and len(oma.events(Origin.THERE)) == from_tim
        and oma.report().unsent == 0
        and tim.report().unsent == 0
    )


def test_events_cross_in_order_exactly_once(homes: tuple[Home, Home]) -> None:
    oma, tim = homes
    from_oma = [n for n in range(1, 41) if n % 3]
    from_tim = [n for n in range(1, 41) if not n % 3]
    for n in range(1, 41):  # in turns, as a game is played: each board has seen the other's
        seen = partial(both_have, oma, tim, sum(m < n for m in from_oma))
        wait_until(partial(seen, sum(m < n for m in from_tim)), WAIT)
        (oma if n % 3 else tim).make(n)
    wait_until(lambda: both_have(oma, tim, len(from_oma), len(from_tim)), WAIT,
               what=lambda: (oma.report(), tim.report()))  # fmt: skip
    assert tim.events(Origin.THERE) == [move(n, "Oma") for n in from_oma]
    assert oma.events(Origin.THERE) == [move(n, "Tim") for n in from_tim]
    assert tim.delivered == list(range(1, len(from_oma) + 1))
    assert oma.delivered == list(range(1, len(from_tim) + 1))
    assert oma.report().peer_name == "Tim" and tim.report().peer_name == "Oma"
    assert oma.report().peer_online is True
    counts = tim.report().counts
    assert counts.wrong_key == counts.malformed == counts.strangers == 0


def test_a_broker_restart_mid_game_loses_nothing(
    broker: Mosquitto, homes: tuple[Home, Home]
) -> None:
    oma, tim = homes
    for n in range(1, 6):
        oma.make(n)
    wait_until(lambda: both_have(oma, tim, 5, 0), WAIT)
    broker.stop()
    wait_until(lambda: not oma.connected() and not tim.connected(), WAIT)
    for n in range(6, 11):
        oma.make(n)
    tim.make(1)  # made apart from Oma's 6-10: the two cross, and Oma's board invited
    # Kept, and said to be not yet delivered:
    wait_until(lambda: oma.report().unsent == 5, WAIT, what=oma.report)
    wait_until(lambda: tim.report().unsent == 1, WAIT, what=tim.report)
    assert oma.report().connection is Connection.UNREACHABLE
    # Down until both boards' clients have tried twice.
    wait_until(lambda: min(h.remote.failed_attempts for h in homes) >= 2, WAIT)
    broker.start()  # same port, no sessions or retained messages kept
    wait_until(lambda: both_have(oma, tim, 10, 0), WAIT, what=lambda: (oma.report(), tim.report()))
    assert tim.events(Origin.THERE) == [move(n, "Oma") for n in range(1, 11)]
    assert tim.delivered == list(range(1, 11)) and oma.delivered == []
    # One order on both boards: Tim's crossed event is undone there and never applied here.
    wait_until(lambda: oma.report().counts.crossed == 1, WAIT, what=oma.report)
    assert tim.report().counts.voided == 1
    with oma.lock, tim.lock:
        assert [e for _, e in oma.journal.order()] == [e for _, e in tim.journal.order()]
    states = [r.connection for r in oma.reports]
    assert Connection.UNREACHABLE in states and states[-1] is Connection.CONNECTED


def test_a_board_rebuilt_from_its_journal_catches_up(homes: tuple[Home, Home]) -> None:
    oma, tim = homes
    for n in range(1, 4):
        oma.make(n)
    wait_until(lambda: both_have(oma, tim, 3, 0), WAIT)
    tim.remote.close()  # switched off: its goodbye says so
    wait_until(lambda: oma.report().peer_online is False, WAIT)
    for n in range(4, 8):
        oma.make(n)
    wait_until(lambda: oma.report().unsent == 4, WAIT)
    tim.rebuild()
    wait_until(lambda: both_have(oma, tim, 7, 0), WAIT, what=lambda: (oma.report(), tim.report()))
    assert tim.events(Origin.THERE) == [move(n, "Oma") for n in range(1, 8)]
    assert tim.delivered == list(range(1, 8))  # 1-3 before, 4-7 after: each once
    oma.rebuild()
    tim.make(1)
    wait_until(lambda: both_have(oma, tim, 7, 1), WAIT)
    assert oma.delivered == [1]


def test_a_client_with_the_wrong_key_is_ignored_and_counted(
    broker: Mosquitto, homes: tuple[Home, Home]
) -> None:
    oma, tim = homes
    eve_link = link_of("eve", "Eve", Side.INVITER, keys=keys(OTHER_CODE)).connected(0.0).link
    forged = eve_link.send(move(1, "Eve"), 0.0).publish[0].payload
    eve = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="eve")
    eve.connect("127.0.0.1", broker.port)
    eve.loop_start()
    try:
        for kind in Kind:  # Oma's topics, which Eve somehow knows
            topic = keys().topic(Side.INVITER, kind)
            for payload in (forged, b"garbage", b"\xb0\x01" + bytes(60)):
                eve.publish(topic, payload, qos=1).wait_for_publish(WAIT)
        # Sealed with the code's frame after the boards paired: at most one a second is
        # opened (a wrong key); what is not even shaped like a message never is (junk).
        # At least Eve's six are dropped so. The pairing's own reconnect (each board's
        # will sealed anew) may still deliver a message of the first connection around
        # them: counted as unpaired, stale or junk, and an opening it makes uses the
        # second's one, so Eve's forged one is junk then (a full run saw junk 7, wrong
        # key 0, unpaired 1, stale 1).
        wait_until(lambda: dropped(tim) >= 6, WAIT, what=tim.report)
        counts = tim.report().counts
        assert counts.malformed == 0 and counts.wrong_key <= 1, counts
    finally:
        eve.disconnect()
        eve.loop_stop()
    assert tim.events(Origin.THERE) == [] and tim.report().peer_name == "Oma"
    oma.make(1)
    wait_until(lambda: both_have(oma, tim, 1, 0), WAIT)
    assert tim.events(Origin.THERE) == [move(1, "Oma")]


def test_tls_with_the_test_ca_and_a_password(tmp_path: Path) -> None:
    tls = Tls.make(tmp_path)
    users = {"oma": "pearls", "tim": "marbles"}
    with Mosquitto(tmp_path, tls=tls, users=users) as broker:

        def config(name: str, user: str, ca: Path | None = tls.ca_file) -> RemoteConfig:
            password = users.get(user, "wrong")
            return RemoteConfig(broker=f"mqtts://localhost:{broker.port}", name=name,
                                username=user, password=password, ca_file=ca)  # fmt: skip

        oma = Home(config("Oma", "oma"), Side.INVITER)
        tim = Home(config("Tim", "tim"), Side.JOINER)
        strangers = [
            Home(config("NoCA", "tim", ca=None), Side.JOINER),  # the system's CAs: refused
            Home(config("NoPass", "eve"), Side.JOINER),  # wrong password: refused
        ]
        try:
            wait_until(lambda: oma.connected() and tim.connected(), WAIT)
            oma.make(1)
            wait_until(lambda: both_have(oma, tim, 1, 0), WAIT)
            tim.make(1)
            wait_until(lambda: both_have(oma, tim, 1, 1), WAIT)
            wait_until(lambda: all(s.reports for s in strangers), WAIT)
            for stranger in strangers:
                assert stranger.report().connection is Connection.UNREACHABLE
                assert stranger.remote.failed_attempts >= 1
        finally:
            for home in (oma, tim, *strangers):
                home.remote.close()
    assert oma.config.broker == f"mqtts://localhost:{broker.port}"


def test_a_step_the_store_could_not_keep_comes_again(homes: tuple[Home, Home]) -> None:
    oma, tim = homes
    tim.refuse = 2
    for n in range(1, 4):
        oma.make(n)
    wait_until(lambda: both_have(oma, tim, 3, 0), WAIT, what=lambda: (oma.report(), tim.report()))
    assert tim.refuse == 0 and tim.delivered == [1, 2, 3]
    assert tim.events(Origin.THERE) == [move(n, "Oma") for n in range(1, 4)]
    assert oma.report().counts.resent >= 1  # nothing was acknowledged that was not kept


def test_the_report_says_since_when_in_wall_clock_time(homes: tuple[Home, Home]) -> None:
    oma, _tim = homes
    assert abs(oma.report().since - time.time()) < WAIT
    # The link itself runs on the monotonic clock:
    assert abs(oma.remote.link.report().since - time.monotonic()) < WAIT


def test_another_version_through_the_broker_is_said_and_passes(
    broker: Mosquitto, homes: tuple[Home, Home]
) -> None:
    oma, tim = homes
    # Each board believes the other (each heard the other's run): no word of Oma's board
    # is on its way that would clear what the newer version's message says.
    wait_until(lambda: oma.report().peer_online and tim.report().peer_online, WAIT)
    topic = keys().topic(Side.INVITER, Kind.EVENT)
    future = dataclasses.replace(Envelope(keys().game, "Oma-board", "Oma", 0, 1, seq=1,
                                          event=move(1)), version=PROTOCOL + 1)  # fmt: skip
    newer = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="newer")
    newer.connect("127.0.0.1", broker.port)
    newer.loop_start()
    try:
        # Once paired, Tim's board opens a message sealed with the code alone at most once
        # a second (mqtt.CODE_OPEN_S): one that comes within a second of the last is junk.
        # So the newer board says it again until it is heard, as a real one keeps saying.
        for _ in range(10):
            sent = seal(keys(), topic, future, bytes(12))
            newer.publish(topic, sent, qos=1).wait_for_publish(WAIT)
            with contextlib.suppress(AssertionError):
                wait_until(lambda: tim.report().other_version is not None, 2 * CODE_OPEN_S)
                break
        wait_until(lambda: tim.report().other_version is not None, WAIT, what=tim.report)
    finally:
        newer.disconnect()
        newer.loop_stop()
    other = tim.report().other_version
    assert other is not None and (other.theirs, other.name) == (PROTOCOL + 1, "Oma")
    assert tim.events(Origin.THERE) == []
    oma.make(1)
    wait_until(lambda: both_have(oma, tim, 1, 0), WAIT)
    assert tim.report().other_version is None


def test_a_board_killed_and_started_again_catches_up(broker: Mosquitto, tmp_path: Path) -> None:
    """Tim's board is a process of its own (tests/remote/board_process.py, its store a
    file of fsynced lines): SIGKILLed mid-game, the broker's will tells Oma's board, and
    started again it catches up from its file and the broker, each event once."""
    oma = Home(remote_config(broker, "Oma"), Side.INVITER)
    journal = FileJournal(tmp_path / "tim.jsonl")

    def start_tim() -> subprocess.Popen[str]:
        tim = subprocess.Popen(
            [sys.executable, "-m", "tests.remote.board_process", "--port", str(broker.port),
             "--side", "b", "--name", "Tim", "--journal", str(journal.path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
        )  # fmt: skip
        assert tim.stdout is not None and tim.stdout.readline() == "ready\n"
        return tim

    def tell(tim: subprocess.Popen[str], line: str) -> None:
        assert tim.stdin is not None and tim.stdout is not None
        tim.stdin.write(line + "\n")
        tim.stdin.flush()
        assert tim.stdout.readline() == line.replace("make", "made") + "\n"

    def received() -> list[int]:
        return [e.seq for e in journal.logged() if e.origin is Origin.THERE]

    tim = start_tim()
    try:
        wait_until(oma.connected, WAIT)
        for n in range(1, 4):
            oma.make(n)
        wait_until(lambda: received() == [1, 2, 3], WAIT)
        tell(tim, "make 1")
        wait_until(lambda: received() == [1, 2, 3] and oma.delivered == [1], WAIT)
        tim.kill()
        tim.wait(WAIT)
        wait_until(lambda: oma.report().peer_online is False, WAIT, what=oma.report)
        for n in range(4, 7):
            oma.make(n)
        tim = start_tim()
        wait_until(lambda: received() == [1, 2, 3, 4, 5, 6], WAIT, what=received)
        tell(tim, "make 2")
        wait_until(lambda: received() == [1, 2, 3, 4, 5, 6] and oma.delivered == [1, 2], WAIT,
                   what=lambda: (received(), oma.report()))  # fmt: skip
        assert [e.event for e in journal.logged() if e.origin is Origin.THERE] == [
            move(n, "Oma") for n in range(1, 7)
        ]
        assert oma.events(Origin.THERE) == [{"kind": "move", "n": n, "by": "Tim"} for n in (1, 2)]
        wait_until(lambda: oma.report().unsent == 0 and journal.acked() == 2, WAIT)
    finally:
        tim.kill()
        tim.wait(WAIT)
        oma.remote.close()


def test_a_stranger_cannot_push_a_board_off_the_broker(
    broker: Mosquitto, homes: tuple[Home, Home]
) -> None:
    """The client id is drawn at random at each start: a stranger who connects under the
    id the last version derived from the room, the side and the board (public data: the
    room is in every topic) takes nobody's place; MQTT would have thrown the board off."""
    oma, tim = homes
    board = hashlib.blake2b(b"Tim-board", digest_size=3).hexdigest()
    guessed = f"pyr-{keys().room[:10]}-b-{board}"
    connected = threading.Event()
    eve = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=guessed, clean_session=False)
    eve.on_connect = lambda *_args: connected.set()
    eve.connect("127.0.0.1", broker.port)
    eve.loop_start()
    try:
        assert connected.wait(WAIT)  # the broker took it: a board under that id is gone now
        oma.make(1)
        wait_until(lambda: both_have(oma, tim, 1, 0), WAIT)
    finally:
        eve.disconnect()
        eve.loop_stop()
    for home in homes:
        assert home.remote.connections == 2 and home.remote.failed_attempts == 0

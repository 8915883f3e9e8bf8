"""Back within a second: two boards' links and a real Mosquitto on loopback, the broker
stopped and started again (rigs/mosquitto.py, no persistence: the worst a home
server's restart does).

How long the broker is away is told two ways:

- by the backoff's state (:class:`controller.remote.backoff.Backoff`): the shell's next
  wait depends on nothing but it, and once it is ``settled`` (0.1 s doubling to 1 s: after
  some 1.5 s of failed tries) every further failure leaves it exactly as it was. So an
  outage that lasted until both boards' backoffs are settled, and each has failed once
  more, leaves the boards in the state a 17 s outage leaves them in; the test waits on
  that state (the shell's condition), not on a clock, and measures from the broker's
  return. ``test_backoff_after_17_s`` shows in virtual time that 17 s of failures end
  settled;
- and once for real, in the one test that needs the wall clock: the broker stays away
  for 17 s (the outage is the subject, not a guess at how long something takes).

Either way the figure is the time from the broker listening again until both links say
connected, and until a move made meanwhile is acknowledged ("not yet delivered" gone).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest

from controller.remote.backoff import MOST_S, Backoff
from controller.remote.journal import Origin
from controller.remote.link import Connection
from controller.remote.mqtt import RemoteLink
from controller.remote.wire import Side
from rigs.mosquitto import Mosquitto
from rigs.network import move
from tests.remote.test_mqtt import WAIT, Home, remote_config

OUTAGE_S = 17.0
BACK_WITHIN_S = MOST_S + 0.5
"""The backoff's longest wait, and half a second for a TCP handshake, CONNECT/CONNACK,
the subscription and a loaded machine's scheduling (all well under 50 ms when idle)."""


def wait_on(remote: RemoteLink, probe: Callable[[], bool], what: str) -> None:
    """Wait on the shell's own condition (notified at each failed try, each connection
    and each change of the link's report) until ``probe`` holds."""
    with remote.changed:
        if not remote.changed.wait_for(probe, WAIT):
            raise AssertionError(f"timed out after {WAIT} s: {what}: {remote.report()}")


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    with Mosquitto(tmp_path) as running:
        yield running


@pytest.fixture
def homes(broker: Mosquitto) -> Iterator[tuple[Home, Home]]:
    oma = Home(remote_config(broker, "Oma"), Side.INVITER)
    tim = Home(remote_config(broker, "Tim"), Side.JOINER)
    try:
        for home in (oma, tim):
            wait_on(home.remote, home.connected, "connected")
        yield oma, tim
    finally:
        oma.remote.close()
        tim.remote.close()


def back(broker: Mosquitto, homes: tuple[Home, Home]) -> tuple[float, float]:
    """Start the broker again; seconds until both links are connected, and until the move
    Oma's board made meanwhile is acknowledged by Tim's."""
    oma, tim = homes
    broker.start()
    started = time.monotonic()
    for home in homes:
        wait_on(home.remote, home.connected, "connected again")
    connected = time.monotonic() - started
    wait_on(oma.remote, lambda: oma.report().unsent == 0, "the move delivered")
    delivered = time.monotonic() - started
    assert tim.events(Origin.THERE) == [move(1, "Oma")]
    return connected, delivered


def unreachable(home: Home) -> bool:
    return home.report().connection is Connection.UNREACHABLE


def away(broker: Mosquitto, homes: tuple[Home, Home]) -> None:
    """The broker stops; both boards see it; Oma makes a move meanwhile."""
    broker.stop()
    for home in homes:
        wait_on(home.remote, partial(unreachable, home), "unreachable")
    homes[0].make(1)
    wait_on(homes[0].remote, lambda: homes[0].report().unsent == 1, "kept, not yet delivered")


def settled(remote: RemoteLink) -> bool:
    return remote.backoff.settled


def tried_since(remote: RemoteLink, failures: int) -> bool:
    return remote.failed_attempts > failures


def test_backoff_after_17_s() -> None:
    """Virtual time: the waits of 17 s of failed tries (each try itself instant: a refused
    connection on loopback) end settled, the longest wait then ``MOST_S``, whatever the
    draws."""
    for draw in (0.0, 0.5, 1.0):
        backoff, spent = Backoff(), 0.0
        while spent < OUTAGE_S:
            spent += backoff.wait(draw)
            backoff = backoff.failed()
        assert backoff.settled and backoff.wait(1.0) == MOST_S
        assert backoff == Backoff().failed().failed().failed().failed()


def test_after_an_outage_that_settled_the_backoff_both_boards_are_back_within_a_second(
    broker: Mosquitto, homes: tuple[Home, Home]
) -> None:
    away(broker, homes)
    for home in homes:  # the state a 17 s outage leaves, and one more failed try in it
        remote = home.remote
        wait_on(remote, partial(settled, remote), "backoff settled")
        wait_on(remote, partial(tried_since, remote, remote.failed_attempts), "one more try")
        assert remote.backoff.settled
    connected, delivered = back(broker, homes)
    print(f"back after a settled outage: connected {connected:.3f} s, delivered {delivered:.3f} s")
    assert connected <= BACK_WITHIN_S
    assert delivered <= BACK_WITHIN_S + 0.5


def test_after_a_17_s_outage_both_boards_are_back_within_a_second(
    broker: Mosquitto, homes: tuple[Home, Home]
) -> None:
    """The broker really is away for 17 s (measured from the moment both boards saw it go,
    on the monotonic clock: the outage is what is tested, so this test alone waits it)."""
    away(broker, homes)
    threading.Event().wait(OUTAGE_S)
    assert all(home.remote.backoff.settled for home in homes)
    connected, delivered = back(broker, homes)
    print(f"back after {OUTAGE_S:.0f} s: connected {connected:.3f} s, delivered {delivered:.3f} s")
    assert connected <= BACK_WITHIN_S
    assert delivered <= BACK_WITHIN_S + 0.5

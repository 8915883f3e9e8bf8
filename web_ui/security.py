"""The slow-down for wrong PINs.

Reading the web page is open to the home network; every action that changes anything
needs the admin PIN, which :mod:`controller.settings` keeps (only its hash) and checks.
Wrong PINs are slowed down per client by :class:`Throttle`: a few tries are free, then
each further wrong PIN doubles the wait before the next try is even looked at, and the
client is told how long to wait (HTTP 429 with ``Retry-After``), so no server thread
sleeps.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a client may try a PIN now, and if not how many seconds to wait."""

    allowed: bool
    retry_after: int = 0


@dataclass(slots=True)
class _Record:
    failures: int
    blocked_until: float
    last: float


class Throttle:
    """Per-client exponential slow-down of wrong PINs.

    The first ``free`` wrong PINs cost nothing; after that each wrong PIN blocks the client
    for ``base * 2**(n - free)`` seconds (capped at ``cap``), during which further tries are
    refused without being checked. A right PIN clears the client's record.

    >>> now = [100.0]
    >>> t = Throttle(free=2, base=1.0, cap=60.0, clock=lambda: now[0])
    >>> [t.failure("10.0.0.7").retry_after for _ in range(4)]  # 2 free, then 1 s, 2 s
    [0, 0, 1, 2]
    >>> t.check("10.0.0.7")
    Verdict(allowed=False, retry_after=2)
    >>> now[0] += 2.0
    >>> t.check("10.0.0.7").allowed
    True
    >>> t.success("10.0.0.7"); t.check("10.0.0.7")
    Verdict(allowed=True, retry_after=0)
    """

    def __init__(
        self,
        *,
        free: int = 3,
        base: float = 1.0,
        cap: float = 900.0,
        forget_after: float = 24 * 3600.0,
        max_clients: int = 4096,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.free = free
        self.base = base
        self.cap = cap
        self.forget_after = forget_after
        self.max_clients = max_clients
        self._clock = clock
        self._lock = threading.Lock()
        # Least recently failed first, so the oldest record is dropped when full.
        self._records: OrderedDict[str, _Record] = OrderedDict()

    def check(self, client: str) -> Verdict:
        """May ``client`` try a PIN now?"""
        now = self._clock()
        with self._lock:
            record = self._records.get(client)
            if record is None:
                return Verdict(True)
            if now - record.last > self.forget_after:
                del self._records[client]
                return Verdict(True)
            if now < record.blocked_until:
                return Verdict(False, max(1, math.ceil(record.blocked_until - now)))
            return Verdict(True)

    def failure(self, client: str) -> Verdict:
        """Count a wrong PIN; returns how long the client must now wait."""
        now = self._clock()
        with self._lock:
            record = self._records.pop(client, None) or _Record(0, now, now)
            record.failures += 1
            record.last = now
            over = record.failures - self.free
            wait = 0.0 if over <= 0 else min(self.cap, self.base * 2.0 ** (over - 1))
            record.blocked_until = now + wait
            self._records[client] = record
            while len(self._records) > self.max_clients:
                self._records.popitem(last=False)
        return Verdict(wait == 0.0, math.ceil(wait))

    def success(self, client: str) -> None:
        """A right PIN: forget the client's wrong ones."""
        with self._lock:
            self._records.pop(client, None)

    def failures(self, client: str) -> int:
        with self._lock:
            record = self._records.get(client)
            return 0 if record is None else record.failures

"""Latest-wins delivery of the Table's snapshots to one reader (a page's event stream).

The Table only swaps in the newest snapshot and notifies: a slow reader misses
intermediate snapshots, never holds up the Table.

>>> from controller.referee.snapshot import Snapshot
>>> sub = Subscription(Snapshot(version=1), lambda s: None)
>>> sub.offer(Snapshot(version=2)); sub.offer(Snapshot(version=3))
>>> sub.get(timeout=0).version, sub.get(timeout=0)
(3, None)
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from controller.referee.snapshot import Snapshot


class Subscription:
    def __init__(self, first: Snapshot, on_close: Callable[[Subscription], None]) -> None:
        self._on_close = on_close
        self._cond = threading.Condition()
        self._latest = first
        self._seen = -1
        self._closed = False

    def offer(self, snapshot: Snapshot) -> None:
        with self._cond:
            self._latest = snapshot
            self._cond.notify_all()

    def get(self, timeout: float | None = None) -> Snapshot | None:
        """The newest snapshot not yet returned (the current one first); None on timeout
        or once closed."""
        with self._cond:
            ready = self._cond.wait_for(
                lambda: self._closed or self._latest.version != self._seen, timeout
            )
            if self._closed or not ready:
                return None
            self._seen = self._latest.version
            return self._latest

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._on_close(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

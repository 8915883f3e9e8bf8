"""Latest-wins delivery of the Table's snapshots to its readers: the one fan-out, whose
subscribers are each live page's stream and the page's review watch.

The Table only swaps in the newest snapshot and notifies (:class:`Publisher`): a slow
reader (:class:`Subscription`) misses intermediate snapshots, never holds up the Table.

>>> from controller.referee.snapshot import Snapshot
>>> published = Publisher(Snapshot(version=1))
>>> sub = published.subscribe()
>>> published.publish(Snapshot(version=2)); published.publish(Snapshot(version=3))
>>> sub.get(timeout=0).version, sub.get(timeout=0)
(3, None)
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from controller.referee.snapshot import Snapshot


class Publisher:
    """The newest snapshot and everyone who follows it."""

    def __init__(self, first: Snapshot) -> None:
        self._cond = threading.Condition()
        self._latest = first
        self._subs: list[Subscription] = []
        self._open = True

    @property
    def latest(self) -> Snapshot:
        return self._latest

    def publish(self, snapshot: Snapshot) -> None:
        with self._cond:
            self._latest = snapshot
            subs = list(self._subs)
            self._cond.notify_all()
        for sub in subs:
            sub.offer(snapshot)

    def subscribe(self) -> Subscription:
        """A subscription whose first :meth:`~Subscription.get` returns the newest snapshot
        (once closed: a subscription already closed)."""
        with self._cond:
            sub = Subscription(self._latest, self._unsubscribe)
            if self._open:
                self._subs.append(sub)
                return sub
        sub.close()
        return sub

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._cond:
            if sub in self._subs:
                self._subs.remove(sub)

    def wait(self, ready: Callable[[Snapshot], bool], timeout: float) -> Snapshot | None:
        """The newest snapshot once ``ready`` holds for it; None after ``timeout`` seconds
        or once closed."""
        with self._cond:
            found = self._cond.wait_for(lambda: not self._open or ready(self._latest), timeout)
            return self._latest if found and self._open else None

    def close(self) -> None:
        """End every subscription (the Table stopped)."""
        with self._cond:
            subs, self._subs = list(self._subs), []
            self._open = False
            self._cond.notify_all()
        for sub in subs:
            sub.close()


class Subscription:
    """One reader's view: the newest snapshot it has not seen yet."""

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

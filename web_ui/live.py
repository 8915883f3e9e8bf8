"""Live updates: one subscription to the Table, fanned out to every open page.

The Table hands out immutable snapshots. A :class:`LiveHub` holds the one subscription
the web page needs, whatever the number of viewers: a thread takes each new snapshot
and wakes every waiting Server-Sent-Events stream. Each stream sends the snapshot it has
not seen yet; a slow viewer skips straight to the latest (the Table's own rule: latest
wins), so no viewer can hold up the Table or the others.

The bytes of one update (JSON, rendered fragments) depend only on the snapshot, the view
and the language, so :meth:`LiveHub.payload` builds them once and every viewer with the
same view and language sends the same bytes.

>>> sse_message({"version": 3}, event="snapshot", event_id="3")
b'id: 3\\nevent: snapshot\\ndata: {"version":3}\\n\\n'
>>> sse_comment("keep-alive")
b': keep-alive\\n\\n'
"""

from __future__ import annotations

import functools
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from controller.referee.snapshot import Snapshot
from controller.subscription import Subscription

log = logging.getLogger(__name__)


class Snapshots(Protocol):
    """What the hub uses of the Table (:class:`web_ui.state.TablePort`)."""

    @property
    def snapshot(self) -> Snapshot: ...

    def subscribe(self) -> Subscription: ...


def sse_message(data: Mapping[str, Any], *, event: str, event_id: str | None = None) -> bytes:
    """One SSE event with JSON data on one line (``json.dumps`` never emits a newline)."""
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, separators=(",", ":"), ensure_ascii=False))
    return ("\n".join(lines) + "\n\n").encode()


def sse_comment(text: str) -> bytes:
    """An SSE comment line: keeps idle connections (and proxies) open, shown to nobody."""
    return f": {text}\n\n".encode()


@dataclass(frozen=True, slots=True)
class Update:
    """A snapshot as the hub passed it on: ``seq`` counts hub deliveries."""

    seq: int
    snapshot: Snapshot
    data: dict[str, Any]
    """Its JSON form, made once."""

    @property
    def version(self) -> int:
        return self.snapshot.version


def may_stream(mine: int, everyone: int, *, per_device: int, total: int) -> bool:
    """Whether a device holding ``mine`` of the ``everyone`` open live streams may open
    another (at most ``per_device`` each, ``total`` in all).

    >>> may_stream(7, 40, per_device=8, total=64), may_stream(8, 40, per_device=8, total=64)
    (True, False)
    >>> may_stream(0, 64, per_device=8, total=64)
    False
    """
    return mine < per_device and everyone < total


class Slot:
    """One open live stream; :meth:`release` (any number of times) frees it once."""

    def __init__(self, release: Callable[[], None]) -> None:
        self._release = release
        self._lock = threading.Lock()
        self._released = False

    def release(self) -> None:
        with self._lock:
            if self._released:
                return
            self._released = True
        self._release()


class Stopped(Exception):
    """The hub was stopped (the server is shutting down): end the stream."""


class LiveHub:
    """Fan-out of Table snapshots to any number of waiting streams.

    >>> class Tiny:  # what the hub asks of a table
    ...     snapshot = None
    ...     def subscribe(self): ...
    >>> hub = LiveHub(Tiny())  # type: ignore[arg-type]
    >>> hub.viewers
    0
    """

    def __init__(
        self,
        table: Snapshots,
        *,
        poll: float = 0.5,
        cache_size: int = 32,
        listener: Callable[[Snapshot], None] | None = None,
    ) -> None:
        self._table = table
        self._listener = listener
        """Called on the fan-out thread with every snapshot (the reviews start from it)."""
        self._poll = poll
        self._cond = threading.Condition()
        self._latest: Update | None = None
        self._seq = 0
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._subscription: Subscription | None = None
        self._viewers = 0
        self._by_device: dict[str, int] = {}
        self._cache: OrderedDict[tuple[int, Hashable], bytes] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()
        self._building: dict[tuple[int, Hashable], threading.Event] = {}

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        """Subscribe to the Table and start the fan-out thread (idempotent)."""
        with self._cond:
            if self._thread is not None or self._stopping:
                return
            self._subscription = self._table.subscribe()
            self._thread = threading.Thread(target=self._run, name="web-live-hub", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """End every stream and the fan-out thread; the hub cannot be started again."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
        if self._subscription is not None:
            self._subscription.close()

    @property
    def stopping(self) -> bool:
        return self._stopping

    @property
    def viewers(self) -> int:
        """Streams open right now."""
        return self._viewers

    def _run(self) -> None:
        assert self._subscription is not None
        while not self._stopping:
            try:
                snapshot = self._subscription.get(timeout=self._poll)
            except Exception:  # a broken subscription must not end live updates silently
                log.exception("live updates: the Table subscription failed")
                self._stopping = True
                snapshot = None
            if snapshot is None:
                if self._subscription.closed:
                    # The Table stopped (it closes its subscriptions): end the streams
                    # rather than spin on a subscription that answers None at once.
                    log.info("live updates: the Table stopped")
                    self._stopping = True
                continue
            self.publish(snapshot)
            if self._listener is not None:
                try:
                    self._listener(snapshot)
                except Exception:  # a listener's failure must not end live updates
                    log.exception("live updates: a listener failed")
        with self._cond:
            self._cond.notify_all()

    def publish(self, snapshot: Snapshot) -> Update:
        """Hand ``snapshot`` to every waiting stream (the fan-out thread calls this)."""
        data = snapshot.to_json()
        with self._cond:
            self._seq += 1
            update = Update(self._seq, snapshot, data)
            self._latest = update
            self._cond.notify_all()
        return update

    # -- streams -------------------------------------------------------------------------
    def current(self) -> Update:
        """The newest snapshot, straight from the Table (a new page starts with it)."""
        snapshot = self._table.snapshot
        with self._cond:
            seq = self._seq
        return Update(seq, snapshot, snapshot.to_json())

    def wait(self, seen: int, timeout: float) -> Update | None:
        """The next update after hub sequence ``seen``, or None after ``timeout`` seconds.

        Raises :class:`Stopped` when the hub stops, so the stream ends and the server can.
        """
        with self._cond:
            self._cond.wait_for(
                lambda: self._stopping or (self._latest is not None and self._latest.seq > seen),
                timeout,
            )
            if self._stopping:
                raise Stopped
            latest = self._latest
            if latest is None or latest.seq <= seen:
                return None
            return latest

    def admit(self, device: str, *, per_device: int, total: int) -> Slot | None:
        """A live stream for ``device`` (:func:`may_stream`), or None when it may not."""
        with self._cond:
            mine = self._by_device.get(device, 0)
            if not may_stream(mine, self._viewers, per_device=per_device, total=total):
                return None
            self._by_device[device] = mine + 1
            self._viewers += 1
        return Slot(functools.partial(self._release, device))

    def _release(self, device: str) -> None:
        with self._cond:
            self._viewers -= 1
            left = self._by_device.get(device, 1) - 1
            if left > 0:
                self._by_device[device] = left
            else:
                self._by_device.pop(device, None)

    def payload(self, version: int, key: Hashable, build: Callable[[], bytes]) -> bytes:
        """The bytes for snapshot ``version`` and ``key`` (view, language): built once.

        Every stream wakes for the same update at the same moment; the first one builds
        the bytes and the others wait for them, rather than fifty threads rendering the
        same page regions side by side.
        """
        cache_key = (version, key)
        while True:
            with self._cache_lock:
                cached = self._cache.get(cache_key)
                if cached is not None:
                    self._cache.move_to_end(cache_key)
                    return cached
                pending = self._building.get(cache_key)
                if pending is None:
                    pending = self._building[cache_key] = threading.Event()
                    break
            pending.wait(5.0)  # the builder's bytes are cached when this is set
        try:
            built = build()
            with self._cache_lock:
                self._cache[cache_key] = built
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
            return built
        finally:
            with self._cache_lock:
                del self._building[cache_key]
            pending.set()

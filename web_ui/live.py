"""Live updates: every open page follows the Table's snapshots.

The Table hands out immutable snapshots through its one fan-out
(:class:`controller.subscription.Publisher`): each Server-Sent-Events stream holds a
subscription of its own (:meth:`LiveHub.follow`) and sends the newest snapshot it has
not seen yet; a slow viewer skips straight to the latest (latest wins), so no viewer can
hold up the Table or the others. The :class:`LiveHub` is what the streams share: how many
are open (and from which device), the bytes already built for an update, and the stop
that ends them all when the server shuts down.

The bytes of one update (JSON, rendered fragments) depend only on the snapshot, the view
and the language, so :meth:`LiveHub.payload` builds them once and every viewer with the
same view and language sends the same bytes.

>>> sse_message({"version": 3}, event="snapshot", event_id="3")
b'id: 3\\nevent: snapshot\\ndata: {"version":3}\\n\\n'
>>> sse_comment("keep-alive")
b': keep-alive\\n\\n'
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping
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
    """What the open live streams share (each follows the Table itself: :meth:`follow`).

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
        cache_size: int = 32,
        listener: Callable[[Snapshot], None] | None = None,
    ) -> None:
        self._table = table
        self._listener = listener
        """Called with every snapshot once the page has been opened (the reviews start
        from it), on a thread of its own: a subscriber of the Table like any stream."""
        self._lock = threading.Lock()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._following: set[Subscription] = set()
        self._viewers = 0
        self._by_device: dict[str, int] = {}
        self._cache: OrderedDict[tuple[int, Hashable], bytes] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()
        self._building: dict[tuple[int, Hashable], threading.Event] = {}

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        """Start the listener's watch of the Table (idempotent; nothing without one)."""
        with self._lock:
            if self._thread is not None or self._stopping or self._listener is None:
                return
            self._thread = threading.Thread(target=self._watch, name="web-live", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """End every stream and the listener's watch; the hub cannot be started again."""
        with self._lock:
            self._stopping = True
            following, self._following = list(self._following), set()
            thread = self._thread
        for subscription in following:
            subscription.close()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    @property
    def stopping(self) -> bool:
        return self._stopping

    @property
    def viewers(self) -> int:
        """Streams open right now."""
        return self._viewers

    @contextlib.contextmanager
    def follow(self) -> Iterator[Subscription]:
        """A subscription to the Table's snapshots for one stream (its first
        :meth:`~Subscription.get` returns the current one), closed when the stream ends,
        when the hub stops, or when the Table stops. Raises :class:`Stopped` once the hub
        has stopped."""
        subscription = self._table.subscribe()
        with self._lock:
            stopping = self._stopping
            if not stopping:
                self._following.add(subscription)
        if stopping:
            subscription.close()
            raise Stopped
        try:
            yield subscription
        finally:
            with self._lock:
                self._following.discard(subscription)
            subscription.close()

    def _watch(self) -> None:
        assert self._listener is not None
        with contextlib.ExitStack() as stack:
            try:
                subscription = stack.enter_context(self.follow())
            except Stopped:
                return  # the hub stopped before this thread began: nothing to watch
            while not subscription.closed:
                snapshot = subscription.get()
                if snapshot is None:
                    continue  # closed: the hub or the Table stopped
                try:
                    self._listener(snapshot)
                except Exception:  # a listener's failure must not end the watch
                    log.exception("live updates: a listener failed")

    def admit(self, device: str, *, per_device: int, total: int) -> Slot | None:
        """A live stream for ``device`` (:func:`may_stream`), or None when it may not."""
        with self._lock:
            mine = self._by_device.get(device, 0)
            if not may_stream(mine, self._viewers, per_device=per_device, total=total):
                return None
            self._by_device[device] = mine + 1
            self._viewers += 1
        return Slot(functools.partial(self._release, device))

    def _release(self, device: str) -> None:
        with self._lock:
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

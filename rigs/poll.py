"""The one poller of the tests: wait until something is true, or fail saying what was seen.

For things that happen on another thread or process (a board's scan thread, a Pico on a
pty, a server). The referee itself is tested without it: in virtual time, no waiting.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(
    probe: Callable[[], T | None],
    timeout: float = 5.0,
    *,
    interval: float = 0.002,
    what: str | Callable[[], object] = "",
) -> T:
    """``probe()`` once it is truthy; AssertionError after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > end:
            said = what() if callable(what) else what
            raise AssertionError(f"timed out after {timeout} s{': ' if said else ''}{said}")
        time.sleep(interval)  # the poller's own pause between looks: nothing to wait on

"""Who may try a PIN, and how often: the limits on wrong PINs.

Reading the web page is open to the home network; every action that changes anything
needs the admin PIN, which :mod:`controller.settings` keeps (only its hash) and checks
with scrypt (about 0.1 s). Three limits stand between a guesser and the PIN, all decided
*before* the slow hash, so tries sent side by side are counted like tries sent one after
another:

- **per device** (an IPv4 address, or an IPv6 /64: one home's devices get a whole /64 and
  may pick any address in it): ``free`` wrong PINs cost nothing, then each further one
  makes that device wait ``base * 2**(n - free - 1)`` seconds (at most ``cap``) before its
  next try is even looked at;
- **all devices together**: a bucket of ``burst`` wrong PINs, refilled at ``per_hour``,
  so rotating addresses gains nothing;
- **a lockout**: after ``lockout`` wrong PINs since the PIN was set, no PIN is checked at
  all until ``pyramid pin`` sets a new one (the count is kept in the store, so a restart
  does not lift it).

A try is counted as wrong when it is admitted and given back when the hash says it was
right. The core is pure: :func:`admit` and :func:`succeeded` take a :class:`Guard` (an
immutable value) and the time, and return a new one; :class:`PinGuard` is the thin shell
holding the current value under a lock, with the store's count beside it. The client is
told how long to wait (HTTP 429 with ``Retry-After``), so no server thread sleeps.

>>> limits = Limits(free=2, base=1.0, cap=60.0, burst=5, per_hour=3600.0, lockout=8)
>>> guard, now = Guard(), 100.0
>>> answers = []
>>> for _ in range(4):  # one device: 2 free, then a wait after each
...     guard, verdict = admit(guard, limits, "10.0.0.7", now, wrong_so_far=0)
...     answers.append(verdict.allowed)
>>> answers, wait_of(guard, "10.0.0.7", now)  # the 3rd try was looked at; it costs 1 s
([True, True, True, False], 1)
>>> guard, verdict = admit(guard, limits, "10.0.0.8", now, wrong_so_far=3)
>>> verdict.allowed, guard.tokens  # another device: admitted, the bucket has 1 left
(True, 1.0)
>>> guard = succeeded(guard, limits, "10.0.0.8", now)  # its PIN was right: given back
>>> guard.tokens, "10.0.0.8" in guard.devices
(2.0, False)
>>> admit(guard, limits, "10.0.0.9", now, wrong_so_far=8)[1]
Verdict(allowed=False, retry_after=0, locked_out=True)
>>> device_of("2001:db8:1:2:aaaa::5"), device_of("::ffff:192.0.2.7"), device_of("192.0.2.7")
('2001:db8:1:2::/64', '192.0.2.7', '192.0.2.7')
"""

from __future__ import annotations

import dataclasses
import ipaddress
import logging
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

log = logging.getLogger("web_ui")


def device_of(address: str) -> str:
    """Whom a connection or a wrong PIN is counted against: an IPv4 address, or the /64 of
    an IPv6 one (a device picks its own address in its network's /64)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address[:64] or "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits on wrong PINs; the defaults are the board's (``docs/user-guide.md``
    says what they mean for a guesser)."""

    free: int = 3
    """Wrong PINs a device may try without waiting."""
    base: float = 1.0
    """Seconds of a device's first wait; each further wrong PIN doubles it."""
    cap: float = 900.0
    """The longest wait of one device (seconds)."""
    burst: int = 10
    """Wrong PINs all devices together may try in a row."""
    per_hour: float = 10.0
    """Wrong PINs all devices together may try per hour after the burst."""
    lockout: int = 100
    """Wrong PINs since the PIN was set after which none is checked until ``pyramid pin``."""
    forget_after: float = 24 * 3600.0
    """Seconds after which a device's wrong PINs are forgotten (the total is not)."""
    max_devices: int = 4096
    """Devices remembered (the least recently wrong forgotten first; the bucket and the
    lockout do not depend on it)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a PIN may be checked now; if not, how many seconds to wait, or whether the
    PIN is locked until ``pyramid pin``."""

    allowed: bool
    retry_after: int = 0
    locked_out: bool = False


@dataclass(frozen=True, slots=True)
class Device:
    failures: int
    """Wrong PINs (tries admitted and not found right) within ``forget_after``."""
    blocked_until: float
    last: float


@dataclass(frozen=True, slots=True)
class Guard:
    """All the wrong PINs the page remembers: an immutable value (a new one per change)."""

    devices: Mapping[str, Device] = field(default_factory=dict)
    """Per device, least recently wrong first."""
    tokens: float | None = None
    """Wrong PINs left in the bucket (None: full)."""
    filled_at: float = 0.0


def _tokens(guard: Guard, limits: Limits, now: float) -> float:
    if guard.tokens is None:
        return float(limits.burst)
    refill = max(0.0, now - guard.filled_at) * limits.per_hour / 3600.0
    return min(float(limits.burst), guard.tokens + refill)


def _device(guard: Guard, limits: Limits, device: str, now: float) -> Device | None:
    record = guard.devices.get(device)
    if record is None or now - record.last > limits.forget_after:
        return None
    return record


def wait_of(guard: Guard, device: str, now: float) -> int:
    """Seconds ``device`` must wait before its next PIN is looked at (0: none)."""
    record = guard.devices.get(device)
    if record is None or now >= record.blocked_until:
        return 0
    return max(1, math.ceil(record.blocked_until - now))


def admit(
    guard: Guard, limits: Limits, device: str, now: float, *, wrong_so_far: int
) -> tuple[Guard, Verdict]:
    """May ``device`` have a PIN checked now? If so, the try is counted as wrong at once
    (:func:`succeeded` gives it back). ``wrong_so_far``: wrong PINs since the PIN was set
    (the store's count)."""
    if wrong_so_far >= limits.lockout:
        return guard, Verdict(False, 0, locked_out=True)
    record = _device(guard, limits, device, now)
    if record is not None and now < record.blocked_until:
        return guard, Verdict(False, max(1, math.ceil(record.blocked_until - now)))
    tokens = _tokens(guard, limits, now)
    if tokens < 1.0:
        rate = limits.per_hour / 3600.0
        return guard, Verdict(False, max(1, math.ceil((1.0 - tokens) / rate)) if rate else 3600)
    failures = (record.failures if record is not None else 0) + 1
    over = failures - limits.free
    wait = 0.0 if over <= 0 else min(limits.cap, limits.base * 2.0 ** (over - 1))
    devices = {k: v for k, v in guard.devices.items() if k != device}
    devices[device] = Device(failures, now + wait, now)
    while len(devices) > limits.max_devices:
        del devices[next(iter(devices))]
    return Guard(devices, tokens - 1.0, now), Verdict(True)


def succeeded(guard: Guard, limits: Limits, device: str, now: float) -> Guard:
    """The admitted try of ``device`` was the right PIN: forget its wrong ones and give the
    try back to the bucket."""
    devices = {k: v for k, v in guard.devices.items() if k != device}
    tokens = min(float(limits.burst), _tokens(guard, limits, now) + 1.0)
    return dataclasses.replace(guard, devices=devices, tokens=tokens, filled_at=now)


def say_locked(wrong: int) -> None:
    """Log that the page checks no PIN, and what lifts that."""
    log.warning(
        "web: %d wrong PINs since the PIN was set: no PIN is checked any more. "
        "Run `pyramid pin` on the board's computer to set a new one.",
        wrong,
    )


class WrongPins(Protocol):
    """Where the count of wrong PINs since the PIN was set is kept
    (:class:`controller.settings.Settings`)."""

    def wrong_pins(self) -> int: ...

    def set_wrong_pins(self, count: int) -> None: ...


class PinGuard:
    """The shell around :func:`admit`: the current :class:`Guard` under a lock, the clock,
    and the store's count of wrong PINs (read and written under the same lock, so two
    tries never count as one)."""

    def __init__(
        self,
        limits: Limits | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = limits or Limits()
        self._clock = clock
        self._lock = threading.Lock()
        self._guard = Guard()

    def admit(self, device: str, count: WrongPins) -> Verdict:
        """May ``device`` have a PIN checked now? An admitted try is counted as wrong (in
        memory and in the store) before the caller checks it."""
        with self._lock:
            wrong = count.wrong_pins()
            guard, verdict = admit(
                self._guard, self.limits, device, self._clock(), wrong_so_far=wrong
            )
            if verdict.allowed:
                count.set_wrong_pins(wrong + 1)  # a full card raises: the PIN is not checked
                self._guard = guard
        return verdict

    def right(self, device: str, count: WrongPins) -> None:
        """The admitted try of ``device`` was right: given back."""
        with self._lock:
            self._guard = succeeded(self._guard, self.limits, device, self._clock())
            count.set_wrong_pins(max(0, count.wrong_pins() - 1))

    def wrong(self, device: str, count: WrongPins) -> Verdict:
        """The admitted try of ``device`` was wrong (already counted): how long it must now
        wait, or whether that was the last PIN checked until ``pyramid pin``."""
        with self._lock:
            wrong = count.wrong_pins()
            if wrong >= self.limits.lockout:
                say_locked(wrong)
                return Verdict(False, 0, locked_out=True)
            wait = wait_of(self._guard, device, self._clock())
        return Verdict(wait == 0, wait)

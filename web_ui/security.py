"""The admin PIN, the session secret and the slow-down for wrong PINs.

Reading the web page is open to the home network; every action that changes anything
needs the admin PIN. Only a hash of the PIN is stored (scrypt, via werkzeug), in the
store's settings, next to a generated session secret:

>>> class Settings(dict):  # the two methods of controller.store.Store used here
...     get_setting, set_setting = dict.get, dict.__setitem__
>>> store = Settings()
>>> first = ensure_pin(store)         # first start: a new 6-digit PIN, to show once
>>> first is not None and len(first) == 6 and first.isdigit()
True
>>> ensure_pin(store) is None         # already set: nothing to show
True
>>> set_pin(store, "2468")
>>> check_pin(store, "2468"), check_pin(store, "1357")
(True, False)
>>> set_pin(store, "12a4")
Traceback (most recent call last):
...
web_ui.security.PinError: a PIN is 4 to 12 digits (0–9), nothing else

Wrong PINs are slowed down per client by :class:`Throttle`: a few tries are free, then
each further wrong PIN doubles the wait before the next try is even looked at, and the
client is told how long to wait (HTTP 429 with ``Retry-After``), so no server thread
sleeps.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from werkzeug.security import check_password_hash, generate_password_hash

PIN_HASH_KEY = "web.pin_hash"
"""Store setting holding the werkzeug hash (``scrypt:…``) of the admin PIN."""
SECRET_KEY = "web.session_secret"
"""Store setting holding the session-cookie signing secret (64 hex digits)."""

PIN_MIN = 4
PIN_MAX = 12
GENERATED_PIN_DIGITS = 6

# scrypt with werkzeug's defaults (N=2**15, r=8, p=1): about 0.1 s and 32 MiB per check on
# a Pi 4, which is fine for a PIN entered once per session and costly for a guesser.
_HASH_METHOD = "scrypt"


class PinError(ValueError):
    """A PIN that cannot be used; the message says what a PIN must be."""


class SettingsStore(Protocol):
    """The part of :class:`controller.store.Store` this module needs."""

    def get_setting(self, key: str) -> str | None: ...

    def set_setting(self, key: str, value: str) -> None: ...


def validate_pin(pin: object) -> str:
    """The PIN as text, or :class:`PinError` when it is not 4 to 12 digits."""
    if (
        not isinstance(pin, str)
        or not PIN_MIN <= len(pin) <= PIN_MAX
        or not pin.isascii()
        or not pin.isdigit()
    ):
        raise PinError(f"a PIN is {PIN_MIN} to {PIN_MAX} digits (0–9), nothing else")
    return pin


def generate_pin() -> str:
    """A random 6-digit PIN from the operating system's secure random source."""
    return f"{secrets.randbelow(10**GENERATED_PIN_DIGITS):0{GENERATED_PIN_DIGITS}d}"


def set_pin(store: SettingsStore, pin: str) -> None:
    """Store the hash of ``pin`` (which must pass :func:`validate_pin`)."""
    store.set_setting(PIN_HASH_KEY, generate_password_hash(validate_pin(pin), _HASH_METHOD))


def has_pin(store: SettingsStore) -> bool:
    return bool(store.get_setting(PIN_HASH_KEY))


def ensure_pin(store: SettingsStore) -> str | None:
    """On first start, set a generated PIN and return it (to log once); else None."""
    if has_pin(store):
        return None
    pin = generate_pin()
    set_pin(store, pin)
    return pin


def check_pin(store: SettingsStore, pin: object) -> bool:
    """True when ``pin`` is the admin PIN. Malformed input is simply wrong, never an error."""
    stored = store.get_setting(PIN_HASH_KEY)
    if not stored or not isinstance(pin, str) or len(pin) > PIN_MAX:
        return False
    try:
        return check_password_hash(stored, pin)
    except (ValueError, TypeError):  # a damaged hash in the store never unlocks
        return False


def pin_fingerprint(store: SettingsStore, secret: str) -> str:
    """A short keyed digest of the stored PIN hash, kept in an unlocked session.

    A session is admin only while its fingerprint matches, so changing the PIN locks out
    every session unlocked with the old one.
    """
    stored = store.get_setting(PIN_HASH_KEY) or ""
    return hmac.new(secret.encode(), stored.encode(), hashlib.sha256).hexdigest()[:32]


def ensure_secret(store: SettingsStore) -> str:
    """The session secret; generated (256 bits) and stored on first start."""
    secret = store.get_setting(SECRET_KEY)
    if secret and len(secret) >= 32:
        return secret
    secret = secrets.token_hex(32)
    store.set_setting(SECRET_KEY, secret)
    return secret


# -- slowing down wrong PINs -------------------------------------------------------------


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

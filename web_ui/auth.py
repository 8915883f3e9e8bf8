"""Who may change things: a browser session unlocked with the admin PIN.

A right PIN stores, in the signed session cookie, a fingerprint of the stored PIN hash and
an expiry. The session is admin only while both hold, so changing the PIN (or the time
running out) locks every browser again. Pages send a locked visitor to the PIN form; the
JSON API answers 403 with ``"need_pin": true`` (the page's script then asks for the PIN).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar
from urllib.parse import urlsplit

from flask import abort, redirect, request, session, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as BaseResponse

from web_ui import bodies, security
from web_ui.state import web_state

P = ParamSpec("P")
R = TypeVar("R")


class PinRequired(Exception):
    """Raised by views that need an unlocked session; the error handlers answer it."""


class TooManyTries(Exception):
    """Wrong PINs came too fast from this device or from all; ``retry_after`` seconds to
    wait."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"retry after {retry_after} s")
        self.retry_after = retry_after


class LockedOut(Exception):
    """So many wrong PINs since the PIN was set that none is checked until ``pyramid pin``
    sets a new one (:mod:`web_ui.security`)."""


def client_id() -> str:
    """Whom wrong PINs are counted against: the peer's device (no proxy sits in front),
    its IPv6 /64 (:func:`web_ui.security.device_of`)."""
    return security.device_of(request.remote_addr or "unknown")


def is_admin() -> bool:
    """Whether this browser's session is unlocked (right PIN, same PIN hash, not expired)."""
    web = web_state()
    fingerprint = session.get("admin")
    until = session.get("admin_until")
    if not isinstance(fingerprint, str) or not isinstance(until, int | float):
        return False
    now = time.time()
    # The wall clock may jump (a Pi without a clock battery, then NTP): forward, a session
    # merely ends early; backward, an expiry would lie years ahead, so one further ahead
    # than a whole session is not trusted either.
    if not now <= until <= now + web.settings.session_hours * 3600 + 60:
        return False
    return fingerprint == web.household.pin_fingerprint(web.secret)


def verify(pin: object) -> None:
    """Check ``pin`` for this client, changing nothing in the session; or raise.

    The try is counted before the slow hash (:class:`~web_ui.security.PinGuard`), so
    tries sent at once count like tries sent one after another. Raises
    :class:`LockedOut` (no PIN is checked until ``pyramid pin``), :class:`TooManyTries`
    (this device or all must wait; the PIN is not even checked) or
    :class:`PermissionError` (a wrong PIN, counted).
    """
    web = web_state()
    client = client_id()
    verdict = web.pins.admit(client, web.household)
    if verdict.locked_out:
        raise LockedOut
    if not verdict.allowed:
        raise TooManyTries(verdict.retry_after)
    if web.household.check_pin(pin):
        web.pins.right(client, web.household)
        return
    after = web.pins.wrong(client, web.household)
    if after.locked_out:
        raise LockedOut
    if not after.allowed:
        raise TooManyTries(after.retry_after)
    raise PermissionError(gettext("Wrong PIN."))


def unlock(pin: object) -> None:
    """Check ``pin`` (:func:`verify`) and unlock this browser's session."""
    verify(pin)
    session.clear()  # a fresh session (and CSRF secret) once privileges change
    session.permanent = True
    web = web_state()
    session["admin"] = web.household.pin_fingerprint(web.secret)
    session["admin_until"] = time.time() + web.settings.session_hours * 3600


def unlocked_until() -> float | None:
    """When this browser's unlocked session ends (Unix seconds), or None when locked."""
    until = session.get("admin_until")
    return float(until) if is_admin() and isinstance(until, int | float) else None


def lock() -> None:
    session.pop("admin", None)
    session.pop("admin_until", None)


def admin_required(view: Callable[P, R]) -> Callable[P, R]:
    """Views that change anything: an unlocked session, or :class:`PinRequired`."""

    @functools.wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if not is_admin():
            raise PinRequired
        return view(*args, **kwargs)

    return wrapper


def safe_next(target: object, fallback: str | None = None) -> str:
    """A local path to go back to after unlocking; anything else becomes the live page."""
    default = fallback or url_for("pages.live")
    if not isinstance(target, str) or not target.startswith("/") or len(target) > 512:
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or target.startswith("//") or "\\" in target:
        return default
    if any(ord(c) < 32 for c in target):
        return default
    return target


def to_unlock() -> BaseResponse:
    """Redirect a locked visitor of a page to the PIN form, coming back afterwards."""
    if request.method == "GET":
        back = request.full_path if request.query_string else request.path
    else:
        back = (request.referrer and urlsplit(request.referrer).path) or url_for("pages.live")
    return redirect(url_for("pages.unlock", next=safe_next(back)))


def require_json_object(model: type[bodies.Body]) -> dict[str, Any]:
    """The fields of the request's JSON body, checked against ``model`` (:mod:`web_ui.bodies`'
    one rule): a body that does not fit is an :class:`~web_ui.bodies.InputError` (400 naming
    every mistake's field, ``errors.py``)."""
    return bodies.check(model, read_body())


def read_body() -> object:
    """The request's JSON body: the only place one is read. A body that does not parse is an
    :class:`~web_ui.bodies.InputError`. An empty body counts as ``{}`` (so ``curl -X POST``
    works for a command); any other body must say ``Content-Type: application/json`` (else
    415)."""
    raw = request.get_data(cache=True)
    if not raw:
        return {}
    if not request.is_json:
        abort(415, gettext("Send JSON (Content-Type: application/json)."))
    return bodies.read_json(raw)

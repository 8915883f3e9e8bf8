"""Every failure becomes a clear answer: JSON for the API, a page for people.

Bad input is answered with 400 and a sentence that says what was wrong (an
:class:`~web_ui.bodies.InputError` raised anywhere also names its ``field``); a locked
session gets 403 (pages: the PIN form); too many wrong PINs get 429 with
``Retry-After``; a store that cannot write (a full or read-only card) gets 503. A 500 is
a bug: it is logged with its traceback and answered with a short apology that gives
nothing away.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from flask_babel import gettext, ngettext
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response as BaseResponse

from controller.store import StoreWriteError
from web_ui.auth import LockedOut, PinRequired, TooManyTries, to_unlock
from web_ui.bodies import InputError

log = logging.getLogger("web_ui")


def wants_json() -> bool:
    """API and event-stream callers get JSON; browsers asking for pages get HTML."""
    path = request.path
    if path.startswith(("/api/", "/events")):
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return (
        best == "application/json"
        and request.accept_mimetypes[best] > (request.accept_mimetypes["text/html"])
    )


def _titles() -> dict[int, str]:
    return {
        400: gettext("That did not work"),
        403: gettext("The admin PIN is needed"),
        404: gettext("Not found"),
        405: gettext("Not allowed here"),
        409: gettext("Not now"),
        413: gettext("Too much data"),
        415: gettext("Unsupported data"),
        423: gettext("The PIN is locked"),
        429: gettext("Too many wrong PINs"),
        500: gettext("Something went wrong"),
        503: gettext("Busy"),
    }


def answer(status: int, message: str, **extra: Any) -> Response:
    """The error ``status`` with ``message``, as JSON or as a page."""
    if wants_json():
        response = jsonify({"ok": False, "error": message, **extra})
    else:
        title = _titles().get(status, gettext("That did not work"))
        response = Response(
            render_template("error.html", status=status, title=title, message=message),
            mimetype="text/html",
        )
    response.status_code = status
    return response


def _http_error(exc: HTTPException) -> Response:
    status = exc.code or 500
    defaults = {
        400: gettext("The request could not be understood."),
        404: gettext("There is no such page."),
        405: gettext("This address does not take that kind of request."),
        413: gettext("The request is too large."),
        415: gettext("Send JSON (Content-Type: application/json)."),
    }
    # abort(code, "sentence") sets a description of our own; werkzeug's English default
    # texts are replaced by translated ones.
    own = exc.description if exc.description != type(exc).description else None
    response = answer(status, own or defaults.get(status, exc.name))
    headers = dict(exc.get_headers())
    for header in ("Retry-After", "Allow"):
        value = headers.get(header)
        if value:
            response.headers[header] = value
    return response


def _csrf_error(exc: CSRFError) -> Response:
    return answer(
        400,
        gettext("The form has expired or did not come from this page. Reload and try again."),
        csrf=True,
    )


def _pin_required(exc: PinRequired) -> BaseResponse:
    if wants_json():
        return answer(403, gettext("This needs the admin PIN."), need_pin=True)
    return to_unlock()


def _too_many(exc: TooManyTries) -> Response:
    response = answer(
        429,
        ngettext(
            "Too many wrong PINs. Try again in %(num)d second.",
            "Too many wrong PINs. Try again in %(num)d seconds.",
            exc.retry_after,
        ),
        retry_after=exc.retry_after,
    )
    response.headers["Retry-After"] = str(exc.retry_after)
    return response


def _locked_out(exc: LockedOut) -> Response:
    return answer(
        423,
        gettext(
            "So many wrong PINs were tried that the board checks none any more. On the "
            "board's computer, run “pyramid pin” to set a new PIN; then unlock with it."
        ),
        locked_out=True,
    )


def _input_error(exc: InputError) -> Response:
    """A body that does not parse or fit its route's model: 400, the first mistake's field
    named, and every mistake in ``errors``."""
    mistakes = [{"field": field, "error": problem} for field, problem in exc.mistakes]
    return answer(400, f"{exc.field}: {exc.problem}", field=exc.field, errors=mistakes)


def _store_write(exc: StoreWriteError) -> Response:
    """The page's own writes (settings, the PIN) on a full or read-only card: 503, a
    sentence, nothing changed; the game's moves say so on the live page themselves."""
    log.error("web: %s", exc)
    if exc.fault == "full":
        message = gettext("The board's memory card is full: nothing was changed.")
    elif exc.fault == "read-only":
        message = gettext("The board's memory card is read-only: nothing was changed.")
    else:
        message = gettext("The board could not save this: nothing was changed.")
    response = answer(503, message, fault=exc.fault)
    response.headers["Retry-After"] = "10"
    return response


def _unexpected(exc: Exception) -> Response:
    if isinstance(exc, HTTPException):
        return _http_error(exc)
    log.exception("web: unexpected error on %s %s", request.method, request.path)
    return answer(500, gettext("Something went wrong on the board's computer; it was logged."))


def register(app: Flask) -> None:
    app.register_error_handler(CSRFError, _csrf_error)
    app.register_error_handler(PinRequired, _pin_required)
    app.register_error_handler(TooManyTries, _too_many)
    app.register_error_handler(LockedOut, _locked_out)
    app.register_error_handler(InputError, _input_error)
    app.register_error_handler(StoreWriteError, _store_write)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)

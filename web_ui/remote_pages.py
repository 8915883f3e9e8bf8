"""The pages of a game across two homes: the Join page, and what the other pages show of
the link (the live page's line about it, the Settings section, New game's seat "on
another board"). The JSON routes are in :mod:`web_ui.api`; the link is the Table's
(:class:`controller.remote.seats.RemoteSeats`)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, make_response, redirect, render_template, request, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as BaseResponse

from web_ui import auth
from web_ui.redact import for_viewer
from web_ui.state import web_state

bp = Blueprint("remote", __name__)


@bp.app_context_processor
def _remote() -> dict[str, Any]:
    """For every template: ``remote_configured`` (this board has a ``[remote]`` broker)
    and ``remote_broker`` (its address, or None; None for a locked browser too, as the
    code: :mod:`web_ui.redact`)."""
    configured = _configured()
    config = web_state().config if configured else None
    broker = config.remote.broker if config is not None and config.remote else None
    return {
        "remote_configured": configured,
        "remote_broker": broker if auth.is_admin() else None,
        "snap_remote_now": lambda: for_viewer(web_state().table.snapshot, auth.is_admin()).remote,
    }


def _configured() -> bool:
    try:
        return web_state().table.linker is not None
    except RuntimeError:  # outside a request of this app
        return False


def _again(error: str, status: int) -> BaseResponse:
    page = render_template("join.html", error=error, code=request.form.get("code", ""))
    return make_response(page, status)


@bp.get("/join")
def join() -> str:
    return render_template("join.html", error=None, code=request.args.get("code", "")[:40])


@bp.post("/join", endpoint="join_submit")
def join_post() -> BaseResponse:
    linker = web_state().table.linker
    if linker is None:
        return _again(gettext("This board has no broker: add [remote] to its config file."), 400)
    if not auth.is_admin():
        try:
            auth.unlock(request.form.get("pin", ""))
        except PermissionError as exc:
            return _again(str(exc), 403)
    try:
        linker.join(request.form.get("code", ""))
    except ValueError:
        return _again(gettext("That is not the code: read it again (12 letters and digits)."), 400)
    return redirect(url_for("pages.live"))


@bp.post("/take-record", endpoint="take_record")
def take_record() -> BaseResponse:
    """The way back from a disagreement: take the inviting board's record."""
    linker = web_state().table.linker
    if linker is not None:
        if not auth.is_admin():
            raise auth.PinRequired
        linker.take_record()
    return redirect(url_for("pages.live"))


@bp.post("/join/cancel", endpoint="join_cancel")
def join_cancel() -> BaseResponse:
    """Stop waiting for a code nobody answers (the person who joined, or the admin)."""
    linker = web_state().table.linker
    if linker is not None:
        if not auth.is_admin():
            return _again(gettext("This needs the admin PIN."), 403)
        linker.cancel_join()
    return redirect(url_for("pages.live"))

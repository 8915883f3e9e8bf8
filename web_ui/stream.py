"""``GET /events``: the live stream (Server-Sent Events).

A new stream starts with the current snapshot, then sends every change as one
``snapshot`` event whose data is JSON: ``{"version", "snapshot", "text", "html"}``.
``text`` is the note and the prompt in the viewer's language; ``html`` holds the page's
live regions already rendered in it (``view=live``
or ``view=diagnostics``; ``view=none`` sends the snapshot alone, for programs). A
comment every ``heartbeat`` seconds keeps the connection open and lets the server notice
closed ones. ``retry: 2000`` asks the browser to reconnect after 2 s if the stream ends;
it ends when the server shuts down, so waitress can stop.

    $ curl -N http://pyramid.local:8080/events?view=none
    retry: 2000

    id: 17
    event: snapshot
    data: {"version":17,"snapshot":{...},"text":{"note":"…","prompt":"…"},"html":{}}
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from flask import Blueprint, Response, abort, request, stream_with_context
from flask_babel import get_locale, gettext

from controller.referee.snapshot import Snapshot
from web_ui import auth, render
from web_ui.live import Stopped, sse_comment, sse_message
from web_ui.redact import for_viewer
from web_ui.state import web_state

bp = Blueprint("events", __name__)

Renderer = Callable[[Snapshot], dict[str, str]]
VIEWS: dict[str, Renderer | None] = {
    "live": render.live_fragments,
    "diagnostics": render.diagnostics_fragments,
    "none": None,
}

RETRY_MS = 2000


@bp.get("/events")
def stream() -> Response:
    view = request.args.get("view", "live")
    if view not in VIEWS:
        abort(400, gettext("Unknown view %(view)s (live, diagnostics or none).", view=view[:40]))
    renderer = VIEWS[view]
    web = web_state()
    if web.hub.stopping:
        abort(503, gettext("The server is shutting down."))
    slot = web.hub.admit(
        auth.client_id(),
        per_device=web.settings.streams_per_device,
        total=web.settings.max_streams,
    )
    if slot is None:
        response = Response(
            gettext("Too many live pages are open; retrying shortly."),
            status=503,
            mimetype="text/plain",
        )
        response.headers["Retry-After"] = "5"
        return response
    web.hub.start()
    language = str(get_locale() or "en")
    heartbeat = web.settings.heartbeat
    # Unlocked or not is read once (the session is this request's); an unlocked stream
    # sees the invitation code only until the session's time runs out.
    until = auth.unlocked_until()

    def message(snapshot: Snapshot) -> bytes:
        unlocked = until is not None and time.time() < until

        def build() -> bytes:
            snap = for_viewer(snapshot, unlocked)
            html = renderer(snap) if renderer is not None else {}
            text = {"note": render.say(snap.note), "prompt": render.say(snap.prompt)}
            body = {"version": snap.version, "snapshot": snap.to_json(), "text": text,
                    "html": html}  # fmt: skip
            return sse_message(body, event="snapshot", event_id=str(snap.version))

        return web.hub.payload(snapshot.version, (view, language, unlocked), build)

    def events() -> Iterator[bytes]:
        try:
            yield f"retry: {RETRY_MS}\n\n".encode()
            with web.hub.follow() as published:
                while True:
                    # The current snapshot first, then each newer one (latest wins).
                    snapshot = published.get(timeout=heartbeat)
                    if snapshot is not None:
                        yield message(snapshot)
                    elif published.closed:
                        # The hub stopped (the server is shutting down) or the Table did
                        # (it closes its subscriptions): the page serves no more streams.
                        web.hub.stop()
                        return
                    else:
                        yield sse_comment("keep-alive")
        except Stopped:
            return
        finally:
            slot.release()

    response = Response(stream_with_context(events()), mimetype="text/event-stream")
    response.call_on_close(slot.release)  # also when the stream never started
    response.headers["Cache-Control"] = "no-cache, no-transform"
    response.headers["X-Accel-Buffering"] = "no"  # should a proxy ever sit in front
    return response

"""Serving the app with waitress, and stopping cleanly.

Every open live page holds one waitress thread for as long as it is open (an SSE stream
is a long response), so the server gets ``max_streams + spare_threads`` threads and the
events view refuses streams beyond ``max_streams``: pages and the API always find a free
thread. On the way out the live hub is stopped first, which ends every stream at once,
so waitress' worker threads finish and the process can exit without waiting for them.

Typical use (``pyramid run`` does this)::

    ready = threading.Event()
    serve(app, "0.0.0.0", 8080, ready=ready)     # blocks until stop(app) or Ctrl-C

and from another thread or a signal handler: ``stop(app)``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import Any

from flask import Flask
from waitress import wasyncore
from waitress.adjustments import Adjustments

from web_ui.app import close_app
from web_ui.connections import GuardedServer
from web_ui.state import WebState

log = logging.getLogger("web_ui")

LOOP_TIMEOUT = 0.5
"""How often the serving loop looks at the stop flag (seconds) when nothing happens."""


def _state(app: Flask) -> WebState:
    state: WebState = app.extensions["pyramid"]
    return state


def serve(app: Flask, host: str, port: int, ready: threading.Event | None = None) -> None:
    """Serve ``app`` on ``host``:``port`` until :func:`stop` or KeyboardInterrupt.

    ``port`` 0 picks a free port; ``app.config["SERVER_PORT"]`` then tells which (it is
    set before ``ready`` is). Raises OSError when the address cannot be used.
    """
    web = _state(app)
    settings = web.settings
    socket_map: dict[int, Any] = {}
    adjustments = Adjustments(
        host=host,
        port=port,
        threads=settings.threads,
        ident="pyramid-board",
        channel_timeout=max(30, int(settings.heartbeat * 4)),
        connection_limit=settings.threads * 2 + 32,
        cleanup_interval=1,  # the request deadline is looked at every second
        clear_untrusted_proxy_headers=True,
        asyncore_use_poll=True,
    )
    if len(adjustments.listen) != 1:  # a name with several addresses (localhost: 2)
        raise RuntimeError("serve one address at a time")
    server = GuardedServer(
        app,
        map=socket_map,
        adj=adjustments,
        per_device=settings.connections_per_device,
        request_deadline=settings.request_deadline,
    )
    web.server = server
    bound = int(getattr(server, "effective_port", port))
    app.config["SERVER_PORT"] = bound
    every = host in ("0.0.0.0", "::", "")
    shown = f"[{host}]" if ":" in host else host or "0.0.0.0"
    log.info(
        "web page on http://%s:%d/%s",
        shown,
        bound,
        " (every address of this machine; --host 127.0.0.1 keeps it to this one)" if every else "",
    )
    if ready is not None:
        ready.set()
    try:
        # waitress' own run() loops until every socket is gone and, on Ctrl-C, waits for
        # the worker threads before the streams could be told to end. This loop checks a
        # stop flag instead, so the streams end first and shutdown takes no time.
        while not web.stop_serving.is_set():
            wasyncore.loop(timeout=LOOP_TIMEOUT, map=socket_map, use_poll=True, count=1)
    except KeyboardInterrupt:
        log.info("web page: interrupted")
    finally:
        close_app(app)
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)
        wasyncore.close_all(socket_map)
        web.server = None


def stop(app: Flask) -> None:
    """Make :func:`serve` return, now or as soon as it starts (any thread, signal handlers).

    An app serves once: its live hub is stopped on the way out.
    """
    web = _state(app)
    web.stop_serving.set()
    server = web.server
    if server is not None:
        with contextlib.suppress(AttributeError, OSError):
            server.pull_trigger()  # wake the loop now rather than at its timeout

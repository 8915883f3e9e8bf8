"""The web page of pyramid-board: a Flask app served by waitress::

    from web_ui import create_app, serve, stop
    app = create_app(table=table, config=config)    # a started controller.table.Table
    serve(app, "0.0.0.0", 8080)   # blocks until stop(app) (or Ctrl-C)

Nothing happens at import time: importing this package loads no Flask code until one of
the three functions is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import threading

    from flask import Flask

    from controller.config import Config
    from web_ui.state import TablePort, WebSettings

__all__ = ["create_app", "serve", "stop"]


def create_app(
    *,
    table: TablePort,
    config: Config | None = None,
    testing: bool = False,
    web: WebSettings | None = None,
) -> Flask:
    """See :func:`web_ui.app.create_app`."""
    from web_ui.app import create_app as build

    return build(table=table, config=config, testing=testing, web=web)


def serve(app: Flask, host: str, port: int, ready: threading.Event | None = None) -> None:
    """See :func:`web_ui.server.serve`."""
    from web_ui.server import serve as run

    run(app, host, port, ready)


def stop(app: Flask) -> None:
    """See :func:`web_ui.server.stop`."""
    from web_ui.server import stop as end

    end(app)

"""The composition root of the web page: :func:`create_app` wires one Flask app to one
Table, the page's only way into the program (:class:`web_ui.state.TablePort`: commands,
snapshots, the history, the household's settings, and touch on the simulated board).

Nothing happens at import time and nothing is global: every app keeps what it needs in
``app.extensions["pyramid"]`` (a :class:`WebState`), so tests build as many apps as they
like::

    app = create_app(table=table, config=config, views=VIEWS)  # a started Table, the views
    serve(app, "0.0.0.0", 8080)                                # web_ui.server, blocking
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from babel.dates import format_datetime
from flask import Flask, Response, g, request, url_for
from flask_babel import Babel, get_locale
from flask_wtf.csrf import CSRFProtect, generate_csrf
from jinja2 import ChoiceLoader, FileSystemLoader

from web_ui import (
    api,
    errors,
    hosts,
    i18n,
    pages,
    remote_pages,
    render,
    reviews,
    security,
    stream,
)
from web_ui.auth import is_admin
from web_ui.games.view import GameView, plain_view
from web_ui.live import LiveHub
from web_ui.reviews import Reviewer
from web_ui.state import KEY, TablePort, WebSettings, WebState, state_of, web_state

if TYPE_CHECKING:
    from controller.config_schema import Config

__all__ = ["WebSettings", "WebState", "close_app", "create_app", "web_state"]

log = logging.getLogger("web_ui")

HERE = Path(__file__).resolve().parent


def _static_versions() -> dict[str, str]:
    """A short content hash per static file, appended to its URL so browsers may cache it."""
    versions = {}
    static = HERE / "static"
    for path in static.rglob("*"):
        if path.is_file():
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:10]
            versions[path.relative_to(static).as_posix()] = digest
    return versions


def create_app(
    *,
    table: TablePort,
    config: Config | None = None,
    testing: bool = False,
    web: WebSettings | None = None,
    views: Mapping[str, GameView],
) -> Flask:
    """Build the web app for ``table`` (a started :class:`controller.table.Table`).

    The Table's household settings keep the admin PIN's hash, the session secret and the
    default language; a board that takes touches (the simulated one) makes the page a
    virtual board; ``config`` is the :class:`controller.config.Config` (or None); ``web``
    tunes the page; ``views`` are how the page shows each game, picked by the composition
    root (:mod:`web_ui.games.registry`; a game of the Table's without one is shown by
    :func:`~web_ui.games.view.plain_view`). On first start a
    6-digit admin PIN is made and logged once (``pyramid run`` makes it first and prints
    it in its box).
    """
    settings = web or WebSettings()
    app = Flask(__name__, static_folder="static", template_folder="templates")
    shown = {name: views.get(name) or plain_view(kind) for name, kind in table.games.items()}
    folders = [str(v.folder) for v in shown.values() if v.folder is not None]
    # The page's own templates first, then each game's folder (each game's file names
    # are its own: _game_perlen.html, _svg_perlen.html …).
    app.jinja_loader = ChoiceLoader(
        [FileSystemLoader(str(HERE / "templates")), FileSystemLoader(folders)]
    )
    secret = table.household.session_secret()
    pin = table.household.ensure_pin()
    if pin is not None:
        log.warning(
            "Admin PIN for the web page: %s (shown once; change it in Settings or with "
            "`pyramid pin`)",
            pin,
        )
    wrong = table.household.wrong_pins()
    if wrong >= settings.pin_lockout:  # said at every start until `pyramid pin`
        security.say_locked(wrong)
    app.config.update(
        SECRET_KEY=secret,
        TESTING=testing,
        DEBUG=False,
        PROPAGATE_EXCEPTIONS=False,
        MAX_CONTENT_LENGTH=64 * 1024,
        MAX_FORM_MEMORY_SIZE=64 * 1024,
        MAX_FORM_PARTS=200,
        SESSION_COOKIE_NAME="pyramid_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=int(settings.session_hours * 3600),
        WTF_CSRF_TIME_LIMIT=None,  # valid as long as the session: pages stay open for hours
        WTF_CSRF_HEADERS=["X-CSRFToken"],
        WTF_CSRF_SSL_STRICT=False,  # plain http on the home network
        SEND_FILE_MAX_AGE_DEFAULT=7 * 24 * 3600,  # static URLs carry a content hash
        BABEL_TRANSLATION_DIRECTORIES=str(HERE / "translations"),
        BABEL_DEFAULT_LOCALE=i18n.DEFAULT_LANGUAGE,
        JSON_SORT_KEYS=False,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    reviewer = Reviewer(settings.review_budget)
    state = WebState(
        table=table,
        config=config,
        settings=settings,
        hub=LiveHub(
            table,
            listener=functools.partial(reviews.on_game_over, reviewer, table.history, shown),
        ),
        pins=security.PinGuard(settings.pin_limits),
        secret=secret,
        reviewer=reviewer,
        static_versions=_static_versions(),
        views=shown,
        host_names=hosts.own_names(
            config.web.names if config is not None else (),
            config.web.host if config is not None else None,
        ),
    )
    app.extensions[KEY] = state
    app.before_request(hosts.check_host)  # first: a foreign Host gets nothing else

    Babel(app, locale_selector=_select_language)
    CSRFProtect(app)

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(stream.bp)
    app.register_blueprint(remote_pages.bp)
    errors.register(app)
    render.register(app, shown)

    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
    app.jinja_env.globals.update(
        static_url=_static_url,
        languages=i18n.LANGUAGES,
        csrf_token=generate_csrf,
    )
    app.jinja_env.filters["when"] = _format_time
    app.context_processor(_template_context)
    app.after_request(_security_headers)
    return app


def close_app(app: Flask) -> None:
    """End every live stream and the reviews' watch (the server calls this on the way out)."""
    web = state_of(app)
    web.hub.stop()
    web.reviewer.stop()


def _select_language() -> str:
    if "language" not in g:
        web = web_state()
        g.language = i18n.choose_language(
            cookie=request.cookies.get(i18n.LANGUAGE_COOKIE),
            accept=[tag for tag, _quality in request.accept_languages],
            default=web.household.language,
        )
    language: str = g.language
    return language


def _static_url(filename: str) -> str:
    version = web_state().static_versions.get(filename, "0")
    return url_for("static", filename=filename, v=version)


def _format_time(value: object, form: str = "medium") -> str:
    """A store time (Unix seconds, or ISO 8601 text) in the server's local time zone."""
    moment: datetime | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            moment = datetime.fromtimestamp(value).astimezone()
        except (OverflowError, OSError, ValueError):
            moment = None
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            moment = None
        if moment is not None and moment.tzinfo is not None:
            moment = moment.astimezone()
    if moment is None:
        return "" if value is None else str(value)
    return format_datetime(moment, format=form, locale=str(get_locale() or "en"))


def _template_context() -> dict[str, Any]:

    web = web_state()
    return {
        "lang": str(get_locale() or i18n.DEFAULT_LANGUAGE),
        "virtual": web.virtual,
        "admin": is_admin(),
    }


def _security_headers(response: Response) -> Response:
    # No inline script or style anywhere, so the policy can forbid them: an injected
    # <script> in a player's name could not run even if escaping ever failed.
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'",
    )
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
    if response.mimetype == "text/html" or response.mimetype == "application/json":
        response.headers.setdefault("Cache-Control", "no-store")
    return response

"""The web tests' fixtures: a rig (:mod:`rigs.web`) per test, its clients, and one
headless Chromium per test process."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import pytest
from flask.testing import FlaskClient

from rigs.web import Rig, build_rig, close_rig, unlocked

if TYPE_CHECKING:  # only the types: the chromium fixture imports Playwright, or skips without it
    from playwright.sync_api import Browser


CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    built = build_rig(tmp_path)
    yield built
    close_rig(built)


@pytest.fixture
def client(rig: Rig) -> FlaskClient:
    return rig.app.test_client()


@pytest.fixture
def admin(rig: Rig) -> tuple[FlaskClient, dict[str, str]]:
    """An unlocked client and the headers its JSON writes need."""
    c = rig.app.test_client()
    token = unlocked(c)
    return c, {"X-CSRFToken": token}


# -- headless Chromium --------------------------------------------------------------------------


def _unavailable(reason: str) -> NoReturn:
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests need Chromium under CI: {reason}")
    pytest.skip(reason)


def launched(extra: tuple[str, ...] = ()) -> Iterator[Browser]:
    """Debian's Chromium, headless, with ``extra`` switches (a fixture's body)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - the test extra installs it
        _unavailable(f"playwright is not installed ({exc})")
    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        _unavailable("Debian's chromium is not installed (apt install chromium)")
    executable = str(CHROMIUM) if CHROMIUM.exists() else shutil.which("chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=[*ARGS, *extra])
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    """One Chromium per test process (each pytest-xdist worker has its own), for every
    browser test it runs: a launch costs about a second of CPU."""
    yield from launched()


@pytest.fixture
def browser(chromium: Browser) -> Iterator[Browser]:
    """The process's Chromium; every context a test opened is closed after it, so that no
    page it left keeps running (a live page reconnecting to a stopped server, blinking
    LEDs drawn) while the next tests run."""
    yield chromium
    for context in chromium.contexts:
        context.close()

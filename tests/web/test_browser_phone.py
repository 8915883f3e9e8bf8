"""The family at the table on a 390 px touch screen (issue 32): every piece the sensors
report is drawn where it is, the turn bar stays small, History and the winner line fit.

Real headless Chromium on the virtual board, as tests/web/test_browser.py; screenshots of
the phone go to docs/screenshots/ (``phone_shot``), where the user guide and the issue's
closing note show them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.web.conftest import PIN, WAIT_MS, Rig, build_rig
from tests.web.test_browser import PHONE, Served, serving, tap

if TYPE_CHECKING:  # only the types: the browser fixture imports Playwright, or skips without it
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

DOCS_SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
TARGETS = ("t1", "t2", "t3", "t4", "top")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Rig, Served]]:
    yield from serving(build_rig(tmp_path))


def phone(browser: Browser, lang: str = "en") -> Page:
    """A phone: 390 × 844, a touch screen, the page in ``lang``."""
    context = browser.new_context(
        viewport=PHONE,
        has_touch=True,
        is_mobile=True,
        device_scale_factor=2,
        locale="de-DE" if lang == "de" else "en-GB",
    )
    return context.new_page()


def unlock(page: Page, url: str) -> None:
    """Enter the admin PIN as a person does, on the Unlock page."""
    page.goto(f"{url}/unlock")
    page.fill("#pin", PIN)
    page.click("main form.narrow button[type=submit]")
    page.wait_for_url(f"{url}/", timeout=WAIT_MS)


def phone_shot(page: Page, name: str) -> None:
    """The whole page, from the top, into docs/screenshots/."""
    DOCS_SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_function("() => !document.querySelector('#live-bar:not([hidden])')")
    page.screenshot(path=str(DOCS_SHOTS / f"{name}.png"), full_page=True)


def marked(page: Page, target: str) -> bool:
    """Whether the drawing shows a ball on ``target`` that the game does not have: the
    ball drawn, a red cross on it, and the words for a screen reader."""
    found = page.locator(f"#target-{target}.extra")
    if found.count() != 1:
        return False
    label = found.get_attribute("aria-label") or ""
    return (
        found.locator("circle.stray").count() == 1
        and found.locator("path.cross").count() == 1
        and "the game does not have" in label
    )


def test_pyramidos_play_again_draws_every_ball_left_on_the_targets(
    browser: Browser, served: tuple[Rig, Served]
) -> None:
    """After “Play again, same players” the balls of the last game are still on all five
    targets: each is drawn where it lies and marked, and goes when it is lifted; a ball
    on the closed top is drawn and marked too."""
    rig, server = served
    page = phone(browser)
    unlock(page, server.url)
    rig.new_pyramidos(("Ida", "Jonas"))
    page.wait_for_selector("#target-t1", timeout=WAIT_MS)
    for n, target in enumerate(TARGETS, start=1):
        tap(page, f"#target-{target}")

        def landed(s: dict[str, Any], n: int = n) -> bool:
            return bool(s["moves"] == n)

        rig.wait(landed)
    over = rig.wait(lambda s: s["status"] == "over")
    page.wait_for_selector("#live-status .winner", timeout=WAIT_MS)
    for target in TARGETS:  # the game's own balls: drawn in their owners' colours
        assert page.locator(f"#target-{target} circle.pearl").count() == 1
        assert not marked(page, target)

    page.locator('[data-command="play_again"] button').tap()
    rig.wait(lambda s: s["game_id"] == over["game_id"] + 1 and s["status"] == "mismatch")
    page.wait_for_selector("#live-status >> text=Take all 5 balls off the board.", timeout=WAIT_MS)
    page.wait_for_function(
        "() => document.querySelectorAll('svg.targets .target.extra').length === 5",
        timeout=WAIT_MS,
    )
    for target in TARGETS:
        assert marked(page, target), target
        assert page.locator(f"#target-{target} circle.pearl").count() == 0  # nobody's ball
    phone_shot(page, "pyramidos-leftovers-en-phone")

    # Lifting one takes it off the drawing; the others stay marked.
    tap(page, "#target-t2")
    rig.wait(lambda s: "t2" not in s["sensors"])
    page.wait_for_function("() => !document.querySelector('#target-t2.extra')", timeout=WAIT_MS)
    assert page.locator("#target-t2 circle.stray").count() == 0
    assert all(marked(page, t) for t in ("t1", "t3", "t4", "top"))
    tap(page, 'button[data-virtual="board"]')  # the rest in one tap
    rig.wait(lambda s: s["status"] == "playing" and not s["sensors"])
    page.wait_for_function(
        "() => !document.querySelector('svg.targets .target.extra')", timeout=WAIT_MS
    )

    # A ball on the closed top: drawn, marked, and said.
    tap(page, "#target-top")
    rig.wait(lambda s: s["status"] == "mismatch")
    page.wait_for_selector("#live-status >> text=Take the ball off the top.", timeout=WAIT_MS)
    page.wait_for_selector("#target-top.extra", timeout=WAIT_MS)
    assert marked(page, "top")

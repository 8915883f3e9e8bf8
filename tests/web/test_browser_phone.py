"""The family at the table on a 390 px touch screen (issue 32): every piece the sensors
report is drawn where it is, the turn bar stays small, History and the winner line fit.

Real headless Chromium on the virtual board, as tests/web/test_browser.py. Screenshots of
the phone go to test-artifacts/screenshots/; with ``PYRAMID_DOCS_SHOTS=1`` to
docs/screenshots/, where the user guide shows them (``phone_shot``):

    PYRAMID_DOCS_SHOTS=1 .venv/bin/pytest -n 0 tests/web/test_browser_phone.py
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from controller.games.perlen.commands import ConfirmBonus
from controller.games.perlen.events import BasePearl
from controller.games.pyramidos.events import Landed
from controller.referee.events import Aborted, Result
from controller.referee.snapshot import Status
from controller.store import PlayerRecord
from rigs.referee import Play
from rigs.web import PIN, WAIT_MS, Rig, build_rig
from tests.web.test_browser import PHONE, Served, boxes, serving, tap, with_bar, without_bar
from web_ui.render import live_fragments

if TYPE_CHECKING:  # only the types: the browser fixture imports Playwright, or skips without it
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
DOCS_SHOTS = ROOT / (
    "docs/screenshots"
    if os.environ.get("PYRAMID_DOCS_SHOTS") == "1"
    else "test-artifacts/screenshots"
)
"""Where the phone's screenshots go: the guide's pictures only when asked for."""
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
    """The whole page, from the top, into :data:`DOCS_SHOTS`."""
    DOCS_SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => window.scrollTo(0, 0)")
    without_bar(page)
    page.screenshot(path=str(DOCS_SHOTS / f"{name}.png"), full_page=True)
    with_bar(page)


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
    said = "#live-status >> text=Take off the ball with the red ✕ (the top)."
    page.wait_for_selector(said, timeout=WAIT_MS)
    page.wait_for_selector("#target-top.extra", timeout=WAIT_MS)
    assert marked(page, "top")


CASCADE = ("c3", "d4", "d3", "c4", "b4", "d2", "c2", "b2", "b3")
"""The ninth pearl (Lena's b3) owes three bonus pearls at once: 2:b2, 2:b3 and 3:b2."""
FAMILY = ("Oma", "Papa", "Lena")
SAID: dict[str, dict[str, str]] = {
    "en": {"to move": "to move", "bonus": "3 bonus pearls, first ", "won": "wins!"},
    "de": {"to move": "ist am Zug", "bonus": "3 Bonusperlen, zuerst ", "won": "gewinnt!"},
}


def confirmed(rig: Rig) -> None:
    """The bonus pearls owed are placed (as a family confirms them)."""
    if rig.snapshot()["pending"]:
        assert rig.table.submit(ConfirmBonus()).ok
        rig.wait(lambda s: not s["pending"])


def play(rig: Rig, cells: tuple[str, ...]) -> None:
    for cell in cells:
        confirmed(rig)
        moves = rig.snapshot()["moves"]
        rig.place(cell)

        def moved(s: dict[str, Any], m: int = moves) -> bool:
            return bool(s["moves"] > m)

        rig.wait(moved)


def lines(page: Page, selector: str) -> float:
    """How many lines of text the element takes (its height over its line height)."""
    return float(
        page.evaluate(
            """(selector) => {
                const el = document.querySelector(selector);
                const style = getComputedStyle(el);
                const inner = el.clientHeight - parseFloat(style.paddingTop)
                    - parseFloat(style.paddingBottom);
                return inner / parseFloat(style.lineHeight);
            }""",
            selector,
        )
    )


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_turn_bar_says_it_whole_with_three_bonus_pearls_owed(
    browser: Browser, served: tuple[Rig, Served], lang: str
) -> None:
    """Item 3 (and issue 37, 1 and 7): scrolled down to the board with three bonus pearls
    owed, the bar at the foot of the screen says the turn once and the first bonus pearl,
    each word of it whole, and covers no base cell; the status beside the board says it
    all, with the big drawing of the layer."""
    rig, server = served
    words = SAID[lang]
    page = phone(browser, lang)
    unlock(page, server.url)
    rig.new_perlen(FAMILY, colours=("red", "blue", "yellow"))
    play(rig, CASCADE)
    assert [b["pos"] for b in rig.snapshot()["pending"]] == ["2:b2", "2:b3", "3:b2"]
    page.wait_for_selector("#live-status svg.pyramid-focus", timeout=WAIT_MS)
    status = " ".join(page.inner_text("#live-status").split())
    assert status.count(words["to move"]) == 1  # the headline; the message does not repeat it
    # Scrolled so that the base is in the middle of the screen, as a thumb holds it.
    page.locator("#cell-c3").evaluate("(el) => el.scrollIntoView({ block: 'center' })")
    page.wait_for_selector("#live-bar:not([hidden])", timeout=WAIT_MS)
    bar = page.locator("#live-bar")
    said = " ".join(bar.inner_text().split())
    assert said.count(words["to move"]) == 1 and "Oma" in said
    assert words["bonus"] in said and "2:b2" in said and "3:b2" not in said
    assert page.locator("#live-bar p").count() == 2
    for p in ("#live-bar .who", "#live-bar .do"):
        assert whole(page, p), p
    corners = ("a1", "e1", "a5", "e5")
    box, *cell_boxes = boxes(page, "#live-bar", *(f"#cell-{cell}" for cell in corners))
    assert 0 < box["height"] <= 0.15 * PHONE["height"]
    for cell, cell_box in zip(corners, cell_boxes, strict=True):
        assert cell_box["height"] > 0 and cell_box["y"] + cell_box["height"] <= box["y"], cell
    DOCS_SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(DOCS_SHOTS / f"turn-bar-three-bonus-{lang}-phone.png"))


def whole(page: Page, selector: str) -> bool:
    """Whether the element's words are all shown: none cut off with "…" or hidden."""
    return bool(
        page.evaluate(
            """(s) => {
                const e = document.querySelector(s);
                const style = getComputedStyle(e);
                return e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight + 1
                    && style.textOverflow !== 'ellipsis';
            }""",
            selector,
        )
    )


def stored_games(rig: Rig) -> None:
    """Finished games in the store, as History lists them: a computer seat that won, a
    shared win, one aborted, one of Pyramidos with four players of long names."""
    red, blue, yellow, green = (
        ("red", "#d62728"), ("blue", "#1f77b4"), ("yellow", "#f2c500"), ("green", "#2ca02c"),
    )  # fmt: skip

    def seat(n: int, name: str, colour: tuple[str, str], computer: str | None = None) -> Any:
        return PlayerRecord(n, n, name, *colour, computer=computer)

    perlen = [seat(0, "Oma", red), seat(1, "Papa", blue), seat(2, "", yellow, "medium")]
    g = rig.store.create_game("perlen-pyramide", perlen, {}, children_help=False)
    rig.store.append(g, [BasePearl("c3", 0)], result=Result((12, 13, 16), (2,), {}))
    g = rig.store.create_game("perlen-pyramide", perlen, {}, children_help=False)
    rig.store.append(g, [BasePearl("c3", 0)], result=Result((14, 14, 13), (0, 1), {}))
    long = [seat(0, "Annabelle", red), seat(1, "Maximilian", blue),
            seat(2, "Josephine", yellow), seat(3, "Friederike", green)]  # fmt: skip
    g = rig.store.create_game("pyramidos", long, {}, children_help=False)
    rig.store.append(g, [Landed("t1", 0)], result=Result((1, 0, 0, 5), (3,), {}))
    g = rig.store.create_game("pyramidos", long[:2], {}, children_help=False)
    rig.store.append(g, [Landed("t1", 0), Aborted("new game")])


@pytest.mark.parametrize("lang", ["en", "de"])
def test_history_on_a_phone_shows_each_games_result_first(
    browser: Browser, served: tuple[Rig, Served], lang: str
) -> None:
    """Item 6: at 390 px every game is a card with its result on top; nothing is wider
    than the screen, nothing is cut off."""
    rig, server = served
    stored_games(rig)
    page = phone(browser, lang)
    page.goto(f"{server.url}/history")
    rows = page.locator("table.history tbody tr")
    assert rows.count() == 4
    width = PHONE["width"]
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    for i in range(rows.count()):
        row = rows.nth(i)
        card, result = row.bounding_box(), row.locator("td.result").bounding_box()
        players = row.locator("td.players").bounding_box()
        assert card and result and players
        assert card["x"] >= 0 and card["x"] + card["width"] <= width
        assert result["y"] < players["y"]  # the result first
        assert result["x"] + result["width"] <= card["x"] + card["width"]
        for cell in row.locator("td").all():  # no cell cut off or scrolled
            assert cell.evaluate("(e) => e.scrollWidth <= e.clientWidth + 1"), cell.inner_text()
    computer = {"en": "Medium computer", "de": "Mittlerer Computer"}[lang]
    assert computer in rows.nth(3).locator("td.result").inner_text()  # newest last stored
    phone_shot(page, f"history-{lang}-phone")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_end_of_a_game_on_a_phone_and_the_winner_on_one_line(
    browser: Browser, served: tuple[Rig, Served], lang: str
) -> None:
    """Item 10: the winner line stays on one line on a phone, its trophy and robot beside
    the words (a computer seat's win, as the page renders it); the end of a whole game."""
    rig, server = served
    page = phone(browser, lang)
    unlock(page, server.url)
    rig.new_perlen(FAMILY, colours=("red", "blue", "yellow"))
    final = rig.play_perlen_to_end()
    page.wait_for_selector("#live-status .headline.winner", timeout=WAIT_MS)
    assert SAID[lang]["won"] in page.inner_text("#live-status .headline.winner") or (
        len(final["winners"]) > 1
    )
    assert lines(page, "#live-status .headline.winner") < 1.5
    phone_shot(page, f"game-over-{lang}-phone")

    # A computer seat's win, rendered as the page renders it, in the page's own layout.
    p = Play().new(players=("Oma", "Papa", ""), computer={"2": "medium"})
    won = dataclasses.replace(p.snap, over=True, status=Status.OVER, winners=(2,))
    with rig.app.test_request_context("/", headers={"Accept-Language": lang}):
        status = live_fragments(won)["live-status"]
    page.evaluate("(html) => { document.querySelector('#live-status').innerHTML = html; }", status)
    line = page.locator("#live-status .headline.winner")
    name = {"en": "Medium computer wins!", "de": "Mittlerer Computer gewinnt!"}[lang]
    assert name in line.inner_text() and line.locator("svg.icon").count() == 2
    assert line.locator("svg.chip").count() == 1  # the winner's pearl, not words in brackets
    assert lines(page, "#live-status .headline.winner") < 1.5
    icons = [b for b in (i.bounding_box() for i in line.locator("svg.icon").all()) if b]
    text_box = line.bounding_box()
    assert len(icons) == 2 and text_box
    for icon in icons:  # both icons on the one line, within the screen
        assert abs(icon["y"] - icons[0]["y"]) < 2 and icon["x"] + icon["width"] <= PHONE["width"]


def test_a_ball_left_on_a_target_is_seen_in_a_game_of_pearls_and_marked_in_the_next_pyramidos(
    browser: Browser, served: tuple[Rig, Served]
) -> None:
    """Item 1, across games: a game of pearls draws no targets, so a ball on one is listed
    beside the drawing, marked, and a tap lifts it; balls still there when Pyramidos
    follows are drawn on their targets and marked."""
    rig, server = served
    page = phone(browser)
    unlock(page, server.url)
    rig.new_perlen(FAMILY)
    rig.place("t1")
    rig.place("top")
    page.wait_for_selector("#live-board .elsewhere", timeout=WAIT_MS)
    listed = page.locator('#live-board .elsewhere button[data-virtual="t1"]')
    assert "the game does not have" in (listed.get_attribute("aria-label") or "")
    assert page.locator('#live-board .elsewhere button[data-virtual="top"]').count() == 1
    tap(page, '#live-board .elsewhere button[data-virtual="t1"]')
    rig.wait(lambda s: "t1" not in s["sensors"])
    page.wait_for_selector('#live-board .elsewhere button[data-virtual="t1"]', state="detached")
    assert rig.snapshot()["status"] == "playing"  # a ball is no pearl: play goes on

    rig.place("t3")
    rig.new_pyramidos(("Ida", "Jonas"))
    rig.wait(lambda s: s["game"] == "pyramidos" and s["status"] == "mismatch")
    page.wait_for_function(
        "() => document.querySelectorAll('svg.targets .target.extra').length === 2",
        timeout=WAIT_MS,
    )
    assert marked(page, "t3") and marked(page, "top") and not marked(page, "t1")
    assert page.locator("#live-board .elsewhere").count() == 0

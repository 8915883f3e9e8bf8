"""Every page on a phone, in real headless Chromium (issue 24, "on the phone").

Each page of the product is opened 360 and 390 px wide, in English and in German (whose
words are longer), with a game in progress (a bonus pearl owed) and a finished game in
the history: no page may be wider than the screen, no tap target smaller than 44 × 44 px
(WCAG 2.5.5), no drawing may reach past its SVG's edge, the rings that mark a cell are
drawn over every cell, and no heading skips a level (axe-core's heading-order; on the
laptop too). Then, on a phone: the turn and what to do stay in sight while
the board is tapped; unlocking in the PIN dialog shows at once; the computer's review of
a finished game appears by itself; the first hint says why; the page says that sounds
need a first tap (the browsers' autoplay rule, which headless Chromium leaves out, is
modelled in the page: AUTOPLAY_RULE).

One Chromium serves the test process (tests/web/conftest.py); each test opens several
pages in it, closed after it.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from controller.games.perlen.commands import ConfirmBonus
from controller.hardware.channels import CELLS
from rigs.web import PIN, WAIT_MS, Rig, build_rig, close_rig
from tests.web.test_browser import Served, boxes
from web_ui.games.perlen.view import PERLEN_VIEW
from web_ui.games.registry import VIEWS

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, ViewportSize

pytestmark = pytest.mark.browser

PAGES = ("/", "/setup", "/history", "/history/1", "/history/1?step=3", "/leaderboard",
         "/rules", "/settings", "/unlock", "/diagnostics")  # fmt: skip
LANGUAGES = ("en-GB", "de-DE")
WIDTHS = (360, 390)
FINGER = 44
PHONE: ViewportSize = {"width": 390, "height": 844}
LAPTOP: ViewportSize = {"width": 1280, "height": 900}

PROBLEMS = """() => {
  const problems = [];
  const html = document.documentElement;
  if (html.scrollWidth > html.clientWidth) {
    const wide = Array.from(document.querySelectorAll("main *, header *"))
      .filter((el) => el.getBoundingClientRect().right > html.clientWidth + 1)
      .slice(0, 3).map((el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : ""));
    problems.push(`the page is ${html.scrollWidth} px wide (${wide.join(", ")})`);
  }
  const shown = (el) => {
    const style = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.right > 0 && style.visibility !== "hidden";
  };
  const name = (el) => (el.getAttribute("aria-label") || el.textContent || el.id || el.name
    || el.tagName).trim().replace(/\\s+/g, " ").slice(0, 30);
  const targets = new Set();
  document.querySelectorAll("a[href], button, select, textarea, summary, [role=button], input")
    .forEach((el) => {
      if (el.type === "hidden") return;
      // A checkbox or radio button is tapped through its label.
      targets.add((el.type === "checkbox" || el.type === "radio") && el.closest("label")
        ? el.closest("label") : el);
    });
  targets.forEach((el) => {
    if (!shown(el)) return;
    const r = el.getBoundingClientRect();
    if (r.width < %(finger)d - 0.5 || r.height < %(finger)d - 0.5) {
      const size = `${Math.round(r.width)} × ${Math.round(r.height)} px`;
      problems.push(`tap target "${name(el)}" is ${size}`);
    }
  });
  document.querySelectorAll("main svg[viewBox]").forEach((svg) => {
    const box = svg.viewBox.baseVal;
    const what = svg.getAttribute("class") || "svg";
    svg.querySelectorAll("circle, rect, text, path").forEach((el) => {
      if (el.closest("pattern, defs") || !el.getBBox) return;
      const b = el.getBBox();
      if (!b.width && !b.height) return;
      const style = getComputedStyle(el);
      const half = style.stroke === "none" ? 0 : (parseFloat(style.strokeWidth) || 0) / 2;
      if (b.x - half < box.x - 0.5 || b.y - half < box.y - 0.5
          || b.x + b.width + half > box.x + box.width + 0.5
          || b.y + b.height + half > box.y + box.height + 0.5) {
        problems.push(`${what}: ${el.tagName} "${name(el)}" reaches past the drawing's edge`);
      }
    });
    // A ring reaches past its cell: no cell drawn after it may cover any of it.
    const cells = Array.from(svg.querySelectorAll(".cell"));
    svg.querySelectorAll(".last, .hint, .computer").forEach((ring) => {
      const r = ring.getBBox();
      const over = cells.filter((cell) => {
        if (!(ring.compareDocumentPosition(cell) & Node.DOCUMENT_POSITION_FOLLOWING)) return false;
        const c = cell.getBBox();
        return c.x < r.x + r.width && r.x < c.x + c.width
          && c.y < r.y + r.height && r.y < c.y + c.height;
      });
      if (over.length) problems.push(`${what}: ${over.length} cells are drawn over a ring`);
    });
  });
  return problems;
}""".replace("%(finger)d", str(FINGER))


# axe-core's rule heading-order (lib/checks/navigation/heading-order-evaluate.js and
# -after.js), written out: the headings a screen reader lists (h1–h6 and role=heading,
# aria-level first; display:none, visibility:hidden and aria-hidden ones left out), in
# document order; after the first, none may be more than one level below the one before.
HEADING_ORDER = r"""() => {
  const level = (el) => {
    const aria = parseInt(el.getAttribute("aria-level"), 10);
    if (el.hasAttribute("aria-level")) return aria >= 1 && aria <= 6 ? aria : 2;
    const tag = /^H([1-6])$/.exec(el.tagName);
    return tag ? parseInt(tag[1], 10) : 2;
  };
  const heard = (el) => el.checkVisibility({ visibilityProperty: true })
    && !el.closest("[aria-hidden=true]");
  const headings = Array.from(document.querySelectorAll("h1, h2, h3, h4, h5, h6, [role=heading]"))
    .filter(heard);
  const problems = [];
  headings.forEach((el, i) => {
    if (i > 0 && level(el) - level(headings[i - 1]) > 1) {
      const text = el.textContent.trim().replace(/\s+/g, " ").slice(0, 30);
      problems.push(`heading-order: h${level(el)} "${text}" follows h${level(headings[i - 1])}`);
    }
  });
  return problems;
}"""


AUTOPLAY_RULE = """(() => {
  // Browsers' autoplay rule, which headless Chromium does not apply to Web Audio: a page's
  // AudioContext made before anyone tapped the page is suspended, and resume() does
  // nothing until someone has (navigator.userActivation, set by Playwright's real clicks).
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    constructor(...args) {
      super(...args);
      if (!navigator.userActivation.hasBeenActive) this.suspend();
    }
    resume() {
      return navigator.userActivation.hasBeenActive ? super.resume() : Promise.resolve();
    }
  };
})();"""


def clear_board(rig: Rig) -> None:
    for cell in CELLS:
        rig.place(cell, False)
    rig.wait(lambda s: not s["sensors"])


def place(rig: Rig, *cells: str) -> None:
    for cell in cells:
        moves = rig.snapshot()["moves"]
        rig.place(cell)

        def moved(s: dict[str, Any], m: int = moves) -> bool:
            return bool(s["moves"] > m)

        rig.wait(moved)


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Rig, Served]]:
    """A finished game in the history, and a game in progress with a bonus pearl owed."""
    rig = build_rig(tmp_path_factory.mktemp("evening"))
    server = Served(rig)
    try:
        rig.new_perlen(("Anna", "Ben", "Cleo"))
        rig.play_perlen_to_end()
        assert rig.table.submit(ConfirmBonus()).ok
        clear_board(rig)
        rig.new_perlen(("Annabelle", "Benedikt", "Cleopatra"), colours=("yellow", "green", "pink"))
        place(rig, "c3", "d4", "d3", "e4", "c4")  # 2:c3 owed; e4 is on the e file
        assert rig.snapshot()["pending"]
        yield rig, server
    finally:
        server.stop()
        close_rig(rig)


def test_every_page_fits_a_phone_with_targets_for_a_finger(
    browser: Browser, evening: tuple[Rig, Served]
) -> None:
    _, server = evening
    problems: list[str] = []
    # Locked in both languages and widths; unlocked (the Lock button, no PIN fields) once.
    for locale, width, unlocked in (
        *((locale, width, False) for locale in LANGUAGES for width in WIDTHS),
        ("de-DE", 360, True),
    ):
        context = browser.new_context(viewport={"width": width, "height": 780}, locale=locale)
        page = context.new_page()
        if unlocked:
            unlock(page, server)
        for path in PAGES:
            page.goto(server.url + path)
            where = f"{locale} {width} px{' unlocked' if unlocked else ''} {path}"
            problems += [f"{where}: {problem}" for problem in page.evaluate(PROBLEMS)]
            problems += [f"{where}: {problem}" for problem in page.evaluate(HEADING_ORDER)]
        context.close()
    assert not problems, "\n".join(problems)


def test_every_page_keeps_its_headings_in_order_on_a_laptop(
    browser: Browser, evening: tuple[Rig, Served]
) -> None:
    """The phone test above checks the heading order too; here the laptop's layout,
    locked and unlocked, the error page, and the PIN dialog open over the live page."""
    _, server = evening
    problems: list[str] = []
    context = browser.new_context(viewport=LAPTOP, locale="en-GB")
    page = context.new_page()
    for unlocked in (False, True):
        if unlocked:
            unlock(page, server)
        for path in (*PAGES, "/history/999"):
            page.goto(server.url + path)
            where = f"laptop{' unlocked' if unlocked else ''} {path}"
            problems += [f"{where}: {problem}" for problem in page.evaluate(HEADING_ORDER)]
    context.close()
    locked = browser.new_context(viewport=LAPTOP, locale="en-GB").new_page()
    locked.goto(f"{server.url}/")
    locked.click("#cell-b2")
    locked.locator("#pin-dialog[open]").wait_for(timeout=WAIT_MS)
    problems += [f"PIN dialog: {problem}" for problem in locked.evaluate(HEADING_ORDER)]
    locked.context.close()
    assert not problems, "\n".join(problems)


def test_the_heading_check_sees_a_skipped_level(
    browser: Browser, evening: tuple[Rig, Served]
) -> None:
    """The check above can fail: an h3 right after the h1 (as /setup's seats once were)
    is reported, a hidden one is not (axe-core's heading-order, moderate)."""
    _, server = evening
    page = browser.new_context(viewport=LAPTOP).new_page()
    page.goto(f"{server.url}/rules")
    page.evaluate(
        """() => {
            const h1 = document.querySelector("main h1");
            h1.insertAdjacentHTML("afterend", "<h4 hidden>Hidden</h4><h3>Seat 1</h3>");
        }"""
    )
    assert page.evaluate(HEADING_ORDER) == ['heading-order: h3 "Seat 1" follows h1']
    page.context.close()


def unlock(page: Page, server: Served) -> None:
    """Unlock this browser with the PIN form, as a person without script would."""
    page.goto(f"{server.url}/unlock")
    page.fill("#pin", PIN)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{server.url}/")
    assert page.evaluate("() => document.body.dataset.admin") == "1"


def marked(page: Page) -> None:
    """Mark the page: the mark is gone if it reloads."""
    page.evaluate("() => { window.notReloaded = true; }")


def not_reloaded(page: Page) -> bool:
    return bool(page.evaluate("() => window.notReloaded === true"))


def test_the_turn_stays_in_sight_and_unlocking_shows_at_once(
    browser: Browser, evening: tuple[Rig, Served]
) -> None:
    """Scrolled down to the base on a phone, the bar says whose turn it is and what to do,
    and covers no cell. A tap asks for the PIN; once entered in the dialog, the page is
    unlocked without a reload (the Lock button, no notes or PIN fields asking for it) and
    the tap is carried out."""
    rig, server = evening
    page = browser.new_context(viewport=PHONE, locale="en-GB").new_page()
    page.goto(f"{server.url}/")
    assert page.is_visible(".note.locked") and page.is_visible("header [data-locked-only]")
    (status,) = boxes(page, "#live-status .headline")  # measured as drawn, not mid-redraw
    assert status["height"] > 0 and status["y"] + status["height"] <= PHONE["height"]  # in sight
    cell = page.locator("#cell-b2")
    # As a thumb scrolls: a few small steps down to b2, each a scroll event of its own (a
    # single programmatic jump right after loading was once missed under load).
    page.wait_for_function(
        """() => {
            const cell = document.querySelector('#cell-b2');
            const box = cell.getBoundingClientRect();
            const off = box.top + box.height / 2 - window.innerHeight / 2;
            const before = window.scrollY;
            const step = Math.sign(off) * Math.min(Math.abs(off), 120);
            if (Math.abs(off) > 4) window.scrollBy(0, step);
            const there = Math.abs(off) <= 4 || window.scrollY === before;
            const bar = document.querySelector('#live-bar');
            return there && bar && !bar.hidden;
        }""",
        timeout=WAIT_MS,
        polling=100,
    )
    status, bar_box, cell_box = boxes(page, "#live-status .headline", "#live-bar", "#cell-b2")
    assert status["height"] > 0 and cell_box["height"] > 0 and bar_box["height"] > 0
    assert bar_box["y"] + bar_box["height"] <= PHONE["height"] + 1
    assert cell_box["y"] + cell_box["height"] <= bar_box["y"]  # the bar covers no part of b2
    said = " ".join(page.inner_text("#live-bar").split())
    # The turn once, then the bonus pearl owed in short (the status says it in full).
    pending = rig.table.snapshot.to_json()["pending"]
    assert len(pending) == 1 and said.count("to move") == 1
    assert "Cleopatra (pink, K) to move" in said and "Bonus pearl: " in said
    # Where it goes as the child sees it, the notation only in brackets after it.
    assert said.endswith(f", on top of the four blinking pearls ({pending[0]['pos']})")
    assert f" on {pending[0]['pos']}" not in said

    marked(page)
    cell.click()
    page.locator("#pin-dialog[open]").wait_for(timeout=WAIT_MS)
    page.fill("#pin-input", PIN)
    page.click("#pin-form button[type=submit]")
    page.locator("header [data-admin-only]").wait_for(state="visible", timeout=WAIT_MS)
    assert page.is_hidden("header [data-locked-only]") and page.is_hidden(".note.locked")
    assert page.evaluate("() => document.body.dataset.admin") == "1" and not_reloaded(page)
    setup = page.context.new_page()
    setup.goto(f"{server.url}/setup")
    assert setup.locator("#form-pin").count() == 0  # the same browser, unlocked
    setup.close()

    # The tap that asked for the PIN acts once it is given (issue 37, 8), and the bar
    # follows the game while the board stays in view.
    rig.wait(lambda s: s["moves"] == 6)
    page.wait_for_function(
        "() => document.querySelector('#live-bar').innerText.includes('Annabelle')",
        timeout=WAIT_MS,
    )
    assert page.is_visible("#live-bar") and not_reloaded(page)


def test_the_review_appears_by_itself_and_the_first_hint_says_why(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer's review is held back until the replay is open (the real review,
    gated), then released: the costs appear on the page without a reload. On the laptop
    with no game, the sound switch sits under the words; the page says sounds need a
    first tap until one came. The first hint of a game gives its reason."""
    gate = threading.Event()
    real = PERLEN_VIEW.review
    assert real is not None

    def held(record: Any, budget_per_move: float, cancel: Any) -> Any:
        assert gate.wait(120), "the test never released the review"
        return real(record, budget_per_move, cancel)

    # The page as it is, but for Perlen-Pyramide's review, which waits for the gate.
    views = {**VIEWS, PERLEN_VIEW.name: dataclasses.replace(PERLEN_VIEW, review=held)}
    rig = build_rig(tmp_path, views=views)
    server = Served(rig)
    try:
        at_laptop = browser.new_context(viewport=LAPTOP, locale="en-GB")
        at_laptop.add_init_script(AUTOPLAY_RULE)
        laptop = at_laptop.new_page()
        laptop.goto(f"{server.url}/")
        laptop.locator("[data-sound-blocked]").wait_for(timeout=WAIT_MS)
        sound, words = boxes(laptop, "p.sound button", "#live-status h1")
        assert sound["height"] > 0 and words["height"] > 0 and sound["x"] < LAPTOP["width"] / 2
        assert abs(sound["x"] - words["x"]) < 20  # under the words, not alone on the right
        laptop.mouse.click(5, 300)  # any tap lets the page play sounds
        laptop.locator("[data-sound-blocked]").wait_for(state="hidden", timeout=WAIT_MS)
        assert laptop.evaluate("() => document.body.dataset.admin") == "0"

        rig.new_perlen(("Anna", "Ben", "Cleo"))
        game_id = rig.play_perlen_to_end()["game_id"]
        assert rig.table.submit(ConfirmBonus()).ok
        page = browser.new_context(viewport=PHONE, locale="en-GB").new_page()
        page.goto(f"{server.url}/history/{game_id}")
        page.locator("text=The computer is reviewing the moves").wait_for(timeout=WAIT_MS)
        assert page.locator("#moves .loss").count() == 0
        marked(page)
        page.click('[data-step-by="first"]')
        page.locator("text=Before the first move").wait_for(timeout=WAIT_MS)
        gate.set()
        page.locator("#moves[data-review=ready]").wait_for(timeout=WAIT_MS)
        assert page.locator("#moves .loss").count() == 25 and not_reloaded(page)
        assert page.is_hidden("text=The computer is reviewing the moves")
        assert page.locator("#moves li[aria-current=step]").count() == 0  # step 0: none
        laptop.goto(f"{server.url}/history/{game_id}")
        columns = laptop.evaluate(
            """() => {
              const by = new Map();
              document.querySelectorAll("ol.moves > li").forEach((li) => {
                const r = li.getBoundingClientRect();
                const left = Math.round(r.left);
                by.set(left, Math.max(by.get(left) || 0, r.right));
              });
              return Array.from(by.entries()).sort((a, b) => a[0] - b[0]);
            }"""
        )
        # One column beside the board, which stays in sight while the list is read
        # (issue 37, 4), and clear of it.
        (stage,) = boxes(laptop, "#replay-stage")  # the replay redraws while the review works
        assert len(columns) == 1 and stage["width"] > 0
        assert columns[0][0] >= stage["x"] + stage["width"] + 28

        clear_board(rig)
        rig.new_perlen(("Anna", "Ben", "Cleo"))
        unlock(page, server)
        page.locator('[data-command="hint"] button').click()
        page.locator("#live-status >> text=It wins no bonus pearl yet").wait_for(timeout=WAIT_MS)
        hinted = rig.snapshot()["hint"]
        assert f"Hint: the cell with the dotted ring ({hinted}). It wins no bonus pearl yet" in (
            " ".join(page.inner_text("#live-status").split())
        )
    finally:
        gate.set()
        server.stop()
        close_rig(rig)

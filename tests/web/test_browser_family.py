"""The family at the table, fourth pass (issue 37): a page that never moves under a finger,
taps as a child makes them, advice where the eyes are, words whole in the bar.

Real headless Chromium on the virtual board, as tests/web/test_browser.py, on a phone
(390 × 844, touch), a phone on its side (844 × 390, touch) and a laptop (1366 × 768), in
English, German and Danish. Screenshots go to test-artifacts/screenshots/; with
``PYRAMID_DOCS_SHOTS=1`` the phone's and the laptop's German ones to docs/screenshots/:

    PYRAMID_DOCS_SHOTS=1 .venv/bin/pytest -n 0 tests/web/test_browser_family.py
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from controller.games.perlen.commands import ConfirmBonus
from controller.settings import Settings
from rigs.web import PIN, WAIT_MS, Rig, build_rig
from tests.web.test_browser import Served, boxes, centre, serving, tap
from tests.web.test_browser_phone import CASCADE, DOCS_SHOTS, FAMILY, play, whole
from tests.web.test_phone_pages import AUTOPLAY_RULE

if TYPE_CHECKING:  # only the types: the browser fixture imports Playwright, or skips without it
    from playwright.sync_api import Browser, FloatRect, Page, ViewportSize

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"

PHONE: ViewportSize = {"width": 390, "height": 844}
LANDSCAPE: ViewportSize = {"width": 844, "height": 390}
LAPTOP: ViewportSize = {"width": 1366, "height": 768}
SIZES: dict[str, ViewportSize] = {"phone": PHONE, "landscape": LANDSCAPE, "laptop": LAPTOP}
LOCALES = {"en": "en-GB", "de": "de-DE", "da": "da-DK"}
CASES = [("phone", "de"), ("phone", "da"), ("landscape", "da"), ("laptop", "en"), ("laptop", "de")]
"""Each screen in two languages at least, each language on two screens."""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Rig, Served]]:
    yield from serving(build_rig(tmp_path))


def opened(browser: Browser, size: str, lang: str, url: str, *, admin: bool = True) -> Page:
    """The live page on ``size`` in ``lang``, unlocked with the PIN when ``admin``."""
    touch = size != "laptop"
    context = browser.new_context(
        viewport=SIZES[size], has_touch=touch, is_mobile=touch, locale=LOCALES[lang]
    )
    context.add_init_script(AUTOPLAY_RULE)
    page = context.new_page()
    if admin:
        page.goto(f"{url}/unlock")
        page.fill("#pin", PIN)
        page.click("main form.narrow button[type=submit]")
        page.wait_for_url(f"{url}/", timeout=WAIT_MS)
    else:
        page.goto(f"{url}/")
    return page


def shown(page: Page, rig: Rig) -> None:
    """Wait until the page shows the game as the Table has it now."""
    now = rig.table.snapshot.version
    page.wait_for_function(
        "(v) => Number(document.querySelector('.live').dataset.version) >= v",
        arg=now,
        timeout=WAIT_MS,
    )
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def box(page: Page, selector: str) -> FloatRect:
    (found,) = boxes(page, selector)
    return found


def same_place(a: FloatRect, b: FloatRect) -> bool:
    return abs(a["x"] - b["x"]) < 1 and abs(a["y"] - b["y"]) < 1


def shot(page: Page, name: str) -> None:
    """What the screen shows now (not the whole page: the family sees one screen); the
    guide's pictures are the German phone's and laptop's."""
    german = name.endswith(("-phone-de", "-laptop-de"))
    folder = DOCS_SHOTS if german else ARTIFACTS
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))


@pytest.mark.parametrize(("size", "lang"), CASES)
def test_the_board_keeps_its_place_when_a_bonus_pearl_is_owed(
    browser: Browser, served: tuple[Rig, Served], size: str, lang: str
) -> None:
    """Issue 37, 1: the base cells stay where they are on the screen while bonus pearls
    come to be owed (three at once) and after they are placed; the first tap, which lets
    the page play sounds and so takes away the note saying so, moves nothing. On a laptop
    the whole base and what to do now are in the first screen; on a phone on its side a
    base cell is still a 44 px target."""
    rig, server = served
    rig.new_perlen(FAMILY, colours=("red", "blue", "yellow"))
    page = opened(browser, size, lang, server.url, admin=False)  # nobody has tapped it yet
    shown(page, rig)
    page.locator("[data-sound-blocked]").wait_for(timeout=WAIT_MS)
    before = box(page, "#cell-a1")
    page.mouse.click(2, SIZES[size]["height"] - 2)  # a first tap anywhere: sounds may play
    page.locator("[data-sound-blocked]").wait_for(state="hidden", timeout=WAIT_MS)
    assert same_place(box(page, "#cell-a1"), before)

    play(rig, CASCADE[:8])
    shown(page, rig)
    assert same_place(box(page, "#cell-a1"), before)
    play(rig, CASCADE[8:])  # three bonus pearls owed at once
    assert len(rig.snapshot()["pending"]) == 3
    shown(page, rig)
    page.locator("#live-status .todo.bonus svg.pyramid-focus").wait_for(timeout=WAIT_MS)
    owed = box(page, "#cell-a1")
    assert same_place(owed, before), (before, owed)
    assert page.locator("#live-board svg.pyramid-focus").count() == 0
    if size == "phone":
        # Upright, what to do now comes straight under the base, the four sides after it.
        base, now = box(page, "#live-board figure.layers-board"), box(page, ".status-now")
        sides = box(page, "#live-board figure.side-board")
        assert base["y"] + base["height"] <= now["y"] + 1, (base, now)
        assert now["y"] + now["height"] <= sides["y"] + 1, (now, sides)
    shot(page, f"issue37-bonus-owed-{size}-{lang}")
    play(rig, ("a1",))  # the bonus pearls placed, the next move made
    shown(page, rig)
    assert not rig.snapshot()["pending"]
    assert same_place(box(page, "#cell-a1"), before)

    cell = box(page, "#cell-e5")
    assert cell["width"] >= 44 and cell["height"] >= 44
    if size == "laptop":
        play(rig, ("a2", "a3"))  # a bonus pearl owed again (a1 a2 b1 b2)
        shown(page, rig)
        bonus = page.locator("#live-status .todo.bonus")
        bonus.wait_for(timeout=WAIT_MS)
        first = box(page, "#live-status .todo.bonus li.next")
        assert first["y"] + first["height"] <= LAPTOP["height"]
        base = box(page, "#cell-a1")
        assert base["y"] + base["height"] <= LAPTOP["height"] and box(page, "#cell-e5")["y"] >= 0
        assert same_place(base, before)


def pressed(page: Page) -> list[str]:
    """The board presses the page sends from now on (each POST to /api/virtual)."""
    sent: list[str] = []
    page.on(
        "request",
        lambda r: (
            sent.append(r.post_data or "")
            if r.url.endswith("/api/virtual") and r.method == "POST"
            else None
        ),
    )
    return sent


def heard(page: Page) -> list[str]:
    """What the page does from now on, for a failure to say: its console, its errors and
    the answers to its requests (a tap that went nowhere is then told from one the
    server refused)."""
    said: list[str] = []
    page.on("console", lambda m: said.append(f"console {m.type}: {m.text}"))
    page.on("pageerror", lambda e: said.append(f"page error: {e}"))
    page.on("response", lambda r: said.append(f"{r.request.method} {r.url} -> {r.status}"))
    return said


def touch(page: Page, selector: str) -> None:
    """A tap with a finger on a touch screen, a click with a mouse on a laptop."""
    target = page.locator(selector)
    if page.viewport_size == LAPTOP:
        target.click()
    else:
        target.tap()


@pytest.mark.parametrize(("size", "lang"), [("phone", "de"), ("landscape", "en"), ("laptop", "da")])
def test_a_tap_that_asked_for_the_pin_acts_and_a_double_tap_is_one(
    browser: Browser, served: tuple[Rig, Served], size: str, lang: str
) -> None:
    """Issue 37, 8: the first tap of a locked page asks for the PIN and, once it is given,
    places the pearl; a double tap (a double click on a laptop) places a pearl and does
    not lift it again."""
    rig, server = served
    rig.new_perlen(FAMILY)
    page = opened(browser, size, lang, server.url, admin=False)
    shown(page, rig)
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    sent = pressed(page)
    said = heard(page)
    centre(page, "#cell-c3")
    touch(page, "#cell-c3")
    try:
        page.locator("#pin-dialog[open]").wait_for(timeout=WAIT_MS)
    except PlaywrightTimeout:
        toast = page.locator("#toast").text_content()
        raise AssertionError(f"no PIN dialog; sent {sent}, toast {toast!r}, then {said}") from None
    page.fill("#pin-input", PIN)
    page.click("#pin-form button[type=submit]")
    rig.wait(lambda s: s["moves"] == 1)  # carried out, with no second tap

    shown(page, rig)
    with page.expect_response(lambda r: r.url.endswith("/api/virtual"), timeout=WAIT_MS):
        # Two clicks, the second with its count at 2, as Chromium makes of a finger's
        # double tap (or a mouse's double click): the count is the double click's own, not
        # the time between two taps, which a loaded machine can stretch into two taps.
        page.locator("#cell-d4").dblclick()
    shown(page, rig)
    with page.expect_response(lambda r: r.url.endswith("/api/virtual"), timeout=WAIT_MS):
        touch(page, "#cell-d3")  # the next player's tap is heard
    snap = rig.wait(lambda s: s["moves"] == 3)
    # c3 twice (refused for want of the PIN, then sent again), d4 once, d3.
    assert [json.loads(body)["name"] for body in sent] == ["c3", "c3", "d4", "d3"]
    assert {"c3", "d4", "d3"} <= set(snap["sensors"])


def in_view(page: Page, selector: str) -> bool:
    """Whether the element is on the screen now, whole (nothing of it scrolled away)."""
    return bool(
        page.locator(selector).evaluate(
            """(el) => {
                const b = el.getBoundingClientRect();
                return b.width > 0 && b.top >= 0 && b.left >= 0
                    && b.bottom <= window.innerHeight && b.right <= window.innerWidth;
            }"""
        )
    )


@pytest.mark.parametrize(
    ("size", "lang"), [("laptop", "de"), ("phone", "de"), ("phone", "da"), ("landscape", "en")]
)
def test_a_review_step_says_its_verdict_beside_the_ringed_better_cell(
    browser: Browser, served: tuple[Rig, Served], size: str, lang: str
) -> None:
    """Issue 37, 4: a move chosen from the reviewed list opens its step without a reload;
    its verdict and the board ringing the better cell are on the screen (on a laptop the
    list stays where it was, beside the board); the last pearl, which had one cell left,
    is not praised as the best move."""
    rig, server = served
    rig.new_perlen(FAMILY)
    game_id = rig.play_perlen_to_end()["game_id"]
    page = opened(browser, size, lang, server.url, admin=False)
    page.goto(f"{server.url}/history/{game_id}")
    page.locator('#moves[data-review="ready"]').wait_for(timeout=WAIT_MS)
    page.evaluate("() => { window.notReloaded = true; }")

    last = page.locator("ol.moves li[data-step]").last
    assert last.locator(".loss.forced").count() == 1 and last.locator(".loss.best").count() == 0
    costly = page.locator("ol.moves li[data-step]:has(.loss:not(.best):not(.forced))").first
    step = int(costly.get_attribute("data-step") or "0")
    assert step > 0
    costly.scroll_into_view_if_needed()
    before = page.evaluate("() => window.scrollY")
    costly.locator("a").click()
    page.wait_for_function(
        "(n) => new URLSearchParams(location.search).get('step') === String(n)"
        " && document.querySelector('#replay-stage .verdict')",
        arg=step,
        timeout=WAIT_MS,
    )
    assert page.evaluate("() => window.notReloaded === true")
    page.locator("#replay-stage .marks circle.hint").wait_for(timeout=WAIT_MS)
    assert in_view(page, "#replay-stage .verdict")
    assert in_view(page, "#replay-stage .marks circle.hint")
    if size == "laptop":
        assert page.evaluate("() => window.scrollY") == before  # the reader stays in the list
        assert in_view(page, f'ol.moves li[data-step="{step}"]')
    shot(page, f"issue37-review-step-{size}-{lang}")

    # The last pearl, into the only empty cell: said so, not praised.
    last.locator("a").click()
    page.locator("#replay-stage .verdict.forced").wait_for(timeout=WAIT_MS)
    assert page.locator("#replay-stage .verdict.best").count() == 0


def completes(cell: str, taken: set[str]) -> bool:
    """Whether a pearl on ``cell`` completes a 2×2 group of the base (a bonus pearl)."""
    f, r = ord(cell[0]), int(cell[1])
    for df in (-1, 0):
        for dr in (-1, 0):
            block = {f"{chr(f + df + i)}{r + dr + j}" for i in (0, 1) for j in (0, 1)}
            if all("a" <= c[0] <= "e" and 1 <= int(c[1:]) <= 5 for c in block) and (
                block - {cell} <= taken
            ):
                return True
    return False


def bonus_before_the_computer(rig: Rig, computer: int = 0) -> dict[str, object]:
    """Play until a bonus pearl is owed and the computer seat moves next: the people play
    the cells that complete no group, but for the seat before the computer's, which
    completes one as soon as it can; the computer's pearls go where it chose."""
    before = (computer - 1) % 3
    for _ in range(25):
        snap = rig.snapshot()
        if snap["pending"] and snap["to_move"] == computer:
            return snap
        if snap["pending"]:
            assert rig.table.submit(ConfirmBonus()).ok
            rig.wait(lambda s: not s["pending"])
            continue
        moves = snap["moves"]
        if snap["to_move"] == computer:
            snap = rig.wait(lambda s: s["computer_move"] is not None)
            cell = snap["computer_move"]
        else:
            taken = set(snap["sensors"])
            done = [c for c in snap["legal"] if completes(c, taken)]
            rest = [c for c in snap["legal"] if c not in done]
            cell = (done or rest)[0] if snap["to_move"] == before else (rest or done)[0]
        rig.place(cell)

        def moved(s: dict[str, object], m: int = moves) -> bool:
            return int(str(s["moves"])) > m

        rig.wait(moved)
    raise AssertionError("no bonus pearl came before the computer's turn")


@pytest.mark.parametrize(("size", "lang"), CASES)
def test_the_computers_cell_is_said_while_a_bonus_pearl_is_owed(
    browser: Browser, served: tuple[Rig, Served], size: str, lang: str
) -> None:
    """Issue 37, 6: with a bonus pearl owed and the computer to move next, a sentence
    beside the board names where the computer plays, and the bar says it too; the board
    has not moved for it."""
    rig, server = served
    rig.new_perlen(FAMILY, computer={0: "gentle"})
    page = opened(browser, size, lang, server.url, admin=False)
    shown(page, rig)
    before = box(page, "#cell-a1")
    rig.wait(lambda s: s["computer_move"] is not None)
    bonus_before_the_computer(rig)
    chosen = rig.wait(lambda s: s["computer_move"] is not None and bool(s["pending"]))
    cell = str(chosen["computer_move"])
    shown(page, rig)
    said = page.locator("#live-status .computer-next")
    said.wait_for(timeout=WAIT_MS)
    assert cell in said.inner_text()
    assert page.locator(f'#live-board .marks[data-pos="{cell}"] circle.computer').count() == 1
    assert same_place(box(page, "#cell-a1"), before)
    if size == "laptop":
        assert in_view(page, "#live-status .computer-next")
    page.locator(f"#cell-{cell}").evaluate("(el) => el.scrollIntoView({ block: 'center' })")
    page.wait_for_function(
        "() => !document.querySelector('#live-bar').hidden"
        " || document.querySelector('#live-status .computer-next').getBoundingClientRect()"
        ".bottom <= window.innerHeight",
        timeout=WAIT_MS,
    )
    if page.is_visible("#live-bar"):
        assert cell in page.inner_text("#live-bar .computer-next")
        assert whole(page, "#live-bar .computer-next")
    shot(page, f"issue37-computer-next-{size}-{lang}")


@pytest.mark.parametrize(("size", "lang"), CASES)
def test_show_a_good_cell_answers_in_view(
    browser: Browser, served: tuple[Rig, Served], size: str, lang: str
) -> None:
    """Issue 37, 5: "Show a good cell", pressed where the buttons are (under the board on
    a phone), brings the ringed cell into view; its sentence is beside the board on a
    laptop and in the bar on a phone when the sentence is out of sight."""
    rig, server = served
    rig.new_perlen(FAMILY)
    play(rig, ("c3", "d4", "d3"))
    page = opened(browser, size, lang, server.url)
    shown(page, rig)
    centre(page, '[data-command="hint"] button')
    page.locator('[data-command="hint"] button').click()
    snap = rig.wait(lambda s: s["hint"] is not None)
    cell = str(snap["hint"])
    ring = f'#live-board .marks[data-pos="{cell}"] circle.hint'
    page.locator(ring).wait_for(timeout=WAIT_MS)
    page.wait_for_function(
        """(pos) => {
            const b = document.querySelector('#cell-' + pos).getBoundingClientRect();
            return b.top >= 0 && b.bottom <= window.innerHeight;
        }""",
        arg=cell,
        timeout=WAIT_MS,
    )
    assert in_view(page, f"#cell-{cell}")
    message = page.locator("#live-status .message")
    assert cell in message.inner_text()
    if size == "laptop":
        assert in_view(page, "#live-status .message")
    else:
        page.wait_for_function(
            """() => {
                const bar = document.querySelector('#live-bar');
                const m = document.querySelector('#live-status .message').getBoundingClientRect();
                return !bar.hidden || m.bottom <= window.innerHeight;
            }""",
            timeout=WAIT_MS,
        )
        if page.is_visible("#live-bar"):
            assert cell in page.inner_text("#live-bar .hint-said")
            assert whole(page, "#live-bar .hint-said")
    shot(page, f"issue37-hint-{size}-{lang}")


@pytest.mark.parametrize(("size", "lang"), [("phone", "de"), ("laptop", "da"), ("landscape", "en")])
def test_the_other_games_pieces_and_the_boards_own_buttons(
    browser: Browser, served: tuple[Rig, Served], size: str, lang: str
) -> None:
    """Issue 37, 9 and 10: after a game of pearls, a game of Pyramidos names the pearls
    left on the base as pearls of Perlen-Pyramide, and its button takes "the other game's
    pieces" off (never "balls"); the simulated board's own buttons come after the game's,
    drawn apart from them; every button is a 44 px target."""
    words = {
        "de": ("Perlen der Perlen-Pyramide", "Teile des anderen Spiels", "Kugeln"),
        "da": ("perler fra Perlen-Pyramide", "andet spils brikker", "kugler"),
        "en": ("pearls of Perlen-Pyramide", "other game's pieces", "balls"),
    }[lang]
    rig, server = served
    rig.new_perlen(FAMILY)
    play(rig, ("c3", "d4"))
    rig.new_pyramidos(("Oma", "Jonas"))
    page = opened(browser, size, lang, server.url)
    shown(page, rig)
    note = page.locator("#live-board .elsewhere .note").inner_text()
    assert words[0] in note and words[2] not in note
    clear = page.locator('.virtual-buttons button[data-action="clear"]').inner_text()
    assert words[1] in clear and words[2] not in clear
    game, board = box(page, "section.controls"), box(page, "section.virtual-buttons")
    assert board["y"] > game["y"] + game["height"] - 1 or board["x"] > game["x"] + game["width"]
    colours = page.evaluate(
        """() => [document.querySelector('section.controls button'),
                  document.querySelector('.virtual-buttons button')]
                 .map((b) => getComputedStyle(b).backgroundColor)"""
    )
    assert colours[0] != colours[1]  # the board's buttons look like the board's
    # The panel itself is of the board's wood, unlike the game's (its rule takes effect).
    panels = page.evaluate(
        """() => ['section.controls', 'section.virtual-buttons']
                 .map((s) => getComputedStyle(document.querySelector(s)).backgroundColor)"""
    )
    assert panels[1] not in ("rgba(0, 0, 0, 0)", "transparent", panels[0]), panels
    # No board button reads like one of the game's: one pair of words per action.
    labels = page.evaluate(
        """() => ['section.controls button', 'section.virtual-buttons button']
                 .map((s) => Array.from(document.querySelectorAll(s))
                      .map((b) => b.innerText.trim()))"""
    )
    assert labels[0] and labels[1] and not set(labels[0]) & set(labels[1]), labels
    small = page.evaluate(
        """() => Array.from(document.querySelectorAll('main button, main a.button'))
                 .filter((b) => b.offsetParent)
                 .map((b) => b.getBoundingClientRect())
                 .filter((r) => r.height < 44 || r.width < 44).length"""
    )
    assert small == 0
    page.locator('.virtual-buttons button[data-action="clear"]').click()
    rig.wait(lambda s: not any(len(x) == 2 for x in s["sensors"]))
    page.locator("#live-board .elsewhere").wait_for(state="detached", timeout=WAIT_MS)
    shot(page, f"issue37-other-game-{size}-{lang}")


@pytest.mark.parametrize(("size", "lang"), [("phone", "de"), ("laptop", "da"), ("landscape", "en")])
def test_a_mistyped_new_pin_is_said_in_place_with_the_fields_kept(
    browser: Browser, served: tuple[Rig, Served], size: str, lang: str
) -> None:
    """Issue 37, 11 and 12: a new PIN too short, then two new PINs that differ: each time
    the settings page says why in words beside the form, with all three fields as they
    were typed; then the PIN changes. Settings shows no config file or broker to a family:
    those are behind "For makers"."""
    short = {"de": "4 bis 12 Ziffern", "da": "4 til 12 cifre", "en": "4 to 12 digits"}[lang]
    rig, server = served
    page = opened(browser, size, lang, server.url, admin=False)
    page.goto(f"{server.url}/settings")
    shown_text = page.inner_text("main")
    for maker in ("[buzzer]", "[remote]", "[leds]", "config", "README", "broker"):
        assert maker not in shown_text, maker
    assert page.locator("details.makers").count() >= 1

    def change(new: str, again: str) -> None:
        page.fill("#current", PIN)
        page.fill("#new", new)
        page.fill("#again", again)
        page.click("#pin-change button[type=submit]")

    change("12", "12")
    page.wait_for_load_state()
    error = page.locator("#pin-change-error")
    error.wait_for(timeout=WAIT_MS)
    assert short in error.inner_text()
    assert [page.input_value(f"#{f}") for f in ("current", "new", "again")] == [PIN, "12", "12"]
    assert in_view(page, "#pin-change-error")
    shot(page, f"issue37-pin-short-{size}-{lang}")
    page.fill("#new", "13579")
    page.fill("#again", "13570")
    page.click("#pin-change button[type=submit]")  # waits for the page it leads to
    page.wait_for_load_state()
    assert page.input_value("#new") == "13579" and page.input_value("#again") == "13570"
    assert short not in page.inner_text("#pin-change-error")
    change("13579", "13579")
    page.wait_for_url(f"{server.url}/settings", timeout=WAIT_MS)
    assert page.locator("#pin-change-error").count() == 0
    assert Settings(rig.store).check_pin("13579")


@pytest.mark.parametrize(("size", "lang"), [("phone", "de"), ("phone", "da"), ("landscape", "en")])
def test_the_bar_says_a_wrong_cell_whole(
    browser: Browser, served: tuple[Rig, Served], size: str, lang: str
) -> None:
    """Issue 37, 7: a pearl on a cell it may not go on, with the board in the middle of the
    screen: the bar at the foot of it says so to the last word, cutting nothing."""
    rig, server = served
    rig.new_perlen(FAMILY)
    play(rig, ("c3",))
    page = opened(browser, size, lang, server.url, admin=False)
    shown(page, rig)
    rig.place("e5")  # touches no pearl
    rig.wait(lambda s: s["status"] == "mismatch")
    shown(page, rig)
    page.locator("#cell-e1").evaluate("(el) => el.scrollIntoView({ block: 'end' })")
    # The bar comes while the words beside the board are out of sight (on a phone on its
    # side they may be in sight, beside it).
    page.wait_for_function(
        """() => {
            const bar = document.querySelector('#live-bar');
            const m = document.querySelector('#live-status .message').getBoundingClientRect();
            return !bar.hidden || (m.top >= 0 && m.bottom <= window.innerHeight);
        }""",
        timeout=WAIT_MS,
    )
    said = " ".join(page.inner_text("#live-status .message").split())
    assert "(e5)" in said
    if page.is_visible("#live-bar"):
        assert "(e5)" in page.inner_text("#live-bar .do")
        assert whole(page, "#live-bar .do") and whole(page, "#live-bar .who")
        cell = box(page, "#cell-e1")
        assert cell["y"] + cell["height"] <= box(page, "#live-bar")["y"] + 1
    else:
        assert size == "landscape" and in_view(page, "#live-status .message")
    shot(page, f"issue37-wrong-cell-{size}-{lang}")


PLAYED = {
    "en": "{p} played {c}.",
    "de": "{p} hat {c} gesetzt.",
    "da": "{p} har lagt en perle på {c}.",
}
"""How the page says a move was made (the referee's "played"), in each language."""


def marked_wrong(page: Page) -> set[str]:
    """The base cells the live page marks as wrong (a red ✕ over a pearl that does not
    belong), read in one turn of the page's script."""
    return set(
        page.evaluate(
            """() => Array.from(document.querySelectorAll('#live-board [id^="cell-"]'))
                 .filter((g) => g.classList.contains('extra') || g.querySelector('.cross'))
                 .map((g) => g.id.slice(5))"""
        )
    )


def said_now(page: Page) -> str:
    return " ".join(page.inner_text("#live-status .message").split())


HELD = {
    "en": "a pearl is put down here",
    "de": "hier liegt eine Perle",
    "da": "her ligger en perle",
}
"""What a screen reader says of the right pearl, waiting beside a wrong one."""


def wrong_then_right(
    page: Page, rig: Rig, wrong: str, right: str, moves: int, lang: str = "en"
) -> None:
    """Tap ``wrong``, then ``right``: the page marks ``wrong`` and never ``right`` (drawn
    waiting, in the mover's colour), and asks to take off only the wrong pearl; still no
    move is made."""
    tap(page, f"#cell-{wrong}")
    rig.wait(lambda s: s["status"] == "mismatch" and wrong in s["sensors"])
    shown(page, rig)
    assert marked_wrong(page) == {wrong}
    tap(page, f"#cell-{right}")
    snap = rig.wait(lambda s: right in s["sensors"] and wrong in s["sensors"])
    assert snap["status"] == "mismatch" and snap["moves"] == moves
    shown(page, rig)
    assert marked_wrong(page) == {wrong}, marked_wrong(page)
    # The right pearl is drawn as it lies, faint in the mover's colour, waiting.
    assert page.locator(f"#cell-{right} circle.held").count() == 1
    assert page.locator(f"#cell-{wrong} circle.held").count() == 0
    assert HELD[lang] in (page.get_attribute(f"#cell-{right}", "aria-label") or "")
    said = said_now(page)
    assert f"({wrong})" in said and f"({right})" not in said, said


@pytest.mark.parametrize(("size", "lang"), CASES)
def test_a_persons_right_pearl_after_a_wrong_one_stays_the_move(
    browser: Browser, served: tuple[Rig, Served], size: str, lang: str
) -> None:
    """Issue 37, 2: Papa's pearl on a cell it may not go on (e1, touching no pearl), then
    on an allowed one (b4): the page marks e1 with the red ✕ and asks for that pearl
    only, never b4; lifting e1 leaves b4 as Papa's move, and the page says he played it."""
    rig, server = served
    rig.new_perlen(FAMILY)
    play(rig, ("c3",))
    page = opened(browser, size, lang, server.url)
    shown(page, rig)
    wrong_then_right(page, rig, "e1", "b4", moves=1, lang=lang)
    shot(page, f"issue37-wrong-then-right-{size}-{lang}")
    tap(page, "#cell-e1")  # the wrong pearl lifted
    snap = rig.wait(lambda s: s["moves"] == 2)
    assert snap["status"] == "playing" and snap["last_move"] == "b4"
    shown(page, rig)
    assert not marked_wrong(page) and page.locator("#live-board circle.held").count() == 0
    assert PLAYED[lang].format(p="Papa", c="b4") in said_now(page)


@pytest.mark.parametrize(("size", "lang"), CASES)
def test_a_computer_seats_cell_after_a_wrong_one_stays_its_move(
    browser: Browser, served: tuple[Rig, Served], size: str, lang: str
) -> None:
    """Issue 37, 2: the computer (Papa) chose a cell; the family puts its pearl on
    another allowed cell first, then on the chosen one: the page marks the other cell
    wrong and rings the chosen one, never both on one cell; lifting the wrong pearl
    completes the computer's move."""
    rig, server = served
    rig.new_perlen(FAMILY, computer={1: "gentle"})
    play(rig, ("c3",))
    chosen = str(rig.wait(lambda s: s["computer_move"] is not None)["computer_move"])
    wrong = next(c for c in rig.snapshot()["legal"] if c != chosen)
    page = opened(browser, size, lang, server.url)
    shown(page, rig)
    page.locator(f'#live-board .marks[data-pos="{chosen}"] circle.computer').wait_for(
        timeout=WAIT_MS
    )
    wrong_then_right(page, rig, wrong, chosen, moves=1, lang=lang)
    assert page.locator(f'#live-board .marks[data-pos="{chosen}"] circle.computer').count() == 1
    assert page.locator(f'#live-board .marks[data-pos="{wrong}"] circle.computer').count() == 0
    shot(page, f"issue37-computer-wrong-then-right-{size}-{lang}")
    tap(page, f"#cell-{wrong}")  # the wrong pearl lifted
    snap = rig.wait(lambda s: s["moves"] == 2)
    assert snap["status"] == "playing" and snap["last_move"] == chosen
    assert snap["computer_move"] is None
    shown(page, rig)
    assert not marked_wrong(page) and page.locator("#live-board circle.held").count() == 0
    assert PLAYED[lang].format(p="Papa", c=chosen) in said_now(page)


SHARED = (
    "a1",
    "b2",
    "c1",
    "d1",
    "e2",
    "a2",
    "c2",
    "e1",
    "b3",
    "a3",
    "c4",
    "a4",
    "b4",
    "d3",
    "e3",
    "c3",
    "a5",
    "e4",
    "b5",
    "d2",
    "b1",
    "d5",
    "e5",
    "c5",
    "d4",
)
"""A whole game that Oma and Papa win together (14 visible pearls each, Lena 13)."""


@pytest.mark.parametrize(
    ("size", "lang"), [("phone", "de"), ("phone", "da"), ("phone", "en"), ("laptop", "de")]
)
def test_a_shared_win_leaves_the_board_where_it_was(
    browser: Browser, served: tuple[Rig, Served], size: str, lang: str
) -> None:
    """Issue 37, 1, at the end: the line saying who won together takes no more room above
    the board than the turn line did, so the base stays in its place; it names both
    winners whole, each by their pearl and name."""
    rig, server = served
    rig.new_perlen(FAMILY, colours=("red", "blue", "yellow"))
    play(rig, SHARED[:-1])
    page = opened(browser, size, lang, server.url, admin=False)
    shown(page, rig)
    before = box(page, "#cell-a1")
    play(rig, (SHARED[-1],))
    final = rig.wait(lambda s: s["status"] == "over")
    assert final["winners"] == [0, 1], final["winners"]
    shown(page, rig)
    line = page.locator("#live-status .headline.winner")
    line.wait_for(timeout=WAIT_MS)
    said = " ".join(line.inner_text().split())
    assert "Oma" in said and "Papa" in said and "Lena" not in said
    assert whole(page, "#live-status .headline.winner")
    assert line.locator("svg.chip").count() == 2  # each winner's pearl
    after = box(page, "#cell-a1")
    assert same_place(after, before), (before, after)
    shot(page, f"issue37-shared-win-{size}-{lang}")

"""Two homes in real headless Chromium: a family invites from one phone and another joins
from a second, each in its own language, through a real Mosquitto on loopback.

Two boards (each a rig: the simulated board, a store, a Table, the page served by
waitress) share one broker. Oma's phone starts a game with Tim's seat played "by a person
on another board" and reads the invitation code off the live page; Tim's phone enters it
on the Join page; Oma's first pearl then shows on Tim's page as a pearl to place. The
screenshots of the German pass illustrate docs/user-guide.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.config import RemoteConfig
from controller.referee import NewGame
from controller.remote.invitation import new_code
from controller.remote.link import LinkTiming
from controller.remote.wire import Side, derive_keys
from rigs.mosquitto import Mosquitto
from rigs.network import link_of
from rigs.web import PIN, WAIT_MS, build_rig, close_rig
from tests.web.test_browser import PHONE, Served, shot, tap

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "played by": "a person on another board",
        "waiting": "Waiting for the other board to join.",
        "linked": "Linked with {name}'s board.",
        "played": "Oma played c3 on the other board: place the pearl on c3.",
        "their turn": "Tim plays on the other board: wait for the move.",
        "other home": "other home",
        "broker": "Broker: mqtt://127.0.0.1:",
        "connected": "Connected to the broker.",
        "unanswered": "No board has answered the code",
        "cancel": "Cancel joining",
        "idle": "No game is being played",
        "tried": "Another board tried to join this game.",
    },
    "de": {
        "played by": "ein Mensch an einem anderen Brett",
        "waiting": "Warte darauf, dass das andere Brett beitritt.",
        "linked": "Verbunden mit dem Brett von {name}.",
        "played": "Oma hat auf dem anderen Brett c3 gesetzt: Setze die Perle auf c3.",
        "their turn": "Tim spielt auf dem anderen Brett: Warte auf den Zug.",
        "other home": "anderes Zuhause",
        "broker": "Broker: mqtt://127.0.0.1:",
        "connected": "Mit dem Broker verbunden.",
        "unanswered": "Kein Brett hat bisher auf den Code",
        "cancel": "Beitritt abbrechen",
        "idle": "Es wird gerade nicht gespielt",
        "tried": "Ein weiteres Brett hat versucht, diesem Spiel beizutreten.",
    },
}


class Home:
    """One home's board and its page, linked through ``broker`` as ``name``."""

    def __init__(self, folder: Path, name: str, broker: Mosquitto) -> None:
        folder.mkdir()
        config = RemoteConfig(broker=f"mqtt://127.0.0.1:{broker.port}", name=name)
        self.rig = build_rig(folder, remote=config)
        self.port = broker.port
        self.server = Served(self.rig)

    def close(self) -> None:
        self.server.stop()
        close_rig(self.rig)


@pytest.fixture
def homes(tmp_path: Path) -> Iterator[tuple[Home, Home]]:
    with Mosquitto(tmp_path) as broker:
        oma = Home(tmp_path / "oma", "Oma", broker)
        tim = Home(tmp_path / "tim", "Tim", broker)
        try:
            yield oma, tim
        finally:
            oma.close()
            tim.close()


def phone(browser: Browser, lang: str) -> Page:
    return browser.new_context(
        viewport=PHONE, locale="de-DE" if lang == "de" else "en-GB"
    ).new_page()


def says(page: Page, text: str) -> None:
    page.wait_for_selector(f"#live-status >> text={text}", timeout=WAIT_MS)


@pytest.mark.parametrize(("inviting", "joining"), [("en", "de"), ("de", "en")])
def test_a_family_invites_and_another_joins_from_their_phones(
    browser: Browser, homes: tuple[Home, Home], inviting: str, joining: str
) -> None:
    oma, tim = homes
    here, there = WORDS[inviting], WORDS[joining]
    page = phone(browser, inviting)
    page.goto(f"{oma.server.url}/setup")
    for seat, (name, colour) in enumerate([("Oma", "red"), ("Tim", "blue"), ("Opa", "yellow")]):
        page.fill(f"#name_{seat}", name)
        page.select_option(f"#colour_{seat}", colour)
    page.select_option("#computer_1", label=here["played by"])
    page.fill("#form-pin", PIN)
    page.click("form[data-setup] button[type=submit]")
    page.wait_for_url(f"{oma.server.url}/")
    shown = page.locator("[data-code]")
    shown.wait_for(state="visible", timeout=WAIT_MS)
    code = shown.inner_text()
    # The code is read out on the phone: large, on one line (one box, as tall as a line).
    # (Read in one go on the element in the page now: a live update may replace it.)
    measured = page.wait_for_function(
        """() => { const e = document.querySelector('[data-code]');
                   if (!e || !e.isConnected) return null;
                   const h = e.getBoundingClientRect().height;
                   const f = parseFloat(getComputedStyle(e).fontSize);
                   return h > 0 && f > 0 ? [h, f] : null; }""",
        timeout=WAIT_MS,
    ).json_value()
    height, size = measured
    assert height < 2 * size, (height, size)
    assert code == oma.rig.snapshot()["remote"]["code"]
    says(page, here["waiting"])
    shot(page, f"remote-invite-{inviting}-phone")

    other = phone(browser, joining)
    other.goto(f"{tim.server.url}/join")
    other.fill("#code", code.lower())  # read out on the phone: case does not matter
    other.fill("#join-pin", PIN)
    shot(other, f"remote-join-{joining}-phone")
    other.click('form[action="/join"] button[type=submit]')
    other.wait_for_url(f"{tim.server.url}/")
    says(other, there["linked"].format(name="Oma"))
    says(page, here["linked"].format(name="Tim"))
    joined: dict[str, Any] = tim.rig.snapshot()
    assert [p["remote"] for p in joined["players"]] == [True, False, True]

    tap(page, "#cell-c3")  # Oma's pearl, at home
    tim.rig.wait(lambda s: s["moves"] == 1)
    says(other, there["played"])
    ring = other.locator('.marks[data-pos="c3"]')
    ring.wait_for(timeout=WAIT_MS)
    # Placing the other home's pearl is the next step, not a fault: said once, in the
    # normal colour, with no "the board does not match" box.
    status = other.locator("#live-status")
    assert status.locator(".mismatch").count() == 0
    assert status.locator(".message.warn, .banner.warn").count() == 0
    assert status.inner_text().count(there["played"]) == 1
    assert status.locator(".todo-now").count() == 0  # not again as the bold "what to do"
    # The link in the phone's bar, and the seats of the other home in the scores.
    bar = other.locator("#live-bar .link-state").inner_text()
    assert bar == there["linked"].format(name="Oma")
    assert (
        other.locator("#live-scores .badge.remote").all_inner_texts() == [there["other home"]] * 2
    )
    assert page.locator("#live-scores .badge.remote").all_inner_texts() == [here["other home"]]
    shot(other, f"remote-move-{joining}-phone")
    says(page, here["their turn"])
    tap(other, "#cell-c3")  # placed by hand on Tim's board: his turn
    tim.rig.wait(lambda s: s["status"] == "playing")
    tap(other, "#cell-b2")
    oma.rig.wait(lambda s: s["moves"] == 2)
    assert oma.rig.snapshot()["remote"]["unsent"] == 0
    # Settings says the link, each sentence on its own; the broker only for makers
    # (issue 37, 12).
    page.goto(f"{oma.server.url}/settings")
    facts = page.locator("#remote-settings li").all_inner_texts()
    assert facts == [here["connected"], here["linked"].format(name="Tim")]
    assert page.is_hidden("#remote-settings details.makers p")
    page.click("#remote-settings details.makers summary")
    broker = page.inner_text("#remote-settings details.makers p")
    assert broker.startswith(here["broker"]) and broker.endswith(".")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_code_nobody_answers_says_so_and_can_be_cancelled(
    browser: Browser, tmp_path: Path, lang: str
) -> None:
    """A board joins a code no board invited (a slip that passed the check): within the
    link's answer time (shortened here to a second; a minute at most in a home) its page
    says that nobody answers and offers to enter the code again or to cancel, and the
    cancel leaves the board idle. The inviting board of another game, when a stranger
    board with its code knocks, says that another board tried."""
    words = WORDS[lang]
    with Mosquitto(tmp_path) as broker:
        folder = tmp_path / "tim"
        folder.mkdir()
        config = RemoteConfig(broker=f"mqtt://127.0.0.1:{broker.port}", name="Tim")
        rig = build_rig(folder, remote=config, timing=LinkTiming(answer_s=1.0))
        server = Served(rig)
        try:
            page = phone(browser, lang)
            page.goto(f"{server.url}/join")
            page.fill("#code", new_code())
            page.fill("#join-pin", PIN)
            page.click('form[action="/join"] button[type=submit]')
            page.wait_for_url(f"{server.url}/")
            says(page, words["unanswered"])
            again = page.locator(".join-actions a")
            assert (again.get_attribute("href", timeout=WAIT_MS) or "").startswith("/join?code=")
            page.click(f".join-actions button >> text={words['cancel']}")
            says(page, words["idle"])
            assert rig.snapshot()["remote"] is None
        finally:
            server.stop()
            close_rig(rig)


def test_the_inviting_board_says_another_board_tried(
    browser: Browser, homes: tuple[Home, Home]
) -> None:
    oma, _tim = homes
    page = phone(browser, "en")
    reply = oma.rig.table.submit(NewGame("perlen-pyramide", ("Oma", "Tim", "Opa"), remote=(1,)))
    assert reply.ok
    code = oma.rig.wait(lambda s: bool(s["remote"] and s["remote"]["code"]))["remote"]["code"]
    page.goto(oma.server.url)
    page.locator(".invitation").wait_for(timeout=WAIT_MS)  # a locked phone: not the code
    assert code not in page.content()
    # A third board with the code: its first word is authentic, from a board that is
    # not the one playing (here the first to speak, so Tim's board joins as the stranger).
    first = link_of("first-board", "Ann", Side.JOINER, keys=derive_keys(code)).connected(0.0)
    second = link_of("second-board", "Bea", Side.JOINER, keys=derive_keys(code)).connected(0.0)
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="third")
    client.connect("127.0.0.1", oma.port)
    client.loop_start()
    try:
        for step in (first, second):
            for message in step.publish:
                client.publish(message.topic, message.payload, qos=1).wait_for_publish(10)
        says(page, WORDS["en"]["tried"])
    finally:
        client.disconnect()
        client.loop_stop()

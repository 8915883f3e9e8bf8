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

import pytest

from controller.config import RemoteConfig
from controller.remote.seats import RemoteSeats
from tests.remote.mosquitto import Mosquitto
from tests.web.conftest import PIN, WAIT_MS, build_rig, close_rig
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
        "place": "c3: place the red (R) pearl played on the other board.",
    },
    "de": {
        "played by": "ein Mensch an einem anderen Brett",
        "waiting": "Warte darauf, dass das andere Brett beitritt.",
        "linked": "Verbunden mit dem Brett von {name}.",
        "played": "Oma hat auf dem anderen Brett c3 gesetzt: Setze die Perle auf c3.",
        "their turn": "Tim spielt auf dem anderen Brett: Warte auf den Zug.",
        "place": "c3: Setze die Perle (rot (R)), die auf dem anderen Brett gespielt wurde.",
    },
}


class Home:
    """One home's board and its page, linked through ``broker`` as ``name``."""

    def __init__(self, folder: Path, name: str, broker: Mosquitto) -> None:
        folder.mkdir()
        self.rig = build_rig(folder)
        config = RemoteConfig(host="127.0.0.1", port=broker.port, tls=False, name=name)
        self.seats = RemoteSeats(self.rig.table, self.rig.store, config)
        self.rig.table.linker = self.seats
        self.server = Served(self.rig)

    def close(self) -> None:
        self.server.stop()
        self.seats.close()
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
    code = page.locator("[data-code]").inner_text(timeout=WAIT_MS)
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
    assert there["place"] in other.locator("#live-status .mismatch").inner_text()
    shot(other, f"remote-move-{joining}-phone")
    says(page, here["their turn"])
    tap(other, "#cell-c3")  # placed by hand on Tim's board: his turn
    tim.rig.wait(lambda s: s["status"] == "playing")
    tap(other, "#cell-b2")
    oma.rig.wait(lambda s: s["moves"] == 2)
    assert oma.rig.snapshot()["remote"]["unsent"] == 0

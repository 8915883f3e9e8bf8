"""English, German and Danish: every string translated, catalogues compiled and current."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from flask.testing import FlaskClient

from controller import palette
from rigs.web import Rig
from tools import translations
from web_ui import render

WEB = Path(__file__).resolve().parents[2] / "web_ui"
TRANSLATIONS = WEB / "translations"
LANGUAGES = ("de", "da")
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


def _key(value: object) -> object:
    return tuple(value) if isinstance(value, list | tuple) else value


def catalogue(lang: str) -> Catalog:
    with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po", "rb") as f:
        return read_po(f)


def test_the_template_lists_every_string_of_the_sources(tmp_path: Path) -> None:
    fresh = tmp_path / "messages.pot"
    translations.extract(fresh)  # the web page's and the referee's texts
    with open(fresh, "rb") as f:
        wanted = {m.id for m in read_po(f) if m.id}
    with open(TRANSLATIONS / "messages.pot", "rb") as f:
        committed = {m.id for m in read_po(f) if m.id}
    assert wanted == committed, "run .venv/bin/python tools/translations.py"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_string_is_translated_with_the_same_placeholders(lang: str) -> None:
    with open(TRANSLATIONS / "messages.pot", "rb") as f:
        ids = {m.id for m in read_po(f) if m.id}
    po = catalogue(lang)
    translated = {m.id: m for m in po if m.id}
    assert set(translated) == ids
    for message in translated.values():
        assert not message.fuzzy, message.id
        sources = message.id if isinstance(message.id, tuple) else (message.id,)
        targets = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(targets), message.id
        source = sources[-1]
        assert isinstance(source, str), message.id
        wanted = set(PLACEHOLDER.findall(source))
        for target in targets:
            assert isinstance(target, str), (message.id, target)
            assert set(PLACEHOLDER.findall(target)) <= wanted, (message.id, target)
            assert set(PLACEHOLDER.findall(target)) >= wanted - {"num"}, (message.id, target)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_compiled_catalogues_match_the_sources(lang: str) -> None:
    with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.mo", "rb") as f:
        compiled = {_key(m.id): _key(m.string) for m in read_mo(f) if m.id}
    source = {_key(m.id): _key(m.string) for m in catalogue(lang) if m.id}
    assert compiled == source, "run pybabel compile -d web_ui/translations"


def test_pages_speak_the_chosen_language(rig: Rig, client: FlaskClient) -> None:
    rig.new_perlen(("Anna", "Ben", "Cleo"))
    german = client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Anna (rot, R) ist am Zug" in german and "Sichtbare Perlen" in german
    danish = client.get("/", headers={"Accept-Language": "da"}).get_data(as_text=True)
    assert "Anna (rød, R) er i tur" in danish and "Synlige perler" in danish
    rules = client.get("/rules", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Die Regeln" in rules and "Bonusperlen" in rules
    error = client.get("/history/77", headers={"Accept-Language": "da"})
    assert "Der findes intet spil 77." in error.get_data(as_text=True)
    api = client.get("/api/games/77", headers={"Accept-Language": "de"})
    assert api.get_json()["error"] == "Es gibt kein Spiel 77."


@pytest.fixture
def untranslated(monkeypatch: pytest.MonkeyPatch) -> set[object]:
    """Every text the pages asked a German or Danish catalogue for and it did not have.

    Babel's ``Translations`` falls back to the English text when a catalogue lacks one, so
    such a page would show English; this records each lookup that fell back."""
    from babel.support import Translations

    misses: set[object] = set()
    gettext, ngettext = Translations.gettext, Translations.ngettext

    def looked_up(self: Translations, message: str) -> str:
        if message and message not in self._catalog:
            misses.add(message)
        return gettext(self, message)

    def looked_up_plural(self: Translations, singular: str, plural: str, n: int) -> str:
        if (singular, 0) not in self._catalog:
            misses.add((singular, plural))
        return ngettext(self, singular, plural, n)

    monkeypatch.setattr(Translations, "gettext", looked_up)
    monkeypatch.setattr(Translations, "ngettext", looked_up_plural)
    return misses


PAGES = ("/", "/setup", "/history", "/leaderboard", "/rules", "/diagnostics", "/settings",
         "/unlock", "/history/1", "/history/1?step=3", "/nowhere")  # fmt: skip


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_page_shows_a_text_its_language_does_not_have(
    rig: Rig, client: FlaskClient, untranslated: set[object], lang: str
) -> None:
    headers = {"Accept-Language": lang}

    def visit() -> None:
        for path in PAGES:
            assert client.get(path, headers=headers).status_code < 500, path
        client.get("/api/state", headers=headers)
        client.get("/events?view=live", headers=headers)

    visit()  # no game
    rig.new_perlen(("Anna", "Ben", "Cleo"))
    for cell in ("c3", "d4", "d3", "c4"):  # a bonus pearl owed, hidden pearls said
        rig.place(cell)

        def placed(s: dict[str, Any], c: str = cell) -> bool:
            return any(p["pos"] == f"1:{c}" for p in s["pearls"])

        rig.wait(placed)
    visit()
    rig.place("a1")  # a wrong cell: a refusal and a fix
    rig.wait(lambda s: s["status"] == "mismatch")
    visit()
    rig.place("a1", False)
    rig.play_perlen_to_end()  # the winner, the last bonus pearls finishing the pyramid
    visit()
    rig.new_pyramidos(("Ida", "Jonas"))
    rig.place("top")  # the closed top
    rig.wait(lambda s: s["status"] == "mismatch")
    visit()
    assert untranslated == set(), f"no {lang} translation for: {sorted(map(str, untranslated))}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_of_the_referee_has_a_translation(lang: str) -> None:
    from babel.support import Translations

    found = Translations.load(str(TRANSLATIONS), [lang])
    catalog = found._catalog
    messages, terms = _shipped_catalogue()
    for key, text in messages.items():
        wanted = (text[0], 0) if isinstance(text, list) else text
        assert wanted in catalog, f"{lang}: message {key!r} ({text!r})"
    for kind, words in terms.items():
        if kind == "game":
            continue  # names of games stay as they are
        for word in words.values():
            assert word in catalog, f"{lang}: {kind} {word!r}"


def _shipped_catalogue() -> tuple[dict[str, Any], dict[str, dict[str, str]]]:
    """What the referee and the shipped games can say, read in a fresh interpreter.

    A game's words join the catalogue when its package is imported, and this test
    process also imports the test-only game of tests/games/toy, whose sentences are not
    the product's and are not translated; a fresh interpreter imports only the games of
    the registry.
    """
    script = (
        "import json, controller.games.registry\n"
        "from controller.referee.messages import CATALOGUE, TERMS\n"
        "print(json.dumps([{k: t.text for k, t in CATALOGUE.items()}, TERMS]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    messages, terms = json.loads(done.stdout)
    return messages, terms


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "It is worth about 1.5 visible pearls more than the next best cell."),
        ("de", "Es ist etwa 1,5 sichtbare Perlen mehr wert als das nächstbeste Feld."),
        ("da", "Det er omkring 1,5 synlige perler mere værd end det næstbedste felt."),
    ],
)
def test_a_hints_worth_is_written_the_readers_way(rig: Rig, lang: str, said: str) -> None:
    from controller.referee.messages import Amount, Message
    from web_ui.render import say

    worth = Message.of("hint_worth", worth=Amount(1.5))
    with rig.app.test_request_context("/", headers={"Accept-Language": lang}):
        assert say(worth) == said
    assert worth.to_json() == {"key": "hint_worth", "params": {"worth": 1.5}}


@pytest.mark.parametrize(
    ("lang", "computer", "person"),
    [
        ("en", "Strong computer", "Player 2"),
        ("de", "Starker Computer", "Spieler 2"),
        ("da", "Stærk computer", "Spiller 2"),
    ],
)
def test_unnamed_seats_are_called_in_the_readers_language(
    rig: Rig, client: FlaskClient, lang: str, computer: str, person: str
) -> None:
    from controller.games.perlen.events import BasePearl
    from controller.referee.events import Result
    from controller.referee.snapshot import Status
    from controller.store import PlayerRecord
    from rigs.referee import Play
    from web_ui.render import live_fragments

    # The live page: the pure referee's snapshot, rendered as the page renders it.
    p = Play().new(players=("", "", "Cleo"), computer={"0": "strong"})
    with rig.app.test_request_context("/", headers={"Accept-Language": lang}):
        regions = live_fragments(p.snap)
    assert f"{computer} is thinking" in p.said() or lang != "en"
    assert computer in regions["live-status"] and computer in regions["live-scores"]
    assert person in regions["live-scores"] and "Cleo" in regions["live-scores"]
    # The winner line: the trophy, the winner's pearl, and the robot when the computer won.
    for winner, name, marks in ((0, computer, 3), (2, "Cleo", 2)):
        won = dataclasses.replace(p.snap, over=True, status=Status.OVER, winners=(winner,))
        with rig.app.test_request_context("/", headers={"Accept-Language": lang}):
            status = live_fragments(won)["live-status"]
        line = status.split('class="headline winner"', 1)[1].split("</p>", 1)[0]
        assert name in line and line.count("<svg") == marks
    # A finished game in the store, as history and leaderboard show it; one of an older
    # release stored its computer seat's name in English, and reads the same.
    for stored_name in ("", "Computer (strong)"):
        players = [
            PlayerRecord(0, 0, stored_name, "red", "#d62728", computer="strong"),
            PlayerRecord(1, 1, "", "blue", "#1f77b4"),
            PlayerRecord(2, 2, "Cleo", "yellow", "#f2c500"),
        ]
        g = rig.store.create_game("perlen-pyramide", players, {}, children_help=False)
        rig.store.append(g, [BasePearl("c3", 0)], result=Result((9, 1, 1), (0,), {}))
    headers = {"Accept-Language": lang}
    replay = client.get(f"/history/{g}", headers=headers).get_data(as_text=True)
    assert f"{computer} (R): c3" in replay.split('class="moves"', 1)[1]
    history = client.get("/history", headers=headers).get_data(as_text=True)
    assert history.count(computer) == 4 and history.count(person) == 2  # players, winner
    board = client.get("/leaderboard?game=perlen-pyramide", headers=headers)
    people, computers = board.get_data(as_text=True).split("<h3>", 1)
    # The family's table, then the computers' own: both games' unnamed "strong" in one row.
    assert "Cleo" in people and computer not in people and person not in people
    assert computers.count(computer) == 1 and "Cleo" not in computers
    if lang != "en":
        assert "Player 2" not in history and "Computer (strong)" not in history


HOUSE_RULES = {
    "en": ("Ties", "<strong>shared</strong>", "Running out of pearls", "<strong>strict</strong>",
           "<strong>anywhere</strong>", "<strong>touching</strong>", "<strong>visible</strong>"),
    "de": ("Gleichstand", "<strong>teilen</strong>", "<strong>streng</strong>",
           "<strong>überall</strong>", "<strong>angrenzend</strong>", "<strong>sichtbar</strong>",
           "<strong>alle</strong>"),
    "da": ("Uafgjort", "<strong>delt</strong>", "<strong>streng</strong>",
           "<strong>hvor som helst</strong>", "<strong>nabo</strong>", "<strong>synlige</strong>",
           "<strong>alle</strong>"),
}  # fmt: skip
CODE_NAMES = ("ties = shared", "pools = strict", "start = anywhere", "placement = touching",
              "score = visible", "<code>ties</code>", "<code>pools</code>")  # fmt: skip
"""How the options are written in game records and the API: never on a page."""


@pytest.mark.parametrize("lang", ("en", *LANGUAGES))
def test_house_rules_and_colour_letters_are_in_the_pages_language(
    rig: Rig, client: FlaskClient, lang: str
) -> None:
    """The house rules and their choices by their names in the reader's language, never
    by the code names of records and the API; and a letter per colour that no other
    colour of the palette has in that language: any colours may meet in a game (a
    colour only the config knows has its seat number)."""
    headers = {"Accept-Language": lang}
    rules = client.get("/rules", headers=headers).get_data(as_text=True)
    setup = client.get("/setup", headers=headers).get_data(as_text=True)
    for name in HOUSE_RULES[lang]:
        assert name in rules, name
    for code in CODE_NAMES:
        assert code not in rules and code not in setup, code
    assert "<code>" not in setup
    assert f'<label for="opt-ties">{HOUSE_RULES[lang][0]}</label>' in setup
    if lang == "en":
        return

    with rig.app.test_request_context("/", headers=headers):
        letters = {c.name: render.colour_letter(c.name, c.letter) for c in palette.PALETTE}
    assert len(set(letters.values())) == len(palette.PALETTE), letters
    assert all(1 <= len(x) <= 2 and x.isalpha() for x in letters.values()), letters
    for c in palette.PALETTE:
        assert f"{render_colour(rig, lang, c.name)} ({letters[c.name]})</option>" in setup
    yellow = {"de": "gelb (Ge)", "da": "gul (Gu)"}[lang]
    assert yellow in setup and "(Y)" not in setup + rules
    # Pink's letter is that of the language's own word (never the palette's K, nor P for
    # an English "pink" the page does not say).
    pink = {"de": "rosa (Ro)", "da": "lyserød (Ly)"}[lang]
    assert pink in setup and "(K)" not in setup + rules

    # A game of the colours whose letters changed: the page, its pearls and its words.
    rig.new_perlen(("Anna", "Ben", "Cleo"), colours=("yellow", "pink", "cyan"))
    rig.place("c3")
    rig.wait(lambda s: s["moves"] == 1)
    live = client.get("/", headers=headers).get_data(as_text=True)
    assert f"Anna ({yellow.replace(' (', ', ')}" in live
    assert f">{letters['yellow']}</text>" in live and ">Y</text>" not in live
    assert ">K</text>" not in live and ">C</text>" not in live


def render_colour(rig: Rig, lang: str, name: str) -> str:
    with rig.app.test_request_context("/", headers={"Accept-Language": lang}):
        return render.colour_name(name)

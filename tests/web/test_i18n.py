"""English, German and Danish: every string translated, catalogues compiled and current."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from tests.web.conftest import Rig

WEB = Path(__file__).resolve().parents[2] / "web_ui"
TRANSLATIONS = WEB / "translations"
LANGUAGES = ("de", "da")
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


def _key(value: object) -> object:
    return tuple(value) if isinstance(value, list | tuple) else value


def catalogue(lang: str):
    with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po", "rb") as f:
        return read_po(f)


def test_the_template_lists_every_string_of_the_sources(tmp_path: Path) -> None:
    fresh = tmp_path / "messages.pot"
    pybabel = Path(sys.executable).with_name("pybabel")
    subprocess.run(
        [
            str(pybabel),
            "-q",
            "extract",
            "-F",
            str(WEB / "babel.cfg"),
            "-k",
            "lazy_gettext",
            "-o",
            str(fresh),
            str(WEB),
        ],
        check=True,
        cwd=WEB.parent,
    )
    with open(fresh, "rb") as f:
        wanted = {m.id for m in read_po(f) if m.id}
    with open(TRANSLATIONS / "messages.pot", "rb") as f:
        committed = {m.id for m in read_po(f) if m.id}
    assert wanted == committed, "run pybabel extract/update (see web_ui/babel.cfg)"


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
        wanted = set(PLACEHOLDER.findall(sources[-1]))
        for target in targets:
            assert set(PLACEHOLDER.findall(target)) <= wanted, (message.id, target)
            assert set(PLACEHOLDER.findall(target)) >= wanted - {"num"}, (message.id, target)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_compiled_catalogues_match_the_sources(lang: str) -> None:
    with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.mo", "rb") as f:
        compiled = {_key(m.id): _key(m.string) for m in read_mo(f) if m.id}
    source = {_key(m.id): _key(m.string) for m in catalogue(lang) if m.id}
    assert compiled == source, "run pybabel compile -d web_ui/translations"


def test_pages_speak_the_chosen_language(rig: Rig, client) -> None:
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

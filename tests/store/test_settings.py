"""The household's settings (controller/settings.py) kept in a real SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.settings import (
    LANGUAGE_KEY,
    PIN_HASH_KEY,
    SECRET_KEY,
    VOLUME_KEY,
    WRONG_PINS_KEY,
    SettingError,
    Settings,
    valid_volume,
)
from controller.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "games.sqlite3") as s:
        yield s


def test_a_pin_is_kept_as_a_hash_and_a_new_one_replaces_it(store: Store) -> None:
    settings = Settings(store)
    assert not settings.has_pin() and not settings.check_pin("2468")
    settings.set_pin("2468")
    stored = store.get_setting(PIN_HASH_KEY)
    assert stored is not None and stored.startswith("scrypt:") and "2468" not in stored
    settings.set_pin("135790")
    assert settings.check_pin("135790") and not settings.check_pin("2468")
    # Another Settings over the same file (pyramid pin's process) sees the same PIN.
    assert Settings(store).check_pin("135790")


def test_the_wrong_pins_are_counted_in_the_store_until_a_new_pin(store: Store) -> None:
    settings = Settings(store)
    settings.set_pin("2468")
    assert settings.wrong_pins() == 0
    settings.set_wrong_pins(7)
    assert Settings(store).wrong_pins() == 7  # a restart, or pyramid pin's process
    store.set_setting(WRONG_PINS_KEY, "many")  # damaged: the lockout holds
    assert settings.wrong_pins() >= 10**9
    settings.set_pin("97531")
    assert settings.wrong_pins() == 0


@pytest.mark.parametrize("pin", ["123", "1234567890123", "12a4", "１２３４", " 1234", 1234, None])
def test_a_pin_that_is_not_4_to_12_digits_is_refused_and_changes_nothing(
    store: Store, pin: object
) -> None:
    settings = Settings(store)
    settings.set_pin("2468")
    with pytest.raises(SettingError) as refused:
        settings.set_pin(pin)
    assert refused.value.field == "pin" and "4 to 12 digits" in refused.value.english
    assert settings.check_pin("2468")


def test_malformed_or_damaged_pins_never_unlock(store: Store) -> None:
    settings = Settings(store)
    settings.set_pin("2468")
    assert not any(settings.check_pin(p) for p in (None, 2468, "", "2" * 5000))
    store.set_setting(PIN_HASH_KEY, "scrypt:not-a-hash")
    assert not settings.check_pin("2468")


def test_the_fingerprint_changes_with_the_pin_and_the_secret(store: Store) -> None:
    settings = Settings(store)
    settings.set_pin("2468")
    first = settings.pin_fingerprint("a" * 64)
    assert first == settings.pin_fingerprint("a" * 64) != settings.pin_fingerprint("b" * 64)
    settings.set_pin("2468")  # the same PIN, a new salt: sessions unlocked before end
    assert settings.pin_fingerprint("a" * 64) != first


def test_the_session_secret_is_made_once(store: Store) -> None:
    secret = Settings(store).session_secret()
    assert len(secret) == 64 and store.get_setting(SECRET_KEY) == secret
    assert Settings(store).session_secret() == secret
    store.set_setting(SECRET_KEY, "short")  # damaged: a new one
    assert Settings(store).session_secret() not in ("short", secret)


def test_volume_and_language_default_change_and_survive_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with Store(path) as store:
        settings = Settings(store)
        assert (settings.volume, settings.language) == (100, "en")
        settings.change(volume=0, language="da")
        assert store.get_setting(VOLUME_KEY) == "0" and store.get_setting(LANGUAGE_KEY) == "da"
    with Store(path) as store:
        assert (Settings(store).volume, Settings(store).language) == (0, "da")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"volume": 35}, "volume"),
        ({"volume": 110}, "volume"),
        ({"volume": -10}, "volume"),
        ({"volume": 50.0}, "volume"),
        ({"volume": True}, "volume"),
        ({"volume": "5x"}, "volume"),
        ({"language": "fr"}, "language"),
        ({"language": 1}, "language"),
        ({"language": "de", "volume": 55}, "volume"),  # neither is stored
        ({"language": "xx", "volume": 50}, "language"),
    ],
)
def test_a_refused_change_names_the_setting_and_stores_nothing(
    store: Store, change: dict[str, object], field: str
) -> None:
    settings = Settings(store)
    with pytest.raises(SettingError) as refused:
        settings.change(**change)
    assert refused.value.field == field
    assert store.get_setting(VOLUME_KEY) is None and store.get_setting(LANGUAGE_KEY) is None


def test_values_damaged_in_the_store_read_as_the_defaults(store: Store) -> None:
    store.set_setting(VOLUME_KEY, "loud")
    store.set_setting(LANGUAGE_KEY, "klingon")
    assert (Settings(store).volume, Settings(store).language) == (100, "en")


def test_a_form_field_is_read_as_the_number_it_spells() -> None:
    assert [valid_volume(v) for v in ("0", "60", "100")] == [0, 60, 100]
    with pytest.raises(SettingError):
        valid_volume("0060")


def test_a_refusal_is_worded_in_the_readers_language() -> None:
    german = {"The volume is a whole number of tens from 0 to 100.": "Die Lautstärke …"}
    refused = SettingError("volume", "volume_tens")
    assert refused.render(lambda text: german.get(text, text)) == "Die Lautstärke …"
    assert str(refused) == "volume: The volume is a whole number of tens from 0 to 100."

"""The household's settings: the admin PIN, the buzzer's volume, the default language and
the session secret, typed and checked, kept in the game store's ``settings`` table.

This module owns them: the web page (through the Table), ``pyramid pin`` and the Table
(the volume of each sound) all go through :class:`Settings`, so a value is checked in
one place and stored under one key. Only a hash of the PIN is stored (scrypt, via
werkzeug), never the PIN:

>>> class Ledger(dict):  # the two methods of controller.store.Store used here
...     get_setting, set_setting = dict.get, dict.__setitem__
>>> settings = Settings(Ledger())
>>> first = settings.ensure_pin()     # first start: a new 6-digit PIN, to show once
>>> first is not None and len(first) == 6 and first.isdigit()
True
>>> settings.ensure_pin() is None     # already set: nothing to show
True
>>> settings.set_pin("2468")
>>> settings.check_pin("2468"), settings.check_pin("1357")
(True, False)
>>> settings.set_pin("12a4")
Traceback (most recent call last):
...
controller.settings.SettingError: pin: A PIN is 4 to 12 digits (0–9), nothing else.
>>> settings.volume, settings.language           # until someone sets them
(100, 'en')
>>> settings.change(volume=30, language="da"); settings.volume, settings.language
(30, 'da')
>>> settings.change(volume=35, language="de")    # both checked before either is stored
Traceback (most recent call last):
...
controller.settings.SettingError: volume: The volume is a whole number of tens from 0 to 100.
>>> settings.language
'da'

A refused value raises :class:`SettingError`, which names the setting and says what it
must be as a message key with an English source text (marked for the web page's
catalogues, ``tools/translations.py``): the page shows it in the reader's language,
``pyramid pin`` in English.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable, Mapping
from typing import Final, Protocol

from werkzeug.security import check_password_hash, generate_password_hash

PIN_HASH_KEY: Final = "web.pin_hash"
"""Store key of the werkzeug hash (``scrypt:…``) of the admin PIN."""
SECRET_KEY: Final = "web.session_secret"
"""Store key of the session-cookie signing secret (64 hex digits)."""
LANGUAGE_KEY: Final = "web.language"
"""Store key of the household's default language."""
VOLUME_KEY: Final = "board.volume"
"""Store key of the buzzer's volume in percent (0 mutes it)."""
WRONG_PINS_KEY: Final = "web.pin_wrong"
"""Store key of the count of wrong PINs since the PIN was set (the page's lockout,
``web_ui.security``); setting a PIN resets it."""

PIN_MIN: Final = 4
PIN_MAX: Final = 12
GENERATED_PIN_DIGITS: Final = 6
LANGUAGES: Final = ("en", "de", "da")
"""The languages the page speaks (``web_ui.i18n`` has their names)."""
DEFAULT_LANGUAGE: Final = "en"
DEFAULT_VOLUME: Final = 100

# scrypt with werkzeug's defaults (N=2**15, r=8, p=1): about 0.1 s and 32 MiB per check on
# a Pi 4, which is fine for a PIN entered once per session and costly for a guesser.
_HASH_METHOD: Final = "scrypt"


def N_(text: str) -> str:
    """Marks a source text for the web page's catalogues; the text itself."""
    return text


PROBLEMS: Final[Mapping[str, str]] = {
    "pin_digits": N_("A PIN is 4 to 12 digits (0–9), nothing else."),
    "volume_tens": N_("The volume is a whole number of tens from 0 to 100."),
    "language_known": N_("Choose English, Deutsch or Dansk."),
}
"""What each refusal says, by key: the English source the catalogues translate."""


class SettingError(ValueError):
    """A value a setting cannot take: ``field`` names the setting, ``key`` the problem
    (a key of :data:`PROBLEMS`); :meth:`render` words it in a language."""

    def __init__(self, field: str, key: str) -> None:
        self.field = field
        self.key = key
        super().__init__(f"{field}: {PROBLEMS[key]}")

    def render(self, gettext: Callable[[str], str]) -> str:
        """The problem in the language of ``gettext`` (the page's ``flask_babel.gettext``)."""
        return gettext(PROBLEMS[self.key])

    @property
    def english(self) -> str:
        return PROBLEMS[self.key]


class Ledger(Protocol):
    """The part of :class:`controller.store.Store` that keeps settings."""

    def get_setting(self, key: str) -> str | None: ...

    def set_setting(self, key: str, value: str) -> None: ...


# -- checking values -------------------------------------------------------------------------


def valid_pin(pin: object) -> str:
    """The PIN as text, or :class:`SettingError` when it is not 4 to 12 digits."""
    if (
        not isinstance(pin, str)
        or not PIN_MIN <= len(pin) <= PIN_MAX
        or not pin.isascii()
        or not pin.isdigit()
    ):
        raise SettingError("pin", "pin_digits")
    return pin


def valid_volume(volume: object) -> int:
    """The volume in percent: a whole number of tens from 0 to 100.

    >>> valid_volume(60), valid_volume("60")
    (60, 60)
    >>> valid_volume(60.0)
    Traceback (most recent call last):
    ...
    controller.settings.SettingError: volume: The volume is a whole number of tens from 0 to 100.
    """
    if isinstance(volume, str) and volume.isascii() and volume.isdigit() and len(volume) <= 3:
        volume = int(volume)  # a form's field
    if isinstance(volume, bool) or not isinstance(volume, int):
        raise SettingError("volume", "volume_tens")
    if not 0 <= volume <= 100 or volume % 10:
        raise SettingError("volume", "volume_tens")
    return volume


def valid_language(code: object) -> str:
    """A language the page speaks (``en``, ``de``, ``da``)."""
    if not isinstance(code, str) or code not in LANGUAGES:
        raise SettingError("language", "language_known")
    return code


def generate_pin() -> str:
    """A random 6-digit PIN from the operating system's secure random source."""
    return f"{secrets.randbelow(10**GENERATED_PIN_DIGITS):0{GENERATED_PIN_DIGITS}d}"


# -- the settings ----------------------------------------------------------------------------


class Settings:
    """The household's settings over ``ledger`` (the game store).

    Nothing is cached: another process (``pyramid pin``) may change the PIN while
    ``pyramid run`` serves the page, and the next check must see it.
    """

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    # -- the admin PIN ----------------------------------------------------------------------
    def set_pin(self, pin: object) -> None:
        """Store the hash of ``pin`` (:class:`SettingError` unless 4 to 12 digits); the
        count of wrong PINs starts again (a locked-out page checks PINs again)."""
        hashed = generate_password_hash(valid_pin(pin), _HASH_METHOD)
        self._ledger.set_setting(PIN_HASH_KEY, hashed)
        self.set_wrong_pins(0)

    def wrong_pins(self) -> int:
        """Wrong PINs tried on the page since the PIN was set (a damaged count is taken
        as high as it can be: the lockout holds until ``pyramid pin``)."""
        stored = self._ledger.get_setting(WRONG_PINS_KEY)
        if stored is None:
            return 0
        if not stored.isascii() or not stored.isdigit() or len(stored) > 9:
            return 10**9
        return int(stored)

    def set_wrong_pins(self, count: int) -> None:
        self._ledger.set_setting(WRONG_PINS_KEY, str(max(0, count)))

    def has_pin(self) -> bool:
        return bool(self._ledger.get_setting(PIN_HASH_KEY))

    def ensure_pin(self) -> str | None:
        """On first start, set a generated PIN and return it (to show once); else None."""
        if self.has_pin():
            return None
        pin = generate_pin()
        self.set_pin(pin)
        return pin

    def check_pin(self, pin: object) -> bool:
        """True when ``pin`` is the admin PIN. Malformed input is simply wrong, never an
        error."""
        stored = self._ledger.get_setting(PIN_HASH_KEY)
        if not stored or not isinstance(pin, str) or len(pin) > PIN_MAX:
            return False
        try:
            return check_password_hash(stored, pin)
        except (ValueError, TypeError):  # a damaged hash in the store never unlocks
            return False

    def pin_fingerprint(self, secret: str) -> str:
        """A short keyed digest of the stored PIN hash, kept in an unlocked session.

        A session is unlocked only while its fingerprint matches, so changing the PIN
        locks out every session unlocked with the old one.
        """
        stored = self._ledger.get_setting(PIN_HASH_KEY) or ""
        return hmac.new(secret.encode(), stored.encode(), hashlib.sha256).hexdigest()[:32]

    def session_secret(self) -> str:
        """The session secret; generated (256 bits) and stored on first use."""
        secret = self._ledger.get_setting(SECRET_KEY)
        if secret and len(secret) >= 32:
            return secret
        secret = secrets.token_hex(32)
        self._ledger.set_setting(SECRET_KEY, secret)
        return secret

    # -- the volume and the language ----------------------------------------------------------
    @property
    def volume(self) -> int:
        """The buzzer's volume in percent (100 until someone sets it)."""
        try:
            return valid_volume(self._ledger.get_setting(VOLUME_KEY))
        except SettingError:  # unset, or damaged in the store
            return DEFAULT_VOLUME

    @property
    def language(self) -> str:
        """The household's default language (English until someone sets it)."""
        try:
            return valid_language(self._ledger.get_setting(LANGUAGE_KEY))
        except SettingError:
            return DEFAULT_LANGUAGE

    def change(self, *, volume: object = None, language: object = None) -> None:
        """Set the volume, the language or both; both are checked before either is
        stored, so a refused value changes nothing."""
        checked: dict[str, str] = {}
        if volume is not None:
            checked[VOLUME_KEY] = str(valid_volume(volume))
        if language is not None:
            checked[LANGUAGE_KEY] = valid_language(language)
        for key, value in checked.items():
            self._ledger.set_setting(key, value)

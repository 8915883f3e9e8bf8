"""Languages of the web page: English, German and Danish, via Flask-Babel.

The page speaks, in order of preference: the language this browser chose on the page
(a ``lang`` cookie), else the best match of the browser's ``Accept-Language``, else the
household default from Settings (:attr:`controller.settings.Settings.language`), else
English.

>>> choose_language(cookie="da", accept=(), default="en")
'da'
>>> choose_language(cookie=None, accept=("fr-FR", "de-AT", "en"), default="en")
'de'
>>> choose_language(cookie="xx", accept=("fr",), default="da")
'da'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final, TypeGuard

from controller import settings

NAMES: Final[Mapping[str, str]] = {"en": "English", "de": "Deutsch", "da": "Dansk"}
LANGUAGES: Final[Mapping[str, str]] = {code: NAMES[code] for code in settings.LANGUAGES}
"""Language code -> the language's own name (shown in the chooser, never translated)."""
DEFAULT_LANGUAGE: Final = settings.DEFAULT_LANGUAGE
LANGUAGE_COOKIE: Final = "lang"


def is_language(code: object) -> TypeGuard[str]:
    return isinstance(code, str) and code in LANGUAGES


def choose_language(*, cookie: str | None, accept: Iterable[str], default: str) -> str:
    """The language to answer in; ``accept`` lists the browser's tags, best first."""
    if is_language(cookie):
        assert cookie is not None
        return cookie
    for tag in accept:
        primary = tag.split("-")[0].split("_")[0].strip().lower()
        if primary in LANGUAGES:
            return primary
    return default if is_language(default) else DEFAULT_LANGUAGE

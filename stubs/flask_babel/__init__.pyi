# The part of Flask-Babel (>= 4.0) this project uses, typed. Flask-Babel ships no types.
from collections.abc import Callable
from typing import Any

from babel import Locale
from babel.support import NullTranslations
from flask import Flask

class Babel:
    def __init__(
        self,
        app: Flask | None = ...,
        *,
        locale_selector: Callable[[], str | None] | None = ...,
        **kwargs: Any,
    ) -> None: ...

def gettext(string: str, **variables: Any) -> str: ...
def ngettext(singular: str, plural: str, num: int, **variables: Any) -> str: ...
def lazy_gettext(string: str, **variables: Any) -> LazyString: ...
def get_locale() -> Locale | None: ...
def get_translations() -> NullTranslations: ...

class LazyString:
    def __str__(self) -> str: ...

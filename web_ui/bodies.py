"""The one rule for every JSON write: the body parses, and fits its route's shape.

A body is UTF-8 JSON that parses (:func:`read_json`: no NaN or Infinity, no key twice, no
lone surrogate, nested at most :data:`MAX_DEPTH` deep) and an object whose fields its
route's :class:`Shape` names, each of its JSON type. Anything else is an
:class:`InputError` naming the field, which ``errors.py`` answers with 400
(``docs/api.md``, "Bodies"). :func:`web_ui.auth.require_json_object` applies it to every
request; what the values mean is :mod:`web_ui.forms`' business.

>>> VIRTUAL.check(read_json(b'{"name": "c3", "action": "on"}'))
{'name': 'c3', 'action': 'on'}
>>> VIRTUAL.check(read_json(b'{"name": "c3", "force": true}'))
Traceback (most recent call last):
...
web_ui.bodies.InputError: force: unknown field (known: name, action)
>>> read_json(b'{"pin": NaN}')
Traceback (most recent call last):
...
web_ui.bodies.InputError: body: NaN is not a JSON number
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal


class InputError(ValueError):
    """Input that cannot be used; ``field`` names it (``players[1].name``, or ``body`` for
    the whole body)."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


# -- JSON bodies -----------------------------------------------------------------------------

MAX_DEPTH: Final = 8
"""Arrays and objects nested deeper than this are refused before parsing: the deepest
body any route takes is 3 (a setup's players), and a parser must never recurse on a
stranger's say-so (980 nested brackets made ``json.loads`` raise RecursionError)."""

Kind = Literal["string", "integer", "number", "boolean", "array", "object", "null"]
"""A JSON type, named as JSON Schema names it (``docs/api.md`` uses the same words)."""


def _nesting_over(text: str, limit: int) -> bool:
    """Whether arrays and objects in ``text`` nest deeper than ``limit`` (strings skipped)."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


class _Refused(ValueError):
    """Raised inside the parser's hooks; becomes an :class:`InputError` on ``field``."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field = field
        self.problem = problem


def _no_constant(name: str) -> Any:
    raise _Refused("body", f"{name} is not a JSON number")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise _Refused("body", f"{text[:20]} is too large a number")
    return number


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Refused(key[:40], "is given twice")
        result[key] = value
    return result


def read_json(raw: bytes) -> Any:
    """The JSON value in ``raw``, or :class:`InputError` (field ``body``, or a key given
    twice) saying why not: not UTF-8, nested deeper than :data:`MAX_DEPTH`, not JSON,
    NaN or Infinity, a number too large for a float, a text with a lone surrogate.

    >>> read_json(b'{"led": "c3", "colour": [255, 0, 0]}')
    {'led': 'c3', 'colour': [255, 0, 0]}
    >>> read_json(b"[" * 980 + b"]" * 980)
    Traceback (most recent call last):
    ...
    web_ui.bodies.InputError: body: is nested too deeply (at most 8 levels)
    >>> read_json(b'{"pin": "1", "pin": "2"}')
    Traceback (most recent call last):
    ...
    web_ui.bodies.InputError: pin: is given twice
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError("body", f"is not UTF-8 (byte {exc.start + 1})") from None
    if _nesting_over(text, MAX_DEPTH):
        raise InputError("body", f"is nested too deeply (at most {MAX_DEPTH} levels)")
    try:
        value = json.loads(
            text, parse_constant=_no_constant, parse_float=_finite, object_pairs_hook=_object
        )
    except _Refused as exc:
        raise InputError(exc.field, exc.problem) from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise InputError("body", f"is not JSON: {exc.msg} ({where})") from None
    except (ValueError, RecursionError) as exc:  # an integer of more than 4300 digits
        raise InputError("body", f"cannot be read: {exc}") from None
    _check_texts(value)
    return value


def _check_texts(value: Any) -> None:
    """Refuse ``"\\ud800"``: a lone surrogate is valid JSON but no text (SQLite, the
    page and the log would fail on it later)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            texts = [item]
        elif isinstance(item, dict):
            texts = list(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
            continue
        else:
            continue
        for text in texts:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                raise InputError("body", "holds a lone surrogate (\\ud800–\\udfff)") from None


def _kind(value: object) -> Kind:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    raise TypeError(f"not a JSON value: {type(value).__name__}")  # never from read_json


@dataclass(frozen=True, slots=True)
class Shape:
    """The fields a JSON object may hold, each with the JSON types it may have.

    The one strict rule of every write (``docs/api.md``): a field the shape does not
    name, a field of another type, a required field missing, each is an
    :class:`InputError` naming the field. What the values mean is checked afterwards by
    the ``parse_*`` functions.

    >>> Shape({"pin": ("string",)}, required=("pin",)).check({"pin": 1234})
    Traceback (most recent call last):
    ...
    web_ui.bodies.InputError: pin: must be a string, not an integer
    """

    fields: Mapping[str, tuple[Kind, ...]]
    required: tuple[str, ...] = ()

    def check(self, value: object, where: str = "") -> dict[str, Any]:
        """``value`` as a dict once it fits; ``where`` prefixes field names (``players[1]``)."""
        if not isinstance(value, Mapping):
            raise InputError(where or "body", f"must be a JSON object, not {_a(_kind(value))}")
        prefix = f"{where}." if where else ""
        for key in value:
            if key not in self.fields:
                known = ", ".join(self.fields) or "none: send {} or nothing"
                raise InputError(f"{prefix}{str(key)[:40]}", f"unknown field (known: {known})")
        for key in self.required:
            if key not in value:
                raise InputError(f"{prefix}{key}", "is required")
        for key, item in value.items():
            kinds = self.fields[key]
            if _kind(item) not in kinds:
                wanted = " or ".join(_a(k) for k in kinds)
                raise InputError(f"{prefix}{key}", f"must be {wanted}, not {_a(_kind(item))}")
        return dict(value)


def _a(kind: Kind) -> str:
    return {"integer": "an integer", "array": "an array", "object": "an object"}.get(
        kind, "null" if kind == "null" else f"a {kind}"
    )


EMPTY: Final = Shape({})
"""Commands and ``/api/lock``: ``{}`` or no body at all."""
UNLOCK: Final = Shape({"pin": ("string",)}, required=("pin",))
PIN_CHANGE: Final = Shape({"current": ("string",), "new": ("string",)}, required=("current", "new"))
SETUP: Final = Shape(
    {
        "game": ("string",),
        "players": ("array",),
        "first_seat": ("integer",),
        "options": ("object",),
        "children_help": ("boolean",),
    },
    required=("game", "players"),
)
PLAYER: Final = Shape(
    {
        "name": ("string", "null"),
        "colour": ("string",),
        "computer": ("string", "null"),
        "remote": ("boolean",),
    },
    required=("colour",),  # a name too, unless the seat is a computer's (forms.py)
)
LED_TEST: Final = Shape({"led": ("string",), "colour": ("string", "array"), "stop": ("boolean",)})
VIRTUAL: Final = Shape({"name": ("string",), "action": ("string",)}, required=("name",))
JOIN: Final = Shape({"code": ("string",)}, required=("code",))
SETTINGS: Final = Shape({"language": ("string",), "volume": ("integer",)})
"""At least one of them (``api.py``)."""

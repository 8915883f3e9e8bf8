"""The one rule for every JSON write: the body parses, and fits its route's shape.

A body is UTF-8 JSON that parses (:func:`read_json`: no NaN or Infinity, no key twice, no
lone surrogate, nested at most :data:`MAX_DEPTH` deep) and an object whose fields its
route's model names (:class:`Body`, pydantic: each route's fields declared once below),
each of its JSON type. Anything else is an :class:`InputError` naming every mistake with
its field, which ``errors.py`` answers with 400 (``docs/api.md``, "Bodies").
:func:`web_ui.auth.require_json_object` applies it to every request; what the values
mean is :mod:`web_ui.forms`' business.

>>> check(Virtual, read_json(b'{"name": "c3", "action": "on"}'))
{'name': 'c3', 'action': 'on'}
>>> check(Virtual, read_json(b'{"action": 1, "force": true}'))
Traceback (most recent call last):
...
web_ui.bodies.InputError: force: unknown field (known: name, action); \
name: is required; action: must be a string, not an integer
>>> read_json(b'{"pin": NaN}')
Traceback (most recent call last):
...
web_ui.bodies.InputError: body: NaN is not a JSON number
"""

from __future__ import annotations

import functools
import json
import math
from types import UnionType
from typing import Annotated, Any, Final, Union, cast, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model


class InputError(ValueError):
    """Input that cannot be used; ``field`` names it (``players[1].name``, or ``body`` for
    the whole body), ``mistakes`` are every (field, problem), this one first."""

    def __init__(self, field: str, problem: str, *more: tuple[str, str]) -> None:
        self.mistakes = ((field, problem), *more)
        super().__init__("; ".join(f"{where}: {said}" for where, said in self.mistakes))
        self.field = field
        self.problem = problem


# -- JSON bodies -----------------------------------------------------------------------------

MAX_DEPTH: Final = 8
"""Arrays and objects nested deeper than this are refused before parsing: the deepest
body any route takes is 3 (a setup's players), and a parser must never recurse on a
stranger's say-so (980 nested brackets made ``json.loads`` raise RecursionError)."""


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


# -- the fields of each route ----------------------------------------------------------------


class Body(BaseModel):
    """A JSON object of the fields a route names, each of exactly its JSON type (strict:
    a text is not a number, ``1.0`` not an integer, ``true`` not ``1``); a field it does not
    name is refused. Defaults only mark a field optional: :func:`check` gives what was sent."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Empty(Body):
    """Commands and ``/api/lock``: ``{}`` or no body at all."""


class Unlock(Body):
    pin: str


class PinChange(Body):
    current: str
    new: str


Short = Annotated[str, Field(max_length=200)]
"""Longer text is refused before anything else reads it (a name's own limit is the
referee's, :data:`controller.referee.setup.MAX_NAME`)."""


class Player(Body):
    """A seat of a new game (a name too, unless the seat is a computer's: forms.py)."""

    name: Short | None = None
    colour: Short
    computer: Short | None = None
    remote: bool = False


class Setup(Body):
    """A new game; its ``options`` are the games' (:func:`setup`)."""

    game: str
    players: list[Player]
    first_seat: int = 0
    options: Body = Empty()
    children_help: bool = False


@functools.cache
def setup(options: tuple[str, ...]) -> type[Setup]:
    """:class:`Setup` whose ``options`` are these names, each a string: every game's (the
    referee refuses one its game does not have)."""
    fields: Any = dict.fromkeys(options, (str, ""))
    named = create_model("Options", __base__=Body, **fields)
    return create_model("Setup", __base__=Setup, options=(named, Empty()))


class LedTest(Body):
    led: str = ""
    colour: str | list[Any] = ""
    stop: bool = False


class Virtual(Body):
    name: str
    action: str = ""


class Join(Body):
    code: str


class Settings(Body):
    """At least one of them (``api.py``)."""

    language: str = ""
    volume: int = 0


def check(model: type[Body], value: object) -> dict[str, Any]:
    """The fields ``value`` gave, once it fits ``model``; else an :class:`InputError` naming
    every mistake: unknown fields first, then missing ones, then wrong types."""
    try:
        return model.model_validate(value).model_dump(exclude_unset=True)
    except ValidationError as exc:
        mistakes: dict[str, str] = {}  # a union's members each refuse a field: said once
        order = {"extra_forbidden": 0, "missing": 1}
        for error in sorted(exc.errors(), key=lambda e: order.get(e["type"], 2)):
            mistakes.setdefault(*_said(model, error))
        first, *more = mistakes.items()
        raise InputError(*first, *more) from None


def _said(model: type[Body], error: Any) -> tuple[str, str]:
    """pydantic's ``error`` as (field, problem) in the API's words (the one translation)."""
    loc = tuple(error["loc"])
    field, annotation = _place(model, loc)
    if error["type"] == "extra_forbidden":
        known = ", ".join(_place(model, loc[:-1])[1].model_fields) or "none: send {} or nothing"
        return field, f"unknown field (known: {known})"
    if error["type"] == "missing":
        return field, "is required"
    if error["type"] == "string_too_long":
        return field, f"is too long (at most {error['ctx']['max_length']} characters)"
    wanted = "a JSON object" if annotation is model else " or ".join(_kinds(annotation))
    return field, f"must be {wanted}, not {_A.get(type(error['input']), 'an object')}"


def _place(model: type[Body], loc: tuple[str | int, ...]) -> tuple[str, Any]:
    """The name of the field ``loc`` points at (``players[1].name``; ``body``: the whole
    body) and its declared type."""
    field, annotation = "", cast(Any, model)
    for part in loc:
        if isinstance(part, int):
            field, annotation = f"{field}[{part}]", get_args(annotation)[0]
        elif isinstance(annotation, type) and issubclass(annotation, Body):
            field = f"{field}.{part[:40]}" if field else part[:40]
            annotation = getattr(annotation.model_fields.get(part), "annotation", None)
        else:
            break  # a union's member (``str`` in ``("colour", "str")``): the field itself
    return field or "body", annotation


def _kinds(annotation: Any) -> list[str]:
    """The JSON types a field's declared type takes (``str | None``: a string, null)."""
    if get_origin(annotation) is Annotated:
        return _kinds(get_args(annotation)[0])
    if get_origin(annotation) in (Union, UnionType):
        return [kind for arg in get_args(annotation) for kind in _kinds(arg)]
    return [_A.get(get_origin(annotation) or annotation, "an object")]


_A: Final[dict[object, str]] = {
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    list: "an array",
    dict: "an object",
    type(None): "null",
}
"""A JSON type, named as JSON Schema names it (``docs/api.md`` uses the same words)."""

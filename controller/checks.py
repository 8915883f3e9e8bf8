"""The schema layer's words for a maker's TOML files (the config, the board's geometry).

A file is declared as frozen pydantic dataclasses (``extra="forbid"``: unknown keys
refused), each field once, its range beside its type (``Annotated[float, Range(5, 100)]``)
and the rules across fields in validators that report every problem they find
(:class:`Problems`).
:func:`validate` checks a whole document and raises every mistake at once as
:class:`~controller.hardware.wiring.ConfigErrors`, each naming its dotted key in the words a
maker reads:

>>> from pydantic import ConfigDict
>>> from pydantic.dataclasses import dataclass
>>> @dataclass(frozen=True, config=ConfigDict(extra="forbid"))
... class Board:
...     pitch: Annotated[float, Range(5, 100)] = 25.0
...     label: str = "b"
>>> try:
...     validate(Board, {"pitch": "25", "label": 3, "pitchh": 1})
... except ConfigError as exc:
...     print(exc)
3 mistakes:
  pitch: must be a number, not '25' (text)
  label: must be text in quotes, not 3 (a whole number)
  pitchh: unknown key (expected one of: pitch, label)
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NoReturn, TypeVar, get_args, get_origin

from pydantic import GetCoreSchemaHandler, TypeAdapter, ValidationError
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from controller.hardware.wiring import ConfigError, ConfigErrors

M = TypeVar("M")


def describe(value: object) -> str:
    kinds = {bool: "true/false", int: "a whole number", float: "a number", str: "text"}
    kind = kinds.get(type(value))
    if kind is None:
        kind = "a table" if isinstance(value, dict) else "a list" if isinstance(value, list) else ""
    return f"{value!r}" + (f" ({kind})" if kind else "")


def fail(problem: str) -> NoReturn:
    """Refuse the value being checked, in the maker's words."""
    raise PydanticCustomError("pyramid", "{problem}", {"problem": problem})


def fail_at(key: str, problem: str) -> NoReturn:
    """Refuse the table being checked for its ``key`` (relative; ``""``: the table)."""
    problems = Problems()
    problems.add(key, problem)
    problems.raise_any()
    raise AssertionError  # not reached


class Problems:
    """The rules across the fields of one table: every problem found, raised at once.

    Keys are relative to the table the validator belongs to (``""`` is the table itself).
    """

    def __init__(self) -> None:
        self.found: list[tuple[str, str]] = []

    def add(self, key: str, problem: str) -> None:
        self.found.append((key, problem))

    def raise_any(self) -> None:
        if self.found:
            raise PydanticCustomError(
                "pyramid_rules", "{problem}", {"problem": self.found[0][1], "found": self.found}
            )


def _plain(check: Callable[[Any], Any]) -> CoreSchema:
    return core_schema.no_info_plain_validator_function(check)


@dataclass(frozen=True)
class Range:
    """``low <= value <= high``: a whole number for an ``int`` field, else any number."""

    low: float
    high: float

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return _plain(self.whole if source is int else self.number)

    def whole(self, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            fail(f"must be a whole number, not {describe(value)}")
        if not self.low <= value <= self.high:
            fail(f"must be from {int(self.low)} to {int(self.high)}, not {value}")
        return value

    def number(self, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            fail(f"must be a number, not {describe(value)}")
        if not self.low <= value <= self.high:
            fail(f"must be from {self.low:g} to {self.high:g}, not {value:g}")
        return float(value)


def text(value: object) -> str:
    if not isinstance(value, str):
        fail(f"must be text in quotes, not {describe(value)}")
    return value


@dataclass(frozen=True)
class Text:
    """Text in quotes, stripped; blank, it is refused with ``empty`` (a problem)."""

    empty: str

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return _plain(self.check)

    def check(self, value: object) -> str:
        result = text(value).strip()
        if not result:
            fail(self.empty)
        return result


@dataclass(frozen=True)
class Items:
    """A list of ``low`` to ``high`` items (``noun`` counts them, ``kind`` says what)."""

    low: int
    high: int
    noun: str
    kind: str

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        def check(value: object, inner: core_schema.ValidatorFunctionWrapHandler) -> Any:
            if value == ():  # a value built by code, without these (a file gives lists)
                return value
            if not isinstance(value, list | tuple):  # a tuple: a value built by code
                fail(f"must be {self.kind}, not {describe(value)}")
            if not self.low <= len(value) <= self.high:
                count = f"{self.low}" if self.low == self.high else f"{self.low} to {self.high}"
                fail(f"must list {count} {self.noun}, not {len(value)}")
            return inner(value)

        return core_schema.no_info_wrap_validator_function(check, handler(source))


@dataclass(frozen=True)
class Shaped:
    """A value read from another type, ``inner``, checked first: ``read(value, inner)``
    checks the value's shape, has ``inner`` check the rest and builds the value."""

    inner: Any
    read: Callable[[Any, Callable[[Any], Any]], Any]

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        inner = handler.generate_schema(self.inner)
        return core_schema.no_info_wrap_validator_function(self.read, inner)


class Key:
    """A field that is its table's name in the table above (``[magnets.NAME]``), not a key."""


@dataclass(frozen=True)
class Missing:
    """What a required key's absence says (``is required`` otherwise)."""

    problem: str


# -- every mistake, with its dotted key ------------------------------------------------------


def validate(
    model: type[M],
    data: Mapping[str, Any],
    context: Any = None,
    errors: type[ConfigErrors] = ConfigErrors,
) -> M:
    """``model`` (a model or a pydantic dataclass) checked from a parsed TOML document, or
    ``errors`` (:class:`ConfigErrors`) with every mistake."""
    try:
        return TypeAdapter(model).validate_python(data, context=context)
    except ValidationError as exc:
        found = [e for error in exc.errors() for e in _errors(model, error)]
        raise errors(tuple(found)) from None


def dotted(loc: tuple[str | int, ...]) -> str:
    key = ""
    for part in loc:
        key += f"[{part}]" if isinstance(part, int) else f".{part}" if key else part
    return key


def _errors(root: type, error: Any) -> list[ConfigError]:
    (*_, table), loc = _walk(root, tuple(error["loc"]))
    kind, ctx, value, key = error["type"], error.get("ctx") or {}, error.get("input"), dotted(loc)
    if kind == "pyramid_rules":
        return [ConfigError(dotted((*loc, *([k] if k else []))), p) for k, p in ctx["found"]]
    if kind in ("pyramid_unresolved", "default_factory_not_called"):
        return []  # follows from a mistake reported in its own place
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        fields = _fields(table).items()
        allowed = ", ".join(n for n, f in fields if not any(isinstance(m, Key) for m in f.metadata))
        return [ConfigError(key, f"unknown key (expected one of: {allowed})")]
    if kind in ("model_type", "dict_type", "model_attributes_type", "dataclass_type",
                "dataclass_args_type"):  # fmt: skip
        return [ConfigError(key, f"must be a table, not {describe(value)}")]
    if kind.startswith("union_tag"):  # a tagged union's tag, ``kind = "reed"``
        tag = ctx["discriminator"].strip("'")
        key, value, ctx = f"{key}.{tag}", value.get(tag), {"expected": ctx.get("expected_tags")}
        kind = "literal_error" if tag in error["input"] else "missing"
    if kind == "string_type" or (kind == "literal_error" and not isinstance(value, str)):
        return [ConfigError(key, f"must be text in quotes, not {describe(value)}")]
    if kind == "literal_error":  # pydantic's "'a', 'b' or 'c'"
        choices = ctx["expected"].replace(" or ", ", ")
        return [ConfigError(key, f"must be one of {choices}, not {value!r}")]
    if kind in ("missing", "missing_argument"):
        field = _fields(table).get(str(loc[-1]))
        said = [m.problem for m in (field.metadata if field else ()) if isinstance(m, Missing)]
        return [ConfigError(key, said[0] if said else "is missing")]
    return [ConfigError(key, ctx.get("problem", error["msg"]))]


def _fields(table: Any) -> dict[str, Any]:
    """The declared keys of a model or pydantic dataclass."""
    return dict(getattr(table, "__pydantic_fields__", None) or {})


def _walk(root: type, loc: tuple[str | int, ...]) -> tuple[list[Any], tuple[str | int, ...]]:
    """The tables (model or dataclass; None: not one) each key of ``loc`` is in, and
    ``loc`` without the tags pydantic puts in it for a tagged union's member."""
    annotation: Any = root
    tables: list[Any] = [None]
    kept: list[str | int] = []
    for part in loc:
        members = _tables_in(annotation)
        tagged = [m for m in members if len(members) > 1 and part in _tags(m)]
        if tagged:  # not a key of the file: the member ``kind = part`` chose
            annotation = tagged[0]
            continue
        table = members[0] if members else None
        field = _fields(table).get(str(part))
        annotation = field.annotation if field is not None else _item_of(annotation)
        tables.append(table)
        kept.append(part)
    return tables, tuple(kept)


def _tables_in(annotation: Any) -> list[Any]:
    if isinstance(annotation, type) and _fields(annotation):
        return [annotation]
    args = get_args(annotation) if get_origin(annotation) in _UNIONS else ()
    return [table for arg in args for table in _tables_in(arg)]


def _tags(table: Any) -> tuple[object, ...]:
    """The values of a table's one-value ``Literal`` keys (a tagged union's tag)."""
    return tuple(
        get_args(f.annotation)[0] for f in _fields(table).values()
        if get_origin(f.annotation) is Literal and len(get_args(f.annotation)) == 1
    )  # fmt: skip


def _item_of(annotation: Any) -> Any:
    """The value type of a ``dict[str, X]`` or ``tuple[X, ...]`` (None otherwise)."""
    for arg in get_args(annotation) if get_origin(annotation) in _UNIONS else (annotation,):
        if get_origin(arg) is dict:
            return get_args(arg)[1]
        if get_origin(arg) is tuple:
            return get_args(arg)[0]
    return None


_UNIONS = (typing.Union, types.UnionType, Annotated)

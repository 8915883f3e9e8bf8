"""Reading what people send: JSON bodies, the new-game setup, LED tests, virtual-board
presses, settings.

Every function takes untrusted input (the bytes of a body, a form or a JSON object) and
returns a checked, frozen value or raises :class:`InputError` naming the field and saying
what is wrong, which the views answer with 400. Nothing here talks to the Table.

One rule for every JSON write (``docs/api.md``): the body is UTF-8 JSON that parses
(:func:`read_json`: no NaN or Infinity, no key twice, nested at most
:data:`MAX_DEPTH` deep), and it is an object whose fields its route's :class:`Shape`
names, each of its JSON type; anything else is a 400 naming the field:

>>> VIRTUAL.check(read_json(b'{"name": "c3", "action": "on"}'))
{'name': 'c3', 'action': 'on'}
>>> VIRTUAL.check(read_json(b'{"name": "c3", "force": true}'))
Traceback (most recent call last):
...
web_ui.forms.InputError: force: unknown field (known: name, action)
>>> read_json(b'{"pin": NaN}')
Traceback (most recent call last):
...
web_ui.forms.InputError: body: NaN is not a JSON number

The setup, once its shape holds, is checked for what the game needs:

>>> setup = parse_setup({"game": "perlen-pyramide", "first_seat": 1,
...     "players": [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"},
...                 {"name": "Cleo", "colour": "yellow", "computer": "easy"}]},
...     levels=("easy", "strong"))
>>> [p.name for p in setup.players], setup.first_seat, setup.computer
(['Anna', 'Ben', 'Cleo'], 1, {2: 'easy'})
>>> parse_setup({"game": "pyramidos", "players": [{"name": "Anna", "colour": "red"}]})
Traceback (most recent call last):
...
web_ui.forms.InputError: players: Pyramidos is for 2 to 4 players, not 1
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from controller import palette
from controller.hardware.channels import BUTTONS, CELLS, LED_NAMES, TARGETS
from controller.rules import perlen, pyramidos
from controller.rules.records import PERLEN, PYRAMIDOS

GAMES: Final = (PERLEN, PYRAMIDOS)
NAME_MAX: Final = 24
PERLEN_OPTIONS: Final = ("ties", "pools", "start", "placement", "score")
PYRAMIDOS_OPTIONS: Final = ("variant",)
VIRTUAL_ACTIONS: Final = ("toggle", "on", "off", "press", "clear")


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
    web_ui.forms.InputError: body: is nested too deeply (at most 8 levels)
    >>> read_json(b'{"pin": "1", "pin": "2"}')
    Traceback (most recent call last):
    ...
    web_ui.forms.InputError: pin: is given twice
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
    web_ui.forms.InputError: pin: must be a string, not an integer
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
    {"name": ("string",), "colour": ("string",), "computer": ("string", "null")},
    required=("name", "colour"),
)
LED_TEST: Final = Shape({"led": ("string",), "colour": ("string", "array"), "stop": ("boolean",)})
VIRTUAL: Final = Shape({"name": ("string",), "action": ("string",)}, required=("name",))
SETTINGS: Final = Shape({"language": ("string",)}, required=("language",))


@dataclass(frozen=True, slots=True)
class SeatSetup:
    """One player at the table."""

    seat: int
    """The physical seat (0–3), which is also the seat LED."""
    name: str
    colour: str
    """A palette colour name (``red``)."""
    computer: str | None = None
    """A computer level for a computer seat, None for a person."""


@dataclass(frozen=True, slots=True)
class GameSetup:
    """A checked new game, ready to become the Table's ``NewGame`` command."""

    game: str
    players: tuple[SeatSetup, ...]
    first_seat: int
    options: Mapping[str, Any] = field(default_factory=dict)
    """The game's options as its engine reads them (``from_dict``), ``first_seat`` included."""
    children_help: bool = False

    @property
    def computer(self) -> dict[int, str]:
        """Seat -> level for the computer seats."""
        return {p.seat: p.computer for p in self.players if p.computer is not None}


def _text(value: object, field: str, *, limit: int = 200) -> str:
    if not isinstance(value, str):
        raise InputError(field, "must be text")
    text = value
    if len(text) > limit:
        raise InputError(field, f"is too long (at most {limit} characters)")
    return text


def _whole(value: object, field: str, low: int, high: int) -> int:
    if isinstance(value, bool):
        raise InputError(field, f"must be a whole number from {low} to {high}")
    if isinstance(value, str):
        value = value.strip()
        if not value.isascii() or not value.lstrip("-").isdigit() or len(value) > 6:
            raise InputError(field, f"must be a whole number from {low} to {high}")
        value = int(value)
    if not isinstance(value, int) or not low <= value <= high:
        raise InputError(field, f"must be a whole number from {low} to {high}, not {value!r}")
    return value


def _flag(value: object, field: str) -> bool:
    """A checkbox (``on``/absent) or a JSON boolean."""
    if value is None or value is False or value in ("", "0", "off", "false"):
        return False
    if value is True or value in ("1", "on", "true", "yes"):
        return True
    raise InputError(field, "must be true or false")


def clean_name(value: object, field: str) -> str:
    """A player's name: 1 to 24 printable characters, spaces trimmed and squeezed."""
    text = _text(value, field, limit=200)
    text = unicodedata.normalize("NFC", " ".join(text.split()))
    if not text:
        raise InputError(field, "is empty")
    if len(text) > NAME_MAX:
        raise InputError(field, f"is too long (at most {NAME_MAX} characters)")
    for char in text:
        if unicodedata.category(char).startswith("C"):
            raise InputError(field, "contains a control or unassigned character")
    return text


def parse_setup(raw: object, *, levels: Sequence[str] = ()) -> GameSetup:
    """A new game from a JSON object (:data:`SETUP`; ``players`` a list of :data:`PLAYER`).

    ``levels`` are the computer levels on offer (``controller.bot.LEVELS``); with none, no
    seat may be a computer.
    """
    body = SETUP.check(raw)
    game = body["game"]
    if game not in GAMES:
        raise InputError("game", f"must be {PERLEN!r} or {PYRAMIDOS!r}")
    players_raw: list[Any] = body["players"]
    if game == PERLEN and len(players_raw) != perlen.COLOURS:
        raise InputError(
            "players", f"Perlen-Pyramide is for exactly 3 players, not {len(players_raw)}"
        )
    if game == PYRAMIDOS and not pyramidos.MIN_SEATS <= len(players_raw) <= pyramidos.MAX_SEATS:
        raise InputError("players", f"Pyramidos is for 2 to 4 players, not {len(players_raw)}")
    players: list[SeatSetup] = []
    for seat, item in enumerate(players_raw):
        where = f"players[{seat}]"
        one = PLAYER.check(item, where)
        name = clean_name(one["name"], f"{where}.name")
        colour_name = _text(one["colour"], f"{where}.colour", limit=40)
        try:
            colour = palette.by_name(colour_name)
        except palette.PaletteError as exc:
            raise InputError(f"{where}.colour", str(exc)) from None
        computer = one.get("computer")
        if computer in (None, "", "person"):
            computer = None
        elif game != PERLEN:
            raise InputError(f"{where}.computer", "the computer plays Perlen-Pyramide only")
        elif computer not in levels:
            offered = ", ".join(levels) or "none on this board"
            raise InputError(f"{where}.computer", f"must be a level ({offered})")
        players.append(SeatSetup(seat, name, colour.name, computer))
    lowered = [p.name.casefold() for p in players]
    for i, name in enumerate(lowered):
        if name in lowered[:i]:
            raise InputError(f"players[{i}].name", "two players cannot have the same name")
    try:
        palette.check_distinct(palette.by_name(p.colour) for p in players)
    except palette.PaletteError as exc:
        raise InputError("players", str(exc)) from None
    if all(p.computer is not None for p in players):
        raise InputError("players", "at least one player must be a person")
    first_seat = _whole(body.get("first_seat", 0), "first_seat", 0, len(players) - 1)
    allowed = PERLEN_OPTIONS if game == PERLEN else PYRAMIDOS_OPTIONS
    shape = Shape(dict.fromkeys(allowed, ("string",)))
    options_raw = shape.check(body.get("options", {}), "options")
    options = {**options_raw, "first_seat": first_seat}
    try:
        if game == PERLEN:
            options = perlen.PerlenOptions.from_dict(options).to_dict()
        else:
            options = pyramidos.PyramidosOptions.from_dict(len(players), options).to_dict()
    except perlen.OptionError as exc:
        raise InputError(f"options.{exc.key}", str(exc)) from None
    except pyramidos.SetupError as exc:
        raise InputError("options", str(exc)) from None
    children_help = body.get("children_help", False)
    if children_help and game != PERLEN:
        raise InputError("children_help", "only Perlen-Pyramide has help for children")
    return GameSetup(game, tuple(players), first_seat, options, children_help)


def setup_from_form(form: Mapping[str, str], *, levels: Sequence[str] = ()) -> GameSetup:
    """The same from the setup page's form fields (``name_0``, ``colour_0``, …): a form
    sends only text, so its numbers and checkboxes are read here, then the JSON rule holds."""
    game = form.get("game", "")
    if game == PERLEN:
        count = perlen.COLOURS
    else:
        count = _whole(form.get("seats", "2"), "seats", pyramidos.MIN_SEATS, pyramidos.MAX_SEATS)
    players = []
    for seat in range(count):
        players.append(
            {
                "name": form.get(f"name_{seat}", ""),
                "colour": form.get(f"colour_{seat}", ""),
                "computer": form.get(f"computer_{seat}") or None,
            }
        )
    names = PERLEN_OPTIONS if game == PERLEN else PYRAMIDOS_OPTIONS
    options = {key: form[key] for key in names if form.get(key)}
    seats = len(players) - 1
    return parse_setup(
        {
            "game": game,
            "players": players,
            "first_seat": _whole(form.get("first_seat", "0"), "first_seat", 0, seats),
            "options": options,
            "children_help": game == PERLEN and _flag(form.get("children_help"), "children_help"),
        },
        levels=levels,
    )


# -- the virtual board ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VirtualPress:
    """One touch on the virtual board: a cell, a target or a button."""

    name: str
    action: str
    """``toggle``, ``on``, ``off`` (cells and targets) or ``press`` (buttons)."""


def parse_virtual(raw: object, channels: Sequence[str]) -> VirtualPress:
    """``{"name": "c3", "action": "toggle"}`` (or ``{"name": "board", "action": "clear"}``:
    every pearl and ball off); ``channels`` are this board's names."""
    raw = VIRTUAL.check(raw)
    name = raw["name"]
    if name == "board":
        if raw.get("action") != "clear":
            raise InputError("action", "the whole board can only be cleared")
        return VirtualPress("board", "clear")
    if not isinstance(name, str) or name not in CELLS + TARGETS + BUTTONS:
        raise InputError("name", "must be a base cell (a1–e5), a target (t1–t4, top) or a button")
    if name not in channels:
        raise InputError("name", f"this board has no sensor {name}")
    action = raw.get("action", "press" if name in BUTTONS else "toggle")
    if action not in VIRTUAL_ACTIONS:
        raise InputError("action", f"must be one of {', '.join(VIRTUAL_ACTIONS)}")
    if name in BUTTONS and action != "press":
        raise InputError("action", "a button can only be pressed")
    if name not in BUTTONS and action == "press":
        raise InputError("action", "cells and targets are toggled, set on or set off")
    if action == "clear":
        raise InputError("action", "only the whole board is cleared (name: board)")
    return VirtualPress(name, action)


# -- LED tests -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LedTestRequest:
    led: str | None
    """An LED name, or None for all of them in turn."""
    colour: tuple[int, int, int] | None
    """The colour to show, or None to stop the test."""


def parse_colour(value: object, field: str) -> tuple[int, int, int]:
    """``#rrggbb``, a palette name, or ``[r, g, b]``."""
    if isinstance(value, str):
        text = value.strip()
        if len(text) == 7 and text[0] == "#":
            try:
                return (int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16))
            except ValueError:
                pass
        elif text == "white":
            return (255, 255, 255)
        else:
            try:
                return palette.by_name(text).rgb
            except palette.PaletteError:
                pass
        raise InputError(field, "must be #rrggbb, white or a colour name")
    if isinstance(value, list) and len(value) == 3:
        parts = [_whole(v, field, 0, 255) for v in value]
        return (parts[0], parts[1], parts[2])
    raise InputError(field, "must be #rrggbb, a colour name or [r, g, b]")


def parse_led_test(raw: Mapping[str, Any], leds: Sequence[str]) -> LedTestRequest:
    """``{"led": "c3", "colour": "#ff0000"}``, ``{"led": "all", ...}`` or ``{"stop": true}``
    (a JSON body after :data:`LED_TEST`, or the diagnostics page's form)."""
    if not isinstance(raw, Mapping):
        raise InputError("body", "must be an object")
    if _flag(raw.get("stop"), "stop"):
        for other in ("led", "colour"):
            if raw.get(other) not in (None, ""):
                raise InputError(other, "means nothing with stop: a stop ends every LED test")
        return LedTestRequest(None, None)
    led = raw.get("led", "all")
    if led in (None, "", "all"):
        name = None
    elif isinstance(led, str) and led in LED_NAMES and led in leds:
        name = led
    else:
        raise InputError("led", "must be 'all' or the name of one of this board's LEDs")
    return LedTestRequest(name, parse_colour(raw.get("colour", "white"), "colour"))

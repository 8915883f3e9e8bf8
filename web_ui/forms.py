"""Reading what people send: the new-game setup, LED tests, virtual-board presses.

Every function takes untrusted input (a form or a JSON object) and
returns a checked, frozen value or raises :class:`InputError` naming the field and saying
what is wrong, which the views answer with 400. Nothing here talks to the Table.

A JSON body has passed its route's :class:`~web_ui.bodies.Shape` first (the one rule of
every write, :mod:`web_ui.bodies`); here its values are checked for what they mean:

>>> setup = parse_setup({"game": "perlen-pyramide", "first_seat": 1,
...     "players": [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"},
...                 {"name": "Cleo", "colour": "yellow", "computer": "easy"}]},
...     levels=("easy", "strong"))
>>> [p.name for p in setup.players], setup.first_seat, setup.computer
(['Anna', 'Ben', 'Cleo'], 1, {2: 'easy'})
>>> parse_setup({"game": "pyramidos", "players": [{"name": "Anna", "colour": "red"}]})
Traceback (most recent call last):
...
web_ui.bodies.InputError: players: Pyramidos is for 2 to 4 players, not 1
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from controller import palette
from controller.hardware.channels import BUTTONS, CELLS, LED_NAMES, TARGETS
from controller.rules import perlen, pyramidos
from controller.rules.records import PERLEN, PYRAMIDOS
from web_ui.bodies import PLAYER, SETUP, VIRTUAL, Shape
from web_ui.bodies import InputError as InputError  # the views catch forms.InputError

GAMES: Final = (PERLEN, PYRAMIDOS)
NAME_MAX: Final = 24
PERLEN_OPTIONS: Final = ("ties", "pools", "start", "placement", "score")
PYRAMIDOS_OPTIONS: Final = ("variant",)
VIRTUAL_ACTIONS: Final = ("toggle", "on", "off", "press", "clear")


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
    """A player's name: at most 24 printable characters, spaces trimmed and squeezed;
    empty for a seat without one."""
    text = _text(value, field, limit=200)
    text = unicodedata.normalize("NFC", " ".join(text.split()))
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
        # A seat may go without a name: the page calls it "Player 2" or "Computer (strong)"
        # in each reader's language (controller.referee.session.default_name).
        raw_name = one.get("name")
        name = "" if raw_name is None else clean_name(raw_name, f"{where}.name")
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
        if name and name in lowered[:i]:
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

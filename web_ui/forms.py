"""Reading what people send: the new-game setup, LED tests, virtual-board presses.

Every function takes untrusted input (a form or a JSON object) and turns its text into
values, or raises :class:`InputError` naming the field when it cannot (a number that is
not one, a field the route does not know). What the values *mean* is not decided here:
the rules of a new game (how many players, names, colours, computer seats, options) are
the referee's setup check (:func:`controller.referee.setup.check`), whose refusal names
the field and says why in the reader's language. Nothing here talks to the Table.

A JSON body is checked against its route's model first (:mod:`web_ui.bodies`, the one rule
of every write), here for a new game, whose options are the games':

>>> from controller.games.registry import GAMES
>>> setup = parse_setup({"game": "perlen-pyramide", "first_seat": 1,
...     "players": [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"},
...                 {"name": "Cleo", "colour": "yellow", "computer": "easy"}]}, GAMES)
>>> [p.name for p in setup.players], setup.options, setup.computer
(['Anna', 'Ben', 'Cleo'], {'first_seat': 1}, {2: 'easy'})
>>> parse_setup({"game": "pyramidos", "players": [{"name": 5, "colour": "red"}]}, GAMES)
Traceback (most recent call last):
...
web_ui.bodies.InputError: players[0].name: must be a string or null, not an integer
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from controller import palette
from controller.hardware.channels import BUTTONS, CELLS, LED_NAMES, TARGETS
from controller.referee.game import GameKind
from web_ui.bodies import InputError as InputError  # the views catch forms.InputError
from web_ui.bodies import Virtual, check, setup

VIRTUAL_ACTIONS: Final = ("toggle", "on", "off", "press", "clear")


@dataclass(frozen=True, slots=True)
class SeatForm:
    """One seat as the form gives it."""

    seat: int
    """The physical seat (0–3), which is also the seat LED."""
    name: str
    colour: str
    """A palette colour name (``red``), as given."""
    computer: str | None = None
    """A computer level for a computer seat, None for a person."""
    remote: bool = False
    """The seat plays on another board (a game linked through the broker)."""


@dataclass(frozen=True, slots=True)
class GameForm:
    """A new game as the page or the API sent it, read into values (not yet checked:
    the Table's ``NewGame`` command is, by the referee)."""

    game: str
    players: tuple[SeatForm, ...]
    options: Mapping[str, str | int] = field(default_factory=dict)
    """The game's options by name, ``first_seat`` included when it was given."""
    children_help: bool = False

    @property
    def computer(self) -> dict[int, str]:
        """Seat -> level for the computer seats."""
        return {p.seat: p.computer for p in self.players if p.computer is not None}

    @property
    def remote(self) -> tuple[int, ...]:
        """The seats that play on another board."""
        return tuple(p.seat for p in self.players if p.remote)


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


def parse_setup(raw: object, games: Mapping[str, GameKind]) -> GameForm:
    """A new game of one of ``games`` from a JSON object (:class:`~web_ui.bodies.Setup`
    with every game's options: the referee refuses one its game does not have)."""
    options = dict.fromkeys(name for kind in games.values() for name in kind.option_names)
    body = check(setup(tuple(options)), raw)
    players = tuple(
        # A seat may go without a name: the page calls it "Player 2" or "Computer (strong)"
        # in each reader's language (controller.referee.players.default_name).
        SeatForm(
            seat,
            one.get("name") or "",
            one["colour"],
            None if one.get("computer") in (None, "", "person") else one["computer"],
            one.get("remote", False),
        )
        for seat, one in enumerate(body["players"])
    )
    chosen: dict[str, str | int] = dict(body.get("options", {}))
    if "first_seat" in body:
        chosen["first_seat"] = body["first_seat"]
    return GameForm(body["game"], players, chosen, body.get("children_help", False))


def _played_by(value: str | None) -> str | None:
    """The computer level the form's "Played by" chose, or None (a person here or there)."""
    return None if value in (None, "", "remote") else value


def setup_from_form(form: Mapping[str, str], games: Mapping[str, GameKind]) -> GameForm:
    """The same from the setup page's form fields (``name_0``, ``colour_0``, …): a form
    sends only text, so its numbers and checkboxes are read here, then the JSON rule holds."""
    game = form.get("game", "")
    kind = games.get(game)
    if kind is None:  # the referee says which games there are
        return parse_setup({"game": game, "players": []}, games)
    seats = kind.seats
    count = seats[0] if len(seats) == 1 else _whole(form.get("seats", "2"), "seats", 1, 4)
    players = [
        {
            "name": form.get(f"name_{seat}", ""),
            "colour": form.get(f"colour_{seat}", ""),
            # "Played by": a person here, a computer level, or a person on another board.
            "computer": _played_by(form.get(f"computer_{seat}")),
            "remote": form.get(f"computer_{seat}") == "remote",
        }
        for seat in range(count)
    ]
    helps = kind.children_help_refused() is None  # the form sends every game's fields
    return parse_setup(
        {
            "game": game,
            "players": players,
            "first_seat": _whole(form.get("first_seat", "0"), "first_seat", 0, 3),
            "options": {key: form[key] for key in kind.option_names if form.get(key)},
            "children_help": helps and _flag(form.get("children_help"), "children_help"),
        },
        games,
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
    raw = check(Virtual, raw)
    name = raw["name"]
    if name == "board":
        if raw.get("action") != "clear":
            raise InputError("action", "the whole board can only be cleared")
        return VirtualPress("board", "clear")
    if name not in CELLS + TARGETS + BUTTONS:
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
    (a JSON body after :class:`~web_ui.bodies.LedTest`, or the diagnostics page's form)."""
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

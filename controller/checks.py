"""Checks for values read from a maker's TOML file (the config, the board's geometry).

Each returns the value in the type wanted or raises :class:`ConfigError` naming the dotted
key and what is wrong, so a maker can find the line to fix:

>>> number("25", "board.pitch", 5, 100)
Traceback (most recent call last):
  ...
controller.hardware.wiring.ConfigError: board.pitch: must be a number, not '25' (text)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from controller.hardware.wiring import ConfigError

__all__ = ["choice", "describe", "integer", "known", "number", "string", "table"]


def describe(value: object) -> str:
    kinds = {bool: "true/false", int: "a whole number", float: "a number", str: "text"}
    kind = kinds.get(type(value))
    if kind is None:
        kind = "a table" if isinstance(value, dict) else "a list" if isinstance(value, list) else ""
    return f"{value!r}" + (f" ({kind})" if kind else "")


def known(table: Mapping[str, Any], prefix: str, allowed: tuple[str, ...]) -> None:
    for key in table:
        if key not in allowed:
            dotted = f"{prefix}.{key}" if prefix else key
            raise ConfigError(dotted, f"unknown key (expected one of: {', '.join(allowed)})")


def table(value: object, key: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(key, f"must be a table, not {describe(value)}")
    return cast(dict[str, Any], value)


def string(value: object, key: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(key, f"must be text in quotes, not {describe(value)}")
    return value


def choice(value: object, key: str, choices: tuple[str, ...]) -> str:
    text = string(value, key)
    if text not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ConfigError(key, f"must be one of {options}, not {text!r}")
    return text


def integer(value: object, key: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, f"must be a whole number, not {describe(value)}")
    if not low <= value <= high:
        raise ConfigError(key, f"must be from {low} to {high}, not {value}")
    return value


def number(value: object, key: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(key, f"must be a number, not {describe(value)}")
    number = float(value)
    if not low <= number <= high:
        raise ConfigError(key, f"must be from {low:g} to {high:g}, not {number:g}")
    return number

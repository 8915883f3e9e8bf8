"""What a step of the link tells its owner happened, in the order it happened."""

from __future__ import annotations

from dataclasses import dataclass

from controller.remote.wire import JsonObject, OtherVersion, Reason

__all__ = ["Acknowledged", "Delivered", "Ignored", "OtherVersion", "Outcome"]


@dataclass(frozen=True, slots=True)
class Delivered:
    """The other board's event number ``seq``: apply it (each comes once, in order)."""

    seq: int
    event: JsonObject


@dataclass(frozen=True, slots=True)
class Acknowledged:
    """The other board has applied this board's events up to ``upto``: keep the mark."""

    upto: int


@dataclass(frozen=True, slots=True)
class Ignored:
    """A message that was dropped (and counted), and why."""

    reason: Reason
    detail: str


Outcome = Delivered | Acknowledged | Ignored | OtherVersion
"""``OtherVersion``: the other board speaks another protocol version (said once per change)."""

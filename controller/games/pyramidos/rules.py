"""Pyramidos (HABA 2003), as RULES.md states it: the controller sees landings and scores.

Events are :class:`Land`, :class:`Leave` and :class:`EndTurn`; :func:`apply` returns the
next immutable :class:`PyramidosState` or raises :class:`ImpossibleEventError`.

>>> state = new_game(seats=2)
>>> for text in ("land t1", "land t2", "land t3", "land t4"):
...     state = apply(state, parse_event(text))
>>> state.top_open, state.to_move
(True, 0)
>>> state = apply(state, parse_event("land top"))
>>> outcome(state).points, outcome(state).winners
((4, 2), (0,))
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from controller.rules import records
from controller.rules.notation import BASE_TARGETS, TARGETS, NotationError, Target, parse_target

MIN_SEATS = 2
MAX_SEATS = 4
BALLS_PER_SEAT = 5
BASE_POINTS = 1
TOP_POINTS = 2


class ImpossibleEventError(ValueError):
    """An event that cannot happen in a game of Pyramidos; the message says why."""


NAME: Final = "pyramidos"
"""The game's name, as records, the store and the page name it."""


class SetupError(records.OptionError):
    """A game that cannot be set up (wrong number of seats, unknown option); ``key``
    names the option or the setting (``seats``) that is wrong, the message says why."""

    def __init__(self, key: str, message: str) -> None:
        ValueError.__init__(self, message)
        self.key = key


@dataclass(frozen=True, slots=True)
class Land:
    """A ball came to rest on ``target`` during the turn of the seat to move."""

    target: Target

    def __str__(self) -> str:
        return f"land {self.target}"


@dataclass(frozen=True, slots=True)
class Leave:
    """The ball on ``target`` was knocked off."""

    target: Target

    def __str__(self) -> str:
        return f"leave {self.target}"


@dataclass(frozen=True, slots=True)
class EndTurn:
    """The turn ended without a landing (the ball rests on earth or fell into the net)."""

    def __str__(self) -> str:
        return "end"


Event = Land | Leave | EndTurn


def parse_event(text: str) -> Event:
    """Parse ``land t1``, ``leave top`` or ``end`` strictly.

    >>> parse_event("leave t3")
    Leave(target=<Target.T3: 't3'>)
    """
    if not isinstance(text, str):
        raise NotationError(f"an event must be text like 'land t1', not {text!r}")
    words = text.split(" ")
    if words == ["end"]:
        return EndTurn()
    if len(words) == 2 and words[0] in ("land", "leave"):
        target = parse_target(words[1])
        return Land(target) if words[0] == "land" else Leave(target)
    raise NotationError(f"{text!r} is not an event (expected 'land T', 'leave T' or 'end')")


class Variant(enum.Enum):
    """The published variant for skilful players; only recorded."""

    STANDARD = "standard"
    SKILFUL = "skilful"
    """Without the big ball, or nudging with the other hand."""


@dataclass(frozen=True, slots=True)
class PyramidosOptions:
    game: ClassVar[str] = NAME
    """The game these options are for (as records and the store name it)."""
    seats: int = 2
    """2 to 4 players."""
    first_seat: int = 0
    """The seat that starts."""
    variant: Variant = Variant.STANDARD

    def __post_init__(self) -> None:
        if isinstance(self.seats, bool) or not isinstance(self.seats, int):
            raise SetupError(
                "seats", f"seats must be a whole number from 2 to 4, not {self.seats!r}"
            )
        if not MIN_SEATS <= self.seats <= MAX_SEATS:
            raise SetupError("seats", f"Pyramidos is for 2 to 4 players, not {self.seats}")
        if isinstance(self.first_seat, bool) or self.first_seat not in range(self.seats):
            raise SetupError(
                "first_seat",
                f"first_seat must be a seat from 0 to {self.seats - 1}, not {self.first_seat!r}",
            )

    @classmethod
    def from_dict(cls, seats: Any, raw: Mapping[str, Any]) -> PyramidosOptions:
        if not isinstance(raw, Mapping):
            raise SetupError("options", "options must be an object of option names and values")
        values: dict[str, Any] = {"seats": seats}
        for key, value in raw.items():
            if key == "first_seat":
                values[key] = value
            elif key == "variant":
                try:
                    values[key] = Variant(value)
                except ValueError:
                    raise SetupError(
                        "variant",
                        f"option 'variant' must be 'standard' or 'skilful', not {value!r}",
                    ) from None
            else:
                raise SetupError(
                    str(key)[:30], f"unknown option {key!r} (known: first_seat, variant)"
                )
        return cls(**values)

    def to_dict(self) -> dict[str, str | int]:
        return {"first_seat": self.first_seat, "variant": self.variant.value}


@dataclass(frozen=True, slots=True)
class PyramidosState:
    options: PyramidosOptions
    owners: tuple[int | None, int | None, int | None, int | None, int | None]
    """The seat whose ball rests on t1, t2, t3, t4 and top (None: empty)."""
    to_move: int
    """The seat whose turn it is (after the end: the seat that would have been next)."""
    over: bool = False

    def owner(self, target: Target) -> int | None:
        return self.owners[TARGETS.index(target)]

    @property
    def top_open(self) -> bool:
        """The top can be reached: all four base targets hold a ball."""
        return all(o is not None for o in self.owners[:4])

    def targets(self) -> dict[str, int | None]:
        return {str(t): o for t, o in zip(TARGETS, self.owners, strict=True)}


def new_game(seats: int = 2, options: PyramidosOptions | None = None) -> PyramidosState:
    opts = options or PyramidosOptions(seats=seats)
    return PyramidosState(opts, (None, None, None, None, None), opts.first_seat)


def _next(state: PyramidosState) -> int:
    return (state.to_move + 1) % state.options.seats


def apply(state: PyramidosState, event: Event) -> PyramidosState:
    """The state after ``event``; :class:`ImpossibleEventError` when it cannot happen."""
    if state.over:
        raise ImpossibleEventError(f"{event}: the game is over (a ball rests on the top)")
    if isinstance(event, EndTurn):
        return PyramidosState(state.options, state.owners, _next(state))
    slot = TARGETS.index(event.target)
    owners = list(state.owners)
    if isinstance(event, Land):
        if owners[slot] is not None:
            raise ImpossibleEventError(f"{event}: {event.target} already holds a ball")
        if event.target is Target.TOP and not state.top_open:
            raise ImpossibleEventError(
                f"{event}: the top is closed until all four base targets hold a ball"
            )
        owners[slot] = state.to_move
        over = event.target is Target.TOP
        return PyramidosState(state.options, _five(owners), _next(state), over)
    if owners[slot] is None:
        raise ImpossibleEventError(f"{event}: there is no ball on {event.target}")
    owners[slot] = None
    return PyramidosState(state.options, _five(owners), state.to_move)


def _five(
    owners: list[int | None],
) -> tuple[int | None, int | None, int | None, int | None, int | None]:
    a, b, c, d, e = owners
    return (a, b, c, d, e)


@dataclass(frozen=True, slots=True)
class PyramidosOutcome:
    points: tuple[int, ...]
    """Points of each seat: 1 per base ball, 2 for the top."""
    over: bool
    winners: tuple[int, ...]
    """Seats with most points once the game is over (a draw is a shared win)."""


def outcome(state: PyramidosState) -> PyramidosOutcome:
    points = [0] * state.options.seats
    for target, owner in zip(TARGETS, state.owners, strict=True):
        if owner is not None:
            points[owner] += TOP_POINTS if target is Target.TOP else BASE_POINTS
    winners: tuple[int, ...] = ()
    if state.over:
        best = max(points)
        winners = tuple(s for s, p in enumerate(points) if p == best)
    return PyramidosOutcome(tuple(points), state.over, winners)


def legal_events(state: PyramidosState) -> tuple[Event, ...]:
    """Every event that can happen now (for the virtual board and tests)."""
    if state.over:
        return ()
    events: list[Event] = [EndTurn()]
    for target in BASE_TARGETS:
        events.append(Leave(target) if state.owner(target) is not None else Land(target))
    if state.top_open:
        events.append(Land(Target.TOP))
    return tuple(events)

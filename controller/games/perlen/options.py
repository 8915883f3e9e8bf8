"""The options of a Perlen-Pyramide game: the house rules and variants chosen at setup
(RULES.md names them), read strictly from a record or a form.

Below the pyramid's integers (:mod:`controller.games.perlen.pyramid`, whose
:class:`~controller.games.perlen.pyramid.Rules` a game's options make) and the rules
(:mod:`controller.games.perlen.rules`, which offers these names too): it imports neither.

>>> PerlenOptions.from_dict({"start": "centre"}).start
<Start.CENTRE: 'centre'>
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from controller.rules import records

COLOURS: Final = 3
"""Perlen-Pyramide is for exactly three players; colour = turn-order number 0, 1, 2."""


# -- options -----------------------------------------------------------------------------


class Ties(enum.Enum):
    """House rule for players level on score."""

    SHARED = "shared"
    """They share the win (default)."""
    TOTAL = "total"
    """Break the tie by total pearls in the pyramid, then share."""


class Pools(enum.Enum):
    """House rule for the 25 pearls per colour."""

    STRICT = "strict"
    """A bonus owed to an empty colour passes on; a player with none left passes."""
    UNLIMITED = "unlimited"
    """Ignore the pools (sets with spare pearls)."""


class Start(enum.Enum):
    """House variant for the first pearl."""

    ANYWHERE = "anywhere"
    CENTRE = "centre"
    """"Centre start": the first pearl must go on c3."""


class Placement(enum.Enum):
    """House variant for where base pearls may go."""

    TOUCHING = "touching"
    """Every base pearl after the first touches an occupied cell (default)."""
    FREE = "free"
    """"Open placement": any empty cell."""


class Score(enum.Enum):
    """House variant for what scores."""

    VISIBLE = "visible"
    """The 41 pearls visible from outside (default)."""
    ALL = "all"
    """"Every pearl counts": all 55."""


NAME: Final = "perlen-pyramide"
"""The game's name, as records, the store and the page name it."""


class OptionError(records.OptionError):
    """Game options that are not understood; ``key`` names the bad one."""


_ENUM_OPTIONS: dict[str, type[enum.Enum]] = {
    "ties": Ties,
    "pools": Pools,
    "start": Start,
    "placement": Placement,
    "score": Score,
}


@dataclass(frozen=True, slots=True)
class PerlenOptions:
    """The house rules and variants chosen at setup (RULES.md names them)."""

    game: ClassVar[str] = NAME
    """The game these options are for (as records and the store name it)."""
    ties: Ties = Ties.SHARED
    pools: Pools = Pools.STRICT
    start: Start = Start.ANYWHERE
    placement: Placement = Placement.TOUCHING
    score: Score = Score.VISIBLE
    first_seat: int = 0
    """The seat at the table that starts and so plays colour 0 (seats are 0, 1, 2)."""

    def __post_init__(self) -> None:
        if isinstance(self.first_seat, bool) or self.first_seat not in range(COLOURS):
            raise OptionError("first_seat", f"must be 0, 1 or 2, not {self.first_seat!r}")

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> PerlenOptions:
        """Options from a record or a form; unknown keys and values are errors.

        >>> PerlenOptions.from_dict({"pools": "unlimited"}).pools
        <Pools.UNLIMITED: 'unlimited'>
        """
        if not isinstance(raw, Mapping):
            raise OptionError("options", "must be an object of option names and values")
        values: dict[str, Any] = {}
        for key, value in raw.items():
            if key == "first_seat":
                values[key] = value
                continue
            kind = _ENUM_OPTIONS.get(key)
            if kind is None:
                known = ", ".join([*_ENUM_OPTIONS, "first_seat"])
                raise OptionError(key, f"unknown option (known: {known})")
            try:
                values[key] = kind(value)
            except ValueError:
                allowed = " or ".join(repr(m.value) for m in kind)
                raise OptionError(key, f"must be {allowed}, not {value!r}") from None
        return cls(**values)

    def to_dict(self) -> dict[str, str | int]:
        return {
            "ties": self.ties.value,
            "pools": self.pools.value,
            "start": self.start.value,
            "placement": self.placement.value,
            "score": self.score.value,
            "first_seat": self.first_seat,
        }

    def seat_of(self, colour: int) -> int:
        """The seat at the table that plays ``colour``."""
        return (self.first_seat + colour) % COLOURS

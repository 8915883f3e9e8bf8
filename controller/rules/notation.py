"""Board notation of RULES.md: base cells, pyramid positions, Pyramidos targets.

Positions are named by layer and the lowest file and rank of their footprint:

>>> parse_position("c3")
Position(layer=1, file=2, rank=2)
>>> str(parse_position("2:b3")), parse_position("2:b3").short
('2:b3', '2:b3')
>>> parse_position("1:c3").short
'c3'
>>> [str(p) for p in parse_position("3:a1").supports]
['2:a1', '2:b1', '2:a2', '2:b2']
>>> parse_position("3:a1").footprint_name
'a1–c3'
>>> parse_position("5:b1")
Traceback (most recent call last):
...
controller.rules.notation.NotationError: '5:b1': layer 5 has only a1

Every position of the pyramid exists once, as a shared value, so positions compare by
identity as well as by value and the engine can index tables by :attr:`Position.index`.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

FILES = "abcde"
LAYERS = 5
"""Layer 1 is the 5×5 base; layer 5 the apex."""


class NotationError(ValueError):
    """A position, target or event that is not written as RULES.md says."""


def layer_size(layer: int) -> int:
    """Cells along one side of ``layer``: 5 for the base, 1 for the apex."""
    return LAYERS + 1 - layer


@dataclass(frozen=True, slots=True)
class Position:
    """A place in the pyramid: a base cell or the place of a bonus pearl."""

    layer: int
    """1 (the 5×5 base) to 5 (the apex)."""
    file: int
    """0 for file ``a``; the footprint's lowest file."""
    rank: int
    """0 for rank ``1``; the footprint's lowest rank."""
    index: int = field(default=-1, compare=False, repr=False)
    """Place in reading order, 0–54 (lower layer, then rank, then file)."""

    def __str__(self) -> str:
        return f"{self.layer}:{FILES[self.file]}{self.rank + 1}"

    @property
    def short(self) -> str:
        """``c3`` for a base cell, ``2:b3`` above it."""
        cell = f"{FILES[self.file]}{self.rank + 1}"
        return cell if self.layer == 1 else f"{self.layer}:{cell}"

    @property
    def cell(self) -> str:
        """The base cell under this position's lowest corner, e.g. ``b3`` for ``2:b3``."""
        return f"{FILES[self.file]}{self.rank + 1}"

    @property
    def supports(self) -> tuple[Position, ...]:
        """The four pearls this one rests on, in reading order (empty on the base)."""
        if self.layer == 1:
            return ()
        below = self.layer - 1
        f, r = self.file, self.rank
        return tuple(position(below, f + df, r + dr) for dr in (0, 1) for df in (0, 1))

    @property
    def footprint(self) -> tuple[str, ...]:
        """The base cells under this position (``layer``×``layer`` of them), reading order."""
        n = self.layer
        return tuple(
            f"{FILES[self.file + df]}{self.rank + dr + 1}" for dr in range(n) for df in range(n)
        )

    @property
    def footprint_name(self) -> str:
        """``c3`` for a base cell, ``a1–c3`` for ``3:a1``."""
        if self.layer == 1:
            return self.cell
        last = self.layer - 1
        return f"{self.cell}–{FILES[self.file + last]}{self.rank + last + 1}"

    @property
    def visible(self) -> bool:
        """On the outer ring of its layer, so seen from outside the finished pyramid."""
        edge = layer_size(self.layer) - 1
        return self.file in (0, edge) or self.rank in (0, edge)


def _all_positions() -> tuple[Position, ...]:
    out: list[Position] = []
    for layer in range(1, LAYERS + 1):
        n = layer_size(layer)
        for rank in range(n):
            for file in range(n):
                out.append(Position(layer, file, rank, len(out)))
    return tuple(out)


POSITIONS: tuple[Position, ...] = _all_positions()
"""All 55 positions in reading order; ``POSITIONS[p.index] is p``."""
BASE: tuple[Position, ...] = POSITIONS[:25]
"""The 25 base cells in reading order."""
APEX: Position = POSITIONS[-1]
_BY_KEY: dict[tuple[int, int, int], Position] = {(p.layer, p.file, p.rank): p for p in POSITIONS}


def position(layer: int, file: int, rank: int) -> Position:
    """The shared :class:`Position` value; :class:`NotationError` when it does not exist."""
    try:
        return _BY_KEY[(layer, file, rank)]
    except KeyError:
        raise NotationError(f"no position at layer {layer}, file {file}, rank {rank}") from None


_POSITION_RE = re.compile(r"(?:([1-9]):)?([a-z])([1-9])")


def parse_position(text: str) -> Position:
    """Parse ``c3``, ``1:c3``, ``2:b3`` … ``5:a1`` strictly (lower case, no spaces)."""
    if not isinstance(text, str):
        raise NotationError(f"a position must be text like 'c3' or '2:b3', not {text!r}")
    m = _POSITION_RE.fullmatch(text)
    if m is None:
        raise NotationError(f"{text!r} is not a position (write a cell like 'c3' or '2:b3')")
    layer = int(m.group(1) or 1)
    if not 1 <= layer <= LAYERS:
        raise NotationError(f"{text!r}: there are layers 1 to {LAYERS} only")
    n = layer_size(layer)
    file = ord(m.group(2)) - ord("a")
    rank = int(m.group(3)) - 1
    if file >= n or rank >= n:
        last = f"{FILES[n - 1]}{n}"
        span = "a1" if n == 1 else f"a1 to {last}"
        raise NotationError(f"{text!r}: layer {layer} has only {span}")
    return _BY_KEY[(layer, file, rank)]


def parse_cell(text: str) -> Position:
    """Parse a base cell (``c3`` or ``1:c3``); a higher layer is an error."""
    pos = parse_position(text)
    if pos.layer != 1:
        raise NotationError(f"{text!r} is not a base cell (pearls are only placed on layer 1)")
    return pos


class Target(enum.Enum):
    """Pyramidos landing places: four base targets and the top."""

    T1 = "t1"
    T2 = "t2"
    T3 = "t3"
    T4 = "t4"
    TOP = "top"

    def __str__(self) -> str:
        return self.value

    @property
    def is_top(self) -> bool:
        return self is Target.TOP


BASE_TARGETS: tuple[Target, ...] = (Target.T1, Target.T2, Target.T3, Target.T4)
TARGETS: tuple[Target, ...] = (*BASE_TARGETS, Target.TOP)


def parse_target(text: str) -> Target:
    """Parse ``t1``–``t4`` or ``top``."""
    if isinstance(text, str):
        for target in TARGETS:
            if target.value == text:
                return target
    raise NotationError(f"{text!r} is not a target (expected t1, t2, t3, t4 or top)")

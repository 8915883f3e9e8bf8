"""What each channel and LED of a board *means*: the meaning layer over the Board port.

Channel names: base cells ``a1``–``e5``, Pyramidos targets ``t1``–``t4`` and ``top``, and
buttons ``button:confirm``, ``button:end_turn``, ``button:undo``. LED names: the same,
plus ``seat:0``–``seat:3`` (whose turn).

>>> cmap = ChannelMap.build({"t1": 0, "t2": 1, "t3": 2, "t4": 3, "top": 4}, {"t1": 0})
>>> sorted(cmap.names_of(frozenset({0, 4})))
['t1', 'top']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from controller.rules.notation import FILES
from controller.vocabulary import BUTTONS, CELLS, SEATS, TARGETS

__all__ = [
    "BUTTONS",
    "CELLS",
    "CHANNEL_NAMES",
    "FILES",
    "LED_NAMES",
    "MATRIX_WIDTH",
    "SEATS",
    "TARGETS",
    "ChannelMap",
    "ChannelMapError",
]

MATRIX_WIDTH = 6
"""Columns of the diode matrix (Pi and Pico): channel = row × 6 + column."""

CHANNEL_NAMES: frozenset[str] = frozenset(CELLS + TARGETS + BUTTONS)
LED_NAMES: frozenset[str] = frozenset(CELLS + TARGETS + BUTTONS + SEATS)


class ChannelMapError(ValueError):
    """A channel or LED map that names something wrongly; ``key`` says where."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


def _invert(
    section: str, mapping: Mapping[str, int], known: frozenset[str]
) -> tuple[dict[str, int], dict[int, str]]:
    by_name: dict[str, int] = {}
    by_index: dict[int, str] = {}
    for name, index in mapping.items():
        key = f"{section}.{name}"
        if name not in known:
            raise ChannelMapError(key, f"unknown name {name!r} (expected one of {_hint(known)})")
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise ChannelMapError(key, f"must be a whole number from 0 up, not {index!r}")
        if index in by_index:
            raise ChannelMapError(
                key, f"number {index} is already used by {section}.{by_index[index]}"
            )
        by_name[name] = index
        by_index[index] = name
    return by_name, by_index


def _hint(known: frozenset[str]) -> str:
    return "a1–e5, t1–t4, top, button:confirm, button:end_turn, button:undo" + (
        ", seat:0–seat:3" if "seat:0" in known else ""
    )


def _complete_group(
    section: str, present: Iterable[str], group: tuple[str, ...], what: str
) -> None:
    present = set(present)
    used = present.intersection(group)
    if used and len(used) != len(group):
        missing = [n for n in group if n not in present]
        raise ChannelMapError(
            f"{section}.{missing[0]}",
            f"missing: {', '.join(missing)} ({what} needs all of {group[0]}–{group[-1]})",
        )


@dataclass(frozen=True)
class ChannelMap:
    """Channel numbers and LED numbers by name, both ways."""

    channel_by_name: Mapping[str, int]
    name_by_channel: Mapping[int, str]
    led_by_name: Mapping[str, int]
    name_by_led: Mapping[int, str]

    @classmethod
    def build(cls, channels: Mapping[str, int], leds: Mapping[str, int]) -> ChannelMap:
        """Check and build a map; a :class:`ChannelMapError` names the bad key."""
        ch_by_name, ch_by_index = _invert("channels", channels, CHANNEL_NAMES)
        led_by_name, led_by_index = _invert("leds", leds, LED_NAMES)
        if not ch_by_name:
            raise ChannelMapError("channels", "names no channel at all")
        _complete_group("channels", ch_by_name, CELLS, "the base")
        _complete_group("channels", ch_by_name, TARGETS, "the targets")
        if not (set(CELLS) <= ch_by_name.keys() or set(TARGETS) <= ch_by_name.keys()):
            raise ChannelMapError(
                "channels", "needs the 25 cells a1–e5, or the targets t1–t4 and top, or both"
            )
        return cls(ch_by_name, ch_by_index, led_by_name, led_by_index)

    @classmethod
    def default(cls, *, cells: bool = True, targets: bool = True) -> ChannelMap:
        """Cells first, then targets, then buttons; LEDs likewise, then seats."""
        names = (CELLS if cells else ()) + (TARGETS if targets else ()) + BUTTONS
        return cls.build(
            {n: i for i, n in enumerate(names)},
            {n: i for i, n in enumerate(names + SEATS)},
        )

    @classmethod
    def matrix(cls) -> ChannelMap:
        """The 6 × 6 diode matrix's numbering, the same behind a Pi and a Pico: the
        switch at row r, column c is channel r × 6 + c; rows 0–4 are the ranks 1–5 and
        columns 0–4 the files a–e, column 5 holds the targets t1–t4 and the top, row 5
        the buttons (channels 30–32; 33–35 spare). The LED chain snakes through the grid
        from a1 (rank 1 left to right, rank 2 right to left, …), then the targets, the
        buttons and the seats.

        >>> cmap = ChannelMap.matrix()
        >>> cmap.channel("a2"), cmap.channel("t1"), cmap.channel("top"), cmap.led("e2")
        (6, 5, 29, 5)
        """
        channels: dict[str, int] = {}
        for rank in range(5):
            for col, file in enumerate(FILES):
                channels[f"{file}{rank + 1}"] = rank * MATRIX_WIDTH + col
            channels[TARGETS[rank]] = rank * MATRIX_WIDTH + len(FILES)
        for col, button in enumerate(BUTTONS):
            channels[button] = 5 * MATRIX_WIDTH + col
        snake = [
            f"{file}{rank + 1}"
            for rank in range(5)
            for file in (FILES if rank % 2 == 0 else FILES[::-1])
        ]
        order = snake + list(TARGETS) + list(BUTTONS) + list(SEATS)
        return cls.build(channels, {name: i for i, name in enumerate(order)})

    @property
    def channel_count(self) -> int:
        return max(self.name_by_channel) + 1

    @property
    def led_count(self) -> int:
        return max(self.name_by_led) + 1 if self.name_by_led else 0

    @property
    def has_cells(self) -> bool:
        return "a1" in self.channel_by_name

    @property
    def has_targets(self) -> bool:
        return "t1" in self.channel_by_name

    def names_of(self, active: Iterable[int]) -> frozenset[str]:
        """Names of the active channels (unmapped channel numbers are ignored)."""
        names = self.name_by_channel
        return frozenset(names[c] for c in active if c in names)

    def channel(self, name: str) -> int:
        try:
            return self.channel_by_name[name]
        except KeyError:
            raise KeyError(f"no channel is mapped to {name!r}") from None

    def led(self, name: str) -> int | None:
        """The LED number for ``name``, or None when the board has no such LED."""
        return self.led_by_name.get(name)

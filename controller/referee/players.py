"""Who plays: the players of the game on the table, and what an unnamed seat is called.

Values below the seam (:mod:`controller.referee.protocol` names :class:`Player` as what a
game seats): this module imports nothing of the referee but its words and what it reads of
a kept game.

>>> from controller.palette import by_name
>>> anna = Player(0, 0, "Anna", by_name("red"))
>>> anna.colour.hex, anna.light
('#d62728', Light(seat=0, rgb=(214, 39, 40)))
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from controller.guidance import Light
from controller.palette import PaletteColour, PaletteError, by_name, parse_hex
from controller.referee.kept import PlayerRow
from controller.referee.kept import Seated as Seated  # the page names players so too
from controller.referee.messages import Message, Param, Term

_OLD_COMPUTER_NAME: Final = re.compile(r"Computer (?:\d )?\((\w+)\)")
"""How releases before 0.3 named an unnamed computer seat, in English, in the store."""


def unnamed(player: Seated) -> bool:
    """The seat was left without a name: it goes by a default one in the reader's
    language (a computer seat's old English default counts as none)."""
    if not player.name:
        return True
    match = _OLD_COMPUTER_NAME.fullmatch(player.name)
    return match is not None and match.group(1) == player.computer


def default_name(player: Seated, players: Iterable[Seated]) -> Message | None:
    """``Strong computer`` or ``Player 3`` for an unnamed seat, as a message (the reader's
    language renders it); None for a named one. Two unnamed computers of one level are
    told apart by their seats."""
    if not unnamed(player):
        return None
    level = player.computer
    if level is None:
        return Message.of("player_name", seat=player.seat + 1)
    twins = sum(1 for p in players if p.computer == level and unnamed(p))
    if twins > 1:
        return Message.of("computer_name_seat", seat=player.seat + 1, computer=computer_term(level))
    return Message.of("computer_name", computer=computer_term(level))


def computer_term(level: str) -> Term:
    """``Strong computer``: an unnamed computer seat's name (a level the vocabulary does
    not know keeps its own word)."""
    return Term("computer", level)


def called(player: Seated, players: Iterable[Seated]) -> Param:
    """The player's name, or the default name of an unnamed seat."""
    return default_name(player, players) or player.name


@dataclass(frozen=True, slots=True)
class Player:
    """A player of the current game."""

    number: int
    """The index the game's states and the snapshot use: a colour in turn order, or the
    seat (each game says which, :meth:`~controller.referee.protocol.GameKind.seated`)."""
    seat: int
    """The physical seat, whose LED ``seat:N`` lights on this player's turn."""
    name: str
    colour: PaletteColour
    computer: str | None = None
    """The level of a computer seat, None for a person."""
    remote: bool = False
    """The player plays on another board, linked through a broker (:mod:`controller.remote`):
    their moves arrive from there and are placed here by hand, as a computer seat's are."""

    @property
    def light(self) -> Light:
        return Light(self.seat, self.colour.rgb)

    @classmethod
    def from_record(cls, record: PlayerRow) -> Player:
        """The player as stored; a colour only that game's config knew keeps its rgb."""
        rgb = parse_hex(record.hex)
        try:
            colour = by_name(record.colour)
        except PaletteError:
            seat = record.seat
            colour = PaletteColour(record.colour, str(seat + 1), rgb, f"seat{seat + 1}")
        if colour.rgb != rgb:  # a configured colour that shares a palette name
            colour = dataclasses.replace(colour, rgb=rgb)
        return cls(record.number, record.seat, record.name, colour, record.computer)


def players_from(records: Sequence[PlayerRow]) -> tuple[Player, ...]:
    return tuple(Player.from_record(r) for r in records)

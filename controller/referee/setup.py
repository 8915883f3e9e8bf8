"""A new game, checked: names, colours, computer seats and options, before anything starts.

>>> from controller.games.registry import GAMES
>>> from controller.referee.state import RefereeConfig
>>> config = RefereeConfig(games=GAMES, levels=("easy",))
>>> setup = check(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"),
...                       options={"first_seat": 1}), config)
>>> [(p.number, p.seat, p.name, p.colour.name) for p in setup.players]
[(0, 1, 'Ben', 'blue'), (1, 2, 'Cleo', 'yellow'), (2, 0, 'Anna', 'red')]
>>> check(NewGame("pyramidos", ("Anna",)), config)
Traceback (most recent call last):
...
controller.referee.messages.Refused: Pyramidos is for 2 to 4 players, not 1.
"""

from __future__ import annotations

import dataclasses
import functools
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Final, TypeVar

from controller.palette import PaletteColour, PaletteError, by_name
from controller.referee.commands import NewGame
from controller.referee.messages import Items, Message, Param, Refused, Term, colour_term
from controller.referee.players import Player, unnamed
from controller.referee.protocol import GameKind, Options
from controller.referee.session import CheckedSetup, Session
from controller.referee.state import RefereeConfig
from controller.rules.records import OptionError

T = TypeVar("T")

MAX_NAME: Final = 24
"""The longest name a player may have (the setup page's field says the same)."""


def _no(field: str, message: str, **params: Param) -> Refused:
    return Refused(Message.of(message, **params), field)


def check(command: NewGame, config: RefereeConfig) -> CheckedSetup:
    """The game ``command`` asks for, or :class:`Refused` saying what is wrong and in which
    field. Every rule of a new game is here: the page's form only reads its text."""
    kind = config.games.get(command.game) if isinstance(command.game, str) else None
    if kind is None:
        games = Items(tuple(Term("game", name) for name in config.games))
        raise _no("game", "choose_game", games=games)
    missing = kind.missing_sensors(config.sensors)
    if missing is not None:
        raise Refused(missing, "game")
    raw_names = command.players
    if not isinstance(raw_names, Sequence) or isinstance(raw_names, str):
        raise _no("players", "players_list")
    seats = len(raw_names)
    wrong = kind.seats_wrong(seats)
    if wrong is not None:
        raise Refused(wrong, "players")
    # The form's mistakes from here on are found all at once, so the family mends them
    # together: each part is read on its own, and a part that fails counts as empty.
    found: list[Refused] = []
    levels = config.levels
    computer: dict[int, str] = _part(
        found, lambda: _computer(kind, command.computer, seats, levels), {}
    )
    names = _names(raw_names, found)
    colours = _colours(command.colours, seats, config, found)
    options = _part(found, lambda: _options(kind, command.options, seats), None)
    refused = kind.children_help_refused()
    if command.children_help and refused is not None:
        found.append(Refused(refused, "children_help"))
    remote = _part(found, lambda: _remote(kind, command.remote, seats, computer), frozenset[int]())
    if found:
        first, *others = found
        raise Refused(first.message, first.field, tuple(others))
    assert options is not None  # read without a mistake
    players = tuple(
        dataclasses.replace(p, remote=True) if p.seat in remote else p
        for p in kind.seated(options, names, colours, computer)
    )
    return CheckedSetup(kind, players, options, bool(command.children_help))


def again(session: Session) -> NewGame:
    """The same game once more, the next seat starting."""
    by_seat = sorted(session.players, key=lambda p: p.seat)
    options = session.options.to_dict()
    options["first_seat"] = (session.options.first_seat + 1) % len(by_seat)
    return NewGame(
        game=session.kind.name,
        players=tuple(_named(p) for p in by_seat),
        options=options,
        children_help=session.children_help,
        computer={p.seat: p.computer for p in by_seat if p.computer is not None},
        colours=tuple(p.colour.name for p in by_seat),
        remote=tuple(p.seat for p in by_seat if p.remote),
    )


def _named(player: Player) -> str:
    """The name to ask for again: an unnamed seat stays unnamed."""
    return "" if unnamed(player) else player.name


def _computer(kind: GameKind, raw: object, seats: int, levels: tuple[str, ...]) -> dict[int, str]:
    if not isinstance(raw, Mapping):
        raise _no("players", "computer_seats")
    if not raw:
        return {}
    out: dict[int, str] = {}
    for key, level in raw.items():
        seat = int(key) if isinstance(key, str) and key.isdigit() else key
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
            raise _no("players", "computer_seat_bad", seat=str(key)[:10], seats=seats)
        field = f"players[{seat}].computer"
        refused = kind.computer_refused()
        if refused is not None:
            raise Refused(refused, field)
        if not levels:
            raise _no(field, "computer_not_installed")
        if level not in levels:
            choices = Items(tuple(Term("level", name) for name in levels))
            raise _no(field, "computer_level_bad", levels=choices)
        out[seat] = level
    if len(out) == seats:
        raise _no("players", "one_person")
    return out


def _remote(kind: GameKind, raw: object, seats: int, computer: Mapping[int, str]) -> frozenset[int]:
    """The seats that play on another board: persons, and not every seat."""
    if isinstance(raw, str) or not isinstance(raw, Sequence):
        raise _no("players", "remote_seats")
    out: set[int] = set()
    for seat in raw:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
            raise _no("players", "remote_seat_bad", seat=str(seat)[:10], seats=seats)
        field = f"players[{seat}].remote"
        refused = kind.remote_refused()
        if refused is not None:
            raise Refused(refused, field)
        if seat in computer:
            raise _no(field, "remote_computer")
        out.add(seat)
    if out and len(out) + len(computer) >= seats:
        raise _no("players", "remote_one_here")
    return frozenset(out)


def _part(found: list[Refused], read: Callable[[], T], instead: T) -> T:
    """What ``read`` reads, or ``instead`` with its refusal added to ``found``."""
    try:
        return read()
    except Refused as why:
        found.append(why)
        return instead


def _names(raw_names: Sequence[object], found: list[Refused]) -> list[str]:
    """Every seat's name; a seat's mistake is added to ``found`` (its name left empty)."""
    names: list[str] = []
    for seat, raw in enumerate(raw_names):
        names.append(_part(found, functools.partial(_name, seat, raw, names), ""))
    return names


def _name(seat: int, raw: object, before: list[str]) -> str:
    field = f"players[{seat}].name"
    if not isinstance(raw, str):
        raise _no(field, "name_text", seat=seat + 1)
    # An empty name is kept empty: the page calls the seat "Player 2" or "Computer
    # (strong)" in its reader's language (players.default_name), never stored words.
    name = unicodedata.normalize("NFC", " ".join(raw.split()))
    if len(name) > MAX_NAME:
        raise _no(field, "name_length", seat=seat + 1, most=MAX_NAME)
    if any(unicodedata.category(char).startswith("C") for char in name):
        raise _no(field, "name_characters", seat=seat + 1)
    if name and name.casefold() in (n.casefold() for n in before):
        raise _no(field, "names_differ", name=name)
    return name


def _colours(
    raw: tuple[str, ...] | None, seats: int, config: RefereeConfig, found: list[Refused]
) -> list[PaletteColour]:
    """Every seat's colour; each mistake is added to ``found``. None given: the config's
    seat colours (distinct already: :class:`RefereeConfig` checks them)."""
    if raw is None:
        return list(config.seat_colours[:seats])
    if isinstance(raw, str) or not isinstance(raw, Sequence) or len(raw) != seats:
        count = len(raw) if isinstance(raw, Sequence) else 0
        found.append(_no("players", "colours_count", seats=seats, num=count))
        return []
    colours: list[PaletteColour] = []
    seen: set[str] = set()
    for seat, name in enumerate(raw):
        field = f"players[{seat}].colour"
        try:
            colour = by_name(name)
        except PaletteError:
            found.append(_no(field, "colour_unknown", name=str(name)[:20]))
            continue
        if colour.hex in seen:  # the pearls could not be told apart
            found.append(_no(field, "colours_differ", colour=colour_term(colour.name)))
        seen.add(colour.hex)
        colours.append(colour)
    return colours


def _options(kind: GameKind, raw: object, seats: int) -> Options:
    if not isinstance(raw, Mapping):
        raise _no("options", "options_object")
    try:
        return kind.read_options(seats, raw)
    except OptionError as exc:
        key = str(exc.key)[:30]
    field = "first_seat" if key == "first_seat" else f"options.{key}"
    raise _no(field, "option_bad", key=key)

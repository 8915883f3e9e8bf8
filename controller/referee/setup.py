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
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Final

from controller.palette import PaletteColour, PaletteError, by_name
from controller.referee.commands import NewGame
from controller.referee.messages import Items, Message, Param, Refused, Term, colour_term
from controller.referee.players import Player, unnamed
from controller.referee.protocol import GameKind, Options
from controller.referee.session import CheckedSetup, Session
from controller.referee.state import RefereeConfig
from controller.rules.records import OptionError

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
    computer = _computer(kind, command.computer, seats, config.levels)
    names = _names(raw_names)
    colours = _colours(command.colours, seats, config)
    options = _options(kind, command.options, seats)
    refused = kind.children_help_refused()
    if command.children_help and refused is not None:
        raise Refused(refused, "children_help")
    remote = _remote(kind, command.remote, seats, computer)
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


def _names(raw_names: Sequence[object]) -> list[str]:
    names: list[str] = []
    for seat, raw in enumerate(raw_names):
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
        if name and name.casefold() in (n.casefold() for n in names):
            raise _no(field, "names_differ", name=name)
        names.append(name)
    return names


def _colours(raw: tuple[str, ...] | None, seats: int, config: RefereeConfig) -> list[PaletteColour]:
    if raw is None:
        colours = list(config.seat_colours[:seats])
    else:
        if isinstance(raw, str) or not isinstance(raw, Sequence) or len(raw) != seats:
            count = len(raw) if isinstance(raw, Sequence) else 0
            raise _no("players", "colours_count", seats=seats, num=count)
        colours = []
        for seat, name in enumerate(raw):
            try:
                colours.append(by_name(name))
            except PaletteError:
                field = f"players[{seat}].colour"
                raise _no(field, "colour_unknown", name=str(name)[:20]) from None
    seen: set[str] = set()
    for seat, colour in enumerate(colours):
        if colour.hex in seen:  # the pearls could not be told apart
            field = f"players[{seat}].colour"
            raise _no(field, "colours_differ", colour=colour_term(colour.name))
        seen.add(colour.hex)
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

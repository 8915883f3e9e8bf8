"""A new game, checked: names, colours, computer seats and options, before anything starts.

>>> from controller.referee.state import Rules
>>> setup = check(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"),
...                       options={"first_seat": 1}), Rules(levels=("easy",)))
>>> [(p.number, p.seat, p.name, p.colour.name) for p in setup.players]
[(0, 1, 'Ben', 'blue'), (1, 2, 'Cleo', 'yellow'), (2, 0, 'Anna', 'red')]
>>> check(NewGame("pyramidos", ("Anna",)), Rules())
Traceback (most recent call last):
...
controller.referee.messages.Refused: Pyramidos is for 2 to 4 players, not 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from controller.palette import PaletteColour, PaletteError, by_name
from controller.referee.commands import NewGame
from controller.referee.games import Options
from controller.referee.messages import Items, Message, Refused, Term, colour_term
from controller.referee.session import GAMES, GameSetup, Player, Session, unnamed
from controller.referee.state import Rules
from controller.rules import perlen, pyramidos
from controller.rules.records import PERLEN, PYRAMIDOS

MAX_NAME: Final = 30


def check(command: NewGame, rules: Rules) -> GameSetup:
    """The game ``command`` asks for, or :class:`Refused` saying what is wrong."""
    kind = command.game
    if kind not in GAMES:
        raise Refused(Message.of("choose_game"))
    if kind == PERLEN and not rules.has_cells:
        raise Refused(Message.of("no_cell_sensors"))
    if kind == PYRAMIDOS and not rules.has_targets:
        raise Refused(Message.of("no_target_sensors"))
    raw_names = command.players
    if not isinstance(raw_names, Sequence) or isinstance(raw_names, str):
        raise Refused(Message.of("players_list"))
    seats = len(raw_names)
    if kind == PERLEN and seats != perlen.COLOURS:
        raise Refused(Message.of("perlen_three", num=seats))
    if kind == PYRAMIDOS and not pyramidos.MIN_SEATS <= seats <= pyramidos.MAX_SEATS:
        raise Refused(Message.of("pyramidos_seats", num=seats))
    computer = _computer(kind, command.computer, seats, rules.levels)
    names = _names(raw_names, computer)
    colours = _colours(command.colours, seats, rules)
    options = _options(kind, command.options, seats)
    players: list[Player] = []
    if isinstance(options, perlen.PerlenOptions):
        for colour in range(perlen.COLOURS):
            seat = options.seat_of(colour)
            players.append(Player(colour, seat, names[seat], colours[seat], computer.get(seat)))
    else:
        players = [Player(seat, seat, names[seat], colours[seat]) for seat in range(seats)]
    return GameSetup(kind, tuple(players), options, bool(command.children_help))


def again(session: Session) -> NewGame:
    """The same game once more, the next seat starting."""
    by_seat = sorted(session.players, key=lambda p: p.seat)
    options = session.options.to_dict()
    options["first_seat"] = (session.options.first_seat + 1) % len(by_seat)
    return NewGame(
        game=session.kind,
        players=tuple(_named(p) for p in by_seat),
        options=options,
        children_help=session.children_help,
        computer={p.seat: p.computer for p in by_seat if p.computer is not None},
        colours=tuple(p.colour.name for p in by_seat),
    )


def _named(player: Player) -> str:
    """The name to ask for again: an unnamed seat stays unnamed."""
    return "" if unnamed(player) else player.name


def _computer(kind: str, raw: object, seats: int, levels: tuple[str, ...]) -> dict[int, str]:
    if not isinstance(raw, Mapping):
        raise Refused(Message.of("computer_seats"))
    if not raw:
        return {}
    if kind != PERLEN:
        raise Refused(Message.of("computer_perlen_only"))
    if not levels:
        raise Refused(Message.of("computer_not_installed"))
    out: dict[int, str] = {}
    for key, level in raw.items():
        seat = int(key) if isinstance(key, str) and key.isdigit() else key
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
            raise Refused(Message.of("computer_seat_bad", seat=str(key)[:10], seats=seats))
        if level not in levels:
            choices = Items(tuple(Term("level", name) for name in levels))
            raise Refused(Message.of("computer_level_bad", levels=choices))
        out[seat] = level
    if len(out) == seats:
        raise Refused(Message.of("one_person"))
    return out


def _names(raw_names: Sequence[object], computer: Mapping[int, str]) -> list[str]:
    names: list[str] = []
    for seat, raw in enumerate(raw_names):
        if not isinstance(raw, str):
            raise Refused(Message.of("name_text", seat=seat + 1))
        # An empty name is kept empty: the page calls the seat "Player 2" or "Computer
        # (strong)" in its reader's language (session.default_name), never stored words.
        name = " ".join(raw.split())
        if len(name) > MAX_NAME:
            raise Refused(Message.of("name_length", seat=seat + 1, most=MAX_NAME))
        if name and name.casefold() in (n.casefold() for n in names):
            raise Refused(Message.of("names_differ", name=name))
        names.append(name)
    return names


def _colours(raw: tuple[str, ...] | None, seats: int, rules: Rules) -> list[PaletteColour]:
    if raw is None:
        colours = list(rules.seat_colours[:seats])
    else:
        if isinstance(raw, str) or not isinstance(raw, Sequence) or len(raw) != seats:
            count = len(raw) if isinstance(raw, Sequence) else 0
            raise Refused(Message.of("colours_count", seats=seats, num=count))
        colours = []
        for name in raw:
            try:
                colours.append(by_name(name))
            except PaletteError:
                raise Refused(Message.of("colour_unknown", name=str(name)[:20])) from None
    seen: set[str] = set()
    for colour in colours:
        if colour.hex in seen:  # the pearls could not be told apart
            raise Refused(Message.of("colours_differ", colour=colour_term(colour.name)))
        seen.add(colour.hex)
    return colours


def _options(kind: str, raw: object, seats: int) -> Options:
    if not isinstance(raw, Mapping):
        raise Refused(Message.of("options_object"))
    try:
        if kind == PERLEN:
            return perlen.PerlenOptions.from_dict(raw)
        return pyramidos.PyramidosOptions.from_dict(seats, raw)
    except perlen.OptionError as exc:
        raise Refused(Message.of("option_bad", key=str(exc.key)[:30])) from None
    except pyramidos.SetupError:
        raise Refused(Message.of("option_bad", key=_bad_pyramidos_key(raw))) from None


def _bad_pyramidos_key(raw: Mapping[object, object]) -> str:
    """The option :meth:`pyramidos.PyramidosOptions.from_dict` refused."""
    for key, value in raw.items():
        if key not in ("first_seat", "variant"):
            return str(key)[:30]
        if key == "variant" and value not in {v.value for v in pyramidos.Variant}:
            return "variant"
    return "first_seat"

"""What the referee says, as keys with parameters: words in no language yet.

The referee never writes a sentence. It says ``Message("played", player="Anna",
cell="b3")``; the edge renders it in the reader's language: the web page through its
Flask-Babel catalogues (``web_ui/translations``, en/de/da), ``pyramid run``'s log in
English. Every key has one English template here, the source text the catalogues
translate (``N_`` and ``NP_`` mark them for ``pybabel extract``; see ``web_ui/babel.cfg``).

>>> m = Message.of("played", player="Anna", cell="b3")
>>> english(m)
'Anna played b3.'
>>> english(Message.of("resumed", number=4, num=1))
'Game 4 resumed after 1 move.'
>>> register({}, {"thing": {"pearls": "pearls"}})  # a game's word for its pieces
>>> fix = Message.of("fix_extra", cells=Items(("b3", "c4")), thing=Term("thing", "pearls"))
>>> english(Message.of("fix_board", fixes=Items((fix,))))
'Take off the pearls with the red ✕ (b3 and c4).'
>>> english(Message.of("played", player="Anna"))
Traceback (most recent call last):
...
ValueError: message 'played' needs the parameters cell, player, not player

Parameters are text (names, cells), whole numbers (a parameter called ``num`` chooses
the plural form), :class:`Term` (a word of a fixed vocabulary: a colour, a level, a
game, a thing), :class:`Items` (a list joined with the language's "and") and other
messages, so that one sentence can hold another.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeAlias


def N_(text: str) -> str:
    """Marks a source text for extraction; the text itself, untranslated."""
    return text


def NP_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a source text with a plural form (chosen by the parameter ``num``)."""
    return (singular, plural)


@dataclass(frozen=True, slots=True)
class Term:
    """A word from a fixed vocabulary (:data:`TERMS`), translated where it is shown."""

    kind: str
    value: str

    def __post_init__(self) -> None:
        if self.kind not in TERMS:
            raise ValueError(f"no vocabulary {self.kind!r} (known: {', '.join(TERMS)})")


@dataclass(frozen=True, slots=True)
class Amount:
    """A number with ``places`` decimals, written the reader's way (``1.5``, ``1,5``)."""

    value: float
    places: int = 1


@dataclass(frozen=True, slots=True)
class Items:
    """Several parameters shown as one list: ``b3, c4 and d4``."""

    items: tuple[Param, ...]


Param: TypeAlias = "str | int | Amount | Term | Items | Message"

Numbers: TypeAlias = Callable[[float, int], str]
"""Writes a number with so many decimals in the reader's language (``1.5`` or ``1,5``)."""


def english_number(value: float, places: int) -> str:
    """``1.5``: the English way, for the log and the tests."""
    return f"{value:.{places}f}"


@dataclass(frozen=True, slots=True)
class Message:
    """One sentence (or part of one) by key, with its parameters."""

    key: str
    params: tuple[tuple[str, Param], ...] = ()

    def __post_init__(self) -> None:
        template = CATALOGUE.get(self.key)
        if template is None:
            raise ValueError(f"no message {self.key!r}")
        given = {name for name, _ in self.params}
        if given != template.names:
            raise ValueError(
                f"message {self.key!r} needs the parameters {', '.join(sorted(template.names))}"
                f", not {', '.join(sorted(given)) or 'none'}"
            )

    @classmethod
    def of(cls, key: str, /, **params: Param) -> Message:
        return cls(key, tuple(sorted(params.items())))

    def param(self, name: str) -> Param:
        for key, value in self.params:
            if key == name:
                return value
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        """``{"key": …, "params": {…}}`` (terms as ``{"term", "value"}``, lists as lists,
        amounts as numbers)."""
        return {"key": self.key, "params": {k: _param_json(v) for k, v in self.params}}


def _param_json(value: Param) -> Any:
    if isinstance(value, Message):
        return value.to_json()
    if isinstance(value, Term):
        return {"term": value.kind, "value": value.value}
    if isinstance(value, Items):
        return [_param_json(v) for v in value.items]
    if isinstance(value, Amount):
        return round(value.value, value.places)
    return value


# -- the catalogue ---------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


@dataclass(frozen=True, slots=True)
class Template:
    """The English source of one message (with its plural form, if it has one)."""

    text: str | tuple[str, str]

    @property
    def singular(self) -> str:
        return self.text if isinstance(self.text, str) else self.text[0]

    @property
    def names(self) -> frozenset[str]:
        found = set(_PLACEHOLDER.findall(self.singular))
        if isinstance(self.text, tuple):
            found |= set(_PLACEHOLDER.findall(self.text[1])) | {"num"}
        return frozenset(found)


def _catalogue(entries: Mapping[str, str | tuple[str, str]]) -> dict[str, Template]:
    return {key: Template(text) for key, text in entries.items()}


CATALOGUE: Final[dict[str, Template]] = _catalogue(
    {
        # -- what just happened (notes) ------------------------------------------------------
        "started": N_("Game %(number)d has started: %(players)s."),
        "replaced": N_("Game %(number)d was aborted."),
        "played": N_("%(player)s played %(cell)s."),
        "won": NP_(
            "Game over: %(player)s wins with %(num)d %(unit)s!",
            "Game over: %(player)s wins with %(num)d %(unit)s!",
        ),
        "shared_win": NP_(
            "Game over: a shared win for %(players)s with %(num)d %(unit)s!",
            "Game over: a shared win for %(players)s with %(num)d %(unit)s!",
        ),
        "resumed": NP_(
            "Game %(number)d resumed after %(num)d move.",
            "Game %(number)d resumed after %(num)d moves.",
        ),
        "resume_failed": N_(
            "Game %(number)d could not be resumed and was set aside (the log says why)."
        ),
        "aborted": N_("Game %(number)d ended without a result."),
        "remote_aborted": N_("Game %(number)d was ended on the other board."),
        "ready": N_("Ready for a new game."),
        "computer_failed": N_(
            "The computer could not choose: place its %(thing)s on any legal cell."
        ),
        "computer_missing": N_(
            "The computer player is not installed: place its %(thing)s yourself."
        ),
        "hint": N_("Hint: the cell with the dotted ring (%(cell)s)."),
        "no_hint": N_("No hint this time."),
        "looking": N_("Looking for a good cell…"),
        "still_looking": N_("Still thinking…"),
        "led_test_stopped": N_("LED test stopped."),
        "led_test_all": N_("LED test: every LED in turn."),
        "led_test_one": N_("LED test: %(led)s."),
        "internal_error": N_("Something went wrong inside the referee; the log says what."),
        "cannot_save": N_(
            "The game cannot be saved (%(why)s): nothing more is played until it can. "
            "Every move so far is kept."
        ),
        "saving_again": N_("The game can be saved again: play goes on."),
        "not_running": N_("The table is not running."),
        "no_answer": N_("The table did not answer in time."),
        # -- what to do now (prompts) ------------------------------------------------------
        "to_move": N_("%(player)s to move."),
        "computer_thinking": N_("%(player)s (computer) is thinking…"),
        "computer_chose": N_(
            "%(player)s (computer) chose the blinking cell with the dashed ring (%(cell)s): "
            "put its %(thing)s there."
        ),
        "remote_to_move": N_("%(player)s plays on the other board: wait for the move."),
        "unnamed_computer_thinking": N_("%(player)s is thinking…"),
        "unnamed_computer_chose": N_(
            "%(player)s chose the blinking cell with the dashed ring (%(cell)s): "
            "put its %(thing)s there."
        ),
        "fix_board": N_("%(fixes)s."),
        "fix_extra": N_("take off the %(thing)s with the red ✕ (%(cells)s)"),
        "fix_clear": NP_(
            "take the %(thing)s off the board", "take all %(num)d %(thing)s off the board"
        ),
        "fix_missing_owned": N_("put %(player)s's %(colour)s %(thing)s back on %(cell)s"),
        "fix_missing": N_("put the %(thing)s back on %(cell)s"),
        "fix_missing_remote": N_("place %(player)s's %(colour)s %(thing)s on %(cell)s"),
        # -- why the board is not a move (refusals) -----------------------------------------
        "computer_choosing": N_(
            "%(player)s (computer) is still choosing: wait for its cell to blink."
        ),
        "computer_elsewhere": N_("%(player)s (computer) chose %(chosen)s, not %(cell)s."),
        "unnamed_computer_choosing": N_(
            "%(player)s is still choosing: wait for its cell to blink."
        ),
        "unnamed_computer_elsewhere": N_("%(player)s chose %(chosen)s, not %(cell)s."),
        # -- commands refused ----------------------------------------------------------------
        "no_game": N_("There is no game."),
        "no_such_action": N_("This game has no such button."),
        "button_unused": N_("The %(button)s button does nothing in %(game)s."),
        "game_over": N_("The game is over."),
        "game_over_new": N_("The game is over; start a new one."),
        "not_over": N_("Play again once this game is over (or abort it first)."),
        "nothing_to_take_back": N_("There is nothing to take back."),
        "took_back_move": N_("Took back the move on %(cell)s."),
        "fix_first": N_("Fix the board first: %(fixes)s."),
        "computer_turn": N_("It is the computer's turn."),
        "remote_turn": N_("It is %(player)s's turn, on the other board."),
        "remote_undo": N_("The last move was made on the other board: take it back there."),
        "remote_not_linked": N_("No game with another board is on the table."),
        "remote_event_bad": N_(
            "The other board sent a %(kind)s this game cannot take: the boards disagree."
        ),
        "hints_need_bot": N_("Hints need the computer player, which is not installed."),
        "led_colour": N_("An LED colour is three whole numbers from 0 to 255."),
        "no_such_led": N_("This board has no LED named %(led)s."),
        "table_busy": N_("The referee is busy; try again in a moment."),
        # -- a new game refused --------------------------------------------------------------
        "game_seats": N_("%(game)s is not for this many players."),
        "game_no_computer": N_("%(game)s has no computer player."),
        "game_no_help": N_("%(game)s has no help for children."),
        "game_no_remote": N_("%(game)s cannot be played with another board."),
        "choose_game": N_("Choose one of the games this board plays: %(games)s."),
        "players_list": N_("The players must be a list of names, one per seat."),
        "name_text": N_("The name for seat %(seat)d must be text."),
        "name_length": N_("The name for seat %(seat)d must be at most %(most)d characters."),
        "name_characters": N_("The name for seat %(seat)d must be letters, not control codes."),
        "names_differ": N_("Two players are called %(name)s: names must differ."),
        "colours_count": NP_(
            "Give one colour per player (%(seats)d), not %(num)d.",
            "Give one colour per player (%(seats)d), not %(num)d.",
        ),
        "colour_unknown": N_("%(name)s is not a colour here."),
        "colours_differ": N_("Two players cannot both have %(colour)s."),
        "options_object": N_("The options must be an object of option names and values."),
        "option_bad": N_("The option %(key)s cannot have that value."),
        "computer_seats": N_("The computer seats must map seats to computer levels."),
        "remote_seats": N_("The remote seats must be a list of seats."),
        "remote_seat_bad": N_("Remote seat %(seat)s is not a seat (1 to %(seats)d)."),
        "remote_computer": N_("A computer seat plays here, not on another board."),
        "remote_one_here": N_("At least one person must play on this board."),
        "computer_not_installed": N_("Computer players are not installed."),
        "computer_seat_bad": N_("Computer seat %(seat)s is not a seat (1 to %(seats)d)."),
        "computer_level_bad": N_("The computer level must be one of %(levels)s."),
        "one_person": N_("At least one player must be a person."),
        # -- pieces of sentences ---------------------------------------------------------------
        "player_colour": N_("%(player)s (%(colour)s)"),
        "computer_name": N_("%(computer)s"),
        "computer_name_seat": N_("%(computer)s %(seat)d"),
        "player_name": N_("Player %(seat)d"),
        "and": N_("%(items)s and %(last)s"),
        "seat_colour": N_("seat %(seat)d colour"),
    }
)
"""Every message, by key: its English source text. The referee's own are here; each game
adds its own when its package's ``words`` module is imported (:func:`register`)."""


TERMS: Final[dict[str, dict[str, str]]] = {
    "colour": {
        "red": N_("red"),
        "blue": N_("blue"),
        "yellow": N_("yellow"),
        "green": N_("green"),
        "orange": N_("orange"),
        "purple": N_("purple"),
        "pink": N_("pink"),
        "cyan": N_("cyan"),
        "unknown": N_("unknown colour"),
    },
    "level": {
        "gentle": N_("gentle"),
        "easy": N_("easy"),
        "medium": N_("medium"),
        "strong": N_("strong"),
        "strongest": N_("strongest"),
    },
    "computer": {  # an unnamed computer seat's name, by its level
        "gentle": N_("Gentle computer"),
        "easy": N_("Easy computer"),
        "medium": N_("Medium computer"),
        "strong": N_("Strong computer"),
        "strongest": N_("Strongest computer"),
    },
    "game": {},
    "place": {},  # the games' words for places that are not written like c3 or t1
    "thing": {},  # each game's piece, one and several (``pearl``, ``pearls``)
    "unit": {  # what scores count; the games add theirs
        "points": N_("points"),
        "points_one": N_("point"),
    },
    "button": {  # the board's buttons, as the page names them
        "button:confirm": N_("Confirm"),
        "button:end_turn": N_("End turn"),
        "button:undo": N_("Undo"),
    },
    "save_fault": {
        "full": N_("the memory card is full"),
        "read-only": N_("the memory card is read-only"),
        "other": N_("the game store cannot be written"),
    },
}
"""Vocabularies of :class:`Term`: value -> English word (game names are names); the games
add theirs (:func:`register`)."""


def register(
    messages: Mapping[str, str | tuple[str, str]],
    terms: Mapping[str, Mapping[str, str]] | None = None,
    capitalised: Iterable[str] = (),
) -> None:
    """Add a game's messages and words to :data:`CATALOGUE` and :data:`TERMS`
    (``capitalised``: its sentences that begin with a part written in lower case, see
    :data:`CAPITALISED`).

    A game's ``words`` module calls it once, when it is imported; a key that is already
    there with another text is an error (two games cannot mean two things by one key).
    """
    CAPITALISED.update(capitalised)
    for key, text in messages.items():
        known = CATALOGUE.get(key)
        if known is not None and known.text != text:
            raise ValueError(f"message {key!r} is already another text")
        CATALOGUE[key] = Template(text)
    for kind, words in (terms or {}).items():
        vocabulary = TERMS.setdefault(kind, {})
        for value, word in words.items():
            if vocabulary.get(value, word) != word:
                raise ValueError(f"term {kind}:{value} is already another word")
            vocabulary[value] = word


def colour_term(name: str) -> Term | Message:
    """A palette colour's name, or the words for a colour only the config knows."""
    if name in TERMS["colour"]:
        return Term("colour", name)
    match = re.fullmatch(r"seat (\d) colour", name)
    if match:
        return Message.of("seat_colour", seat=int(match.group(1)))
    return Term("colour", "unknown")


def place(name: str) -> Param:
    """A place on the board as a sentence names it: as it is written (``c3``, ``t1``), or
    by a game's word for it (:data:`TERMS` ``place``, e.g. Pyramidos' ``the top``).

    >>> place("c3")
    'c3'
    """
    return Term("place", name) if name in TERMS["place"] else name


def places(names: Iterable[str]) -> Items:
    """Several places as one list (:func:`place`)."""
    return Items(tuple(place(name) for name in names))


def unit_term(unit: str, count: int) -> Term:
    """``visible pearls`` (or ``visible pearl`` for one): the unit of a score."""
    return Term("unit", unit if count != 1 else f"{unit}_one")


# -- rendering -------------------------------------------------------------------------------


class Translations(Protocol):
    """What rendering needs of a translation catalogue (``gettext.NullTranslations``,
    ``babel.support.Translations`` and Flask-Babel's both have it)."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...


CAPITALISED: Final[set[str]] = {"fix_board"}
"""Sentences that begin with a part written in lower case (``take off the pearl with the
red ✕ (b3)``); other sentences begin as their template does (a cell name stays ``c3``)."""


def render(message: Message, translations: Translations, numbers: Numbers = english_number) -> str:
    """``message`` as text in the language of ``translations`` (and of ``numbers``)."""
    template = CATALOGUE[message.key].text
    values = {name: _render_param(value, translations, numbers) for name, value in message.params}
    if isinstance(template, tuple):
        num = message.param("num")
        count = num if isinstance(num, int) else 0
        text = translations.ngettext(template[0], template[1], count)
    else:
        text = translations.gettext(template)
    text %= values
    return capitalised(text) if message.key in CAPITALISED else text


def _render_param(value: Param, translations: Translations, numbers: Numbers) -> str | int:
    if isinstance(value, Message):
        return render(value, translations, numbers)
    if isinstance(value, Amount):
        return numbers(value.value, value.places)
    if isinstance(value, Term):
        word = TERMS[value.kind].get(value.value, value.value)
        return word if value.kind == "game" else translations.gettext(word)
    if isinstance(value, Items):
        parts = [str(_render_param(v, translations, numbers)) for v in value.items]
        if len(parts) <= 1:
            return "".join(parts)
        joined = translations.gettext(CATALOGUE["and"].singular)
        return joined % {"items": ", ".join(parts[:-1]), "last": parts[-1]}
    return value


class _English:
    def gettext(self, message: str, /) -> str:
        return message

    def ngettext(self, singular: str, plural: str, n: int, /) -> str:
        return singular if n == 1 else plural


ENGLISH: Final[Translations] = _English()


def english(message: Message) -> str:
    """The English text (for the log, and for tests that read sentences)."""
    return render(message, ENGLISH)


def sentences(
    messages: Iterable[Message], translations: Translations, numbers: Numbers = english_number
) -> str:
    """Several messages shown as one paragraph."""
    return " ".join(render(m, translations, numbers) for m in messages)


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


class Refused(Exception):
    """A command or change the referee does not take; ``message`` says why, ``field`` (a
    new game's) which part of it: ``game``, ``players``, ``players[1].name``,
    ``options.ties`` …"""

    def __init__(
        self, message: Message, field: str | None = None, also: tuple[Refused, ...] = ()
    ) -> None:
        super().__init__(english(message))
        self.message = message
        self.field = field
        self.also = also
        """The new game's other mistakes, each with its field (this one is the first)."""

"""Perlen-Pyramide's words on the page: the sides of the pyramid, the reasons a bonus
pearl has its colour, what a screen reader says of a place, and the house rules, in the
reader's language (Flask-Babel).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask_babel import gettext, lazy_gettext, pgettext

from web_ui.games.perlen import drawing
from web_ui.render import swatch_text

SIDE_NAMES: Mapping[str, Any] = {
    "front": lazy_gettext("front (rank 1)"),
    "right": lazy_gettext("right (file e)"),
    "back": lazy_gettext("back (rank 5)"),
    "left": lazy_gettext("left (file a)"),
}

BONUS_REASONS: Mapping[str, Any] = {
    "majority": lazy_gettext("most of the four pearls below are this colour"),
    "two-two": lazy_gettext("two and two below: the third colour gets it"),
    "four-of-a-kind": lazy_gettext("four of one colour below: the next colour in turn gets it"),
    "passed-on": lazy_gettext("the rule's colour has no pearls left, so it passed on"),
}


def side_name(side: str) -> str:
    return str(SIDE_NAMES.get(side, side))


def place_label(place: drawing.Place) -> str:
    """What a screen reader says for one place of the pyramid."""
    parts = []
    if place.pearl is not None:
        parts.append(gettext("%(colour)s pearl", colour=swatch_text(place.pearl)))
    else:
        parts.append(gettext("empty"))
    parts.append(gettext("visible, scores") if place.visible else gettext("hidden inside"))
    if place.pending is not None:
        due = swatch_text(place.pending)
        parts.append(gettext("bonus pearl due here: %(colour)s", colour=due))
    if place.footprint is not None:
        parts.append(gettext("under the next bonus pearl"))
    if place.missing is not None:
        parts.append(gettext("its %(colour)s pearl is missing", colour=swatch_text(place.missing)))
    if place.extra:
        parts.append(gettext("a pearl is here that the game does not have"))
    if place.legal:
        parts.append(gettext("allowed move"))
    if place.hint:
        parts.append(gettext("hint: a good move"))
    if place.last:
        parts.append(gettext("just placed"))
    if place.computer:
        parts.append(gettext("the computer plays here"))
    return f"{place.pos}: " + ", ".join(parts)


def bonus_reason(reason: object) -> str:
    return str(BONUS_REASONS.get(reason, "")) if isinstance(reason, str) else ""


HouseRule = tuple[str, str, str, list[tuple[str, str, str]]]
"""(key, its name, title, [(value, its name, label)]): the names in the reader's language."""


def house_rules() -> list[HouseRule]:
    """The Perlen-Pyramide options of RULES.md, default first: the keys and values as game
    records and the API spell them, with their names and explanations for people."""
    return [
        ("ties", pgettext("house rule", "ties"), gettext("Ties"), [
            ("shared", pgettext("ties", "shared"),
             gettext("players level on visible pearls share the win")),
            ("total", pgettext("ties", "total"),
             gettext("break the tie by total pearls in the pyramid, then share")),
        ]),
        ("pools", pgettext("house rule", "pools"), gettext("Running out of pearls"), [
            ("strict", pgettext("pools", "strict"),
             gettext("25 pearls per colour: a bonus owed to an empty colour goes to "
                     "the next colour with pearls; a player with none left passes")),
            ("unlimited", pgettext("pools", "unlimited"),
             gettext("ignore the pools (sets with spare pearls)")),
        ]),
        ("start", pgettext("house rule", "start"),
         gettext("First pearl (house variant “centre start”)"), [
            ("anywhere", pgettext("start", "anywhere"),
             gettext("the first pearl may go on any cell")),
            ("centre", pgettext("start", "centre"),
             gettext("centre start: the first pearl goes on c3")),
        ]),
        ("placement", pgettext("house rule", "placement"),
         gettext("Placement (house variant “open placement”)"), [
            ("touching", pgettext("placement", "touching"),
             gettext("every pearl after the first touches an occupied cell")),
            ("free", pgettext("placement", "free"), gettext("open placement: any empty cell")),
        ]),
        ("score", pgettext("house rule", "score"),
         gettext("What scores (house variant “every pearl counts”)"), [
            ("visible", pgettext("score", "visible"), gettext("the 41 visible pearls")),
            ("all", pgettext("score", "all"),
             gettext("every pearl counts: all 55, the hidden ones too")),
        ]),
    ]  # fmt: skip

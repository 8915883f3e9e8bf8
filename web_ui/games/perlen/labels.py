"""Perlen-Pyramide's words on the page: the sides of the pyramid, the reasons a bonus
pearl has its colour, what a screen reader says of a place, and the house rules, in the
reader's language (Flask-Babel).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from flask_babel import gettext, lazy_gettext, ngettext, pgettext

from web_ui.games.perlen import drawing
from web_ui.render import swatch_text

SIDE_NAMES: Mapping[str, Any] = {
    "front": lazy_gettext("front (rank 1)"),
    "right": lazy_gettext("right (file e)"),
    "back": lazy_gettext("back (rank 5)"),
    "left": lazy_gettext("left (file a)"),
}

BONUS_REASONS: Mapping[str, Any] = {
    "majority": lazy_gettext("this colour has more of the four pearls below than any other"),
    "3:1": lazy_gettext("three of the four pearls below are this colour"),
    "2:1:1": lazy_gettext("two of the four pearls below are this colour, the other two differ"),
    "two-two": lazy_gettext("two and two below: the third colour gets it"),
    "four-of-a-kind": lazy_gettext("four of one colour below: the next colour in turn gets it"),
    "passed-on": lazy_gettext("the rule's colour has no pearls left, so it passed on"),
}
"""Why a bonus pearl has its colour, by its rule (``majority`` by the split below:
3:1 or 2:1:1, RULES.md)."""


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
    if place.held is not None:
        parts.append(gettext("a pearl is put down here: the move, once the wrong one is off"))
    if place.legal:
        parts.append(gettext("allowed move"))
    if place.hint:
        parts.append(gettext("hint: a good move"))
    if place.last:
        parts.append(gettext("just placed"))
    if place.computer:
        parts.append(gettext("the computer plays here"))
    return f"{place.pos}: " + ", ".join(parts)


def bonus_reason(reason: object, split: object = None) -> str:
    """Why a bonus pearl has its colour; ``split``: the colours of the four pearls below,
    most first (``3:1``, ``2:1:1``, ``2:2``, ``4``), which words the majority rule."""
    if not isinstance(reason, str):
        return ""
    if reason == "majority" and isinstance(split, str) and split in BONUS_REASONS:
        reason = split
    return str(BONUS_REASONS.get(reason, ""))


def splits(pearls: Iterable[tuple[str, int]]) -> Callable[[str], str | None]:
    """The split of the four pearls under a place (``2:b2`` -> ``2:1:1``), from the
    pearls on the board and the bonus pearls owed (``(pos, colour)``, ``1:c3`` …); None
    when they are not all there."""
    colours = dict(pearls)

    def split(pos: str) -> str | None:
        layer, _, cell = pos.partition(":")
        if not layer.isdigit() or int(layer) < 2 or len(cell) != 2:
            return None
        below = int(layer) - 1
        file, rank = ord(cell[0]), int(cell[1])
        under = [
            colours.get(f"{below}:{chr(file + df)}{rank + dr}") for df in (0, 1) for dr in (0, 1)
        ]
        if any(c is None for c in under):
            return None
        counts = sorted(Counter(under).values(), reverse=True)
        return ":".join(map(str, counts)) if len(counts) > 1 else "4"

    return split


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


def left_over(count: int) -> str:
    """What the live page says of ``count`` pearls of this game left on the board while
    another game is played."""
    return ngettext(
        "A pearl of Perlen-Pyramide is here: take it off.",
        "%(num)d pearls of Perlen-Pyramide are here: take them off.",
        count,
    )

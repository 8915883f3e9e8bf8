"""Pyramidos' words on the page: what a screen reader says of a target."""

from __future__ import annotations

from flask_babel import gettext, ngettext

from web_ui.games.pyramidos import drawing
from web_ui.render import place_name, swatch_text


def target_name(name: str) -> str:
    """A target's name on the drawing: ``t1`` … ``t4`` as written, the top in words."""
    return place_name(name)


def target_label(target: drawing.TargetMark) -> str:
    parts = []
    if target.owner is not None and target.missing:
        parts.append(gettext("its %(colour)s ball is missing", colour=swatch_text(target.owner)))
    elif target.owner is not None:
        parts.append(gettext("ball of %(colour)s", colour=swatch_text(target.owner)))
    elif target.extra:
        parts.append(gettext("a ball is here that the game does not have"))
    elif target.sensed:
        parts.append(gettext("a ball"))
    else:
        parts.append(gettext("empty"))
    if target.name == "top":
        parts.append(gettext("open") if target.open else gettext("closed until t1–t4 hold balls"))
    return f"{target_name(target.name)}: " + ", ".join(parts)


def left_over(count: int) -> str:
    """What the live page says of ``count`` balls of this game left on the board while
    another game is played."""
    return ngettext(
        "A ball of Pyramidos is here: take it off.",
        "%(num)d balls of Pyramidos are here: take them off.",
        count,
    )

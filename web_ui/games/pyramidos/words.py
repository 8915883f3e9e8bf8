"""Pyramidos' words on the page: what a screen reader says of a target."""

from __future__ import annotations

from flask_babel import gettext

from web_ui.games.pyramidos import drawing
from web_ui.render import swatch_text


def target_label(target: drawing.TargetMark) -> str:
    parts = []
    if target.owner is not None:
        parts.append(gettext("ball of %(colour)s", colour=swatch_text(target.owner)))
    else:
        parts.append(gettext("empty"))
    if target.name == "top":
        parts.append(gettext("open") if target.open else gettext("closed until t1–t4 hold balls"))
    return f"{target.name}: " + ", ".join(parts)

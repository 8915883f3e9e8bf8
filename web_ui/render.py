"""Words and fragments: the live regions of the page rendered from a snapshot dict.

The same functions render the first page and every Server-Sent-Events update, so a page
that was loaded and one that was updated live are identical. Texts are translated here
(Flask-Babel) and escaped by Jinja; the snapshot is only ever read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, render_template
from flask_babel import gettext, lazy_gettext

from web_ui import drawing

# The palette's colour names (controller/palette.py), so the extractor finds them.
COLOUR_NAMES: Mapping[str, Any] = {
    "red": lazy_gettext("red"),
    "blue": lazy_gettext("blue"),
    "yellow": lazy_gettext("yellow"),
    "green": lazy_gettext("green"),
    "orange": lazy_gettext("orange"),
    "purple": lazy_gettext("purple"),
    "pink": lazy_gettext("pink"),
    "cyan": lazy_gettext("cyan"),
    "unknown": lazy_gettext("unknown colour"),
}

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

LINK_STATES: Mapping[str, Any] = {
    "connected": lazy_gettext("connected"),
    "searching": lazy_gettext("searching for the board"),
    "lost": lazy_gettext("lost"),
}

STATUS_NAMES: Mapping[str, Any] = {
    "idle": lazy_gettext("no game"),
    "playing": lazy_gettext("playing"),
    "bonus": lazy_gettext("bonus pearls to place"),
    "mismatch": lazy_gettext("the board does not match the game"),
    "over": lazy_gettext("game over"),
}

LEVEL_NAMES: Mapping[str, Any] = {
    "gentle": lazy_gettext("gentle"),
    "easy": lazy_gettext("easy"),
    "medium": lazy_gettext("medium"),
    "strong": lazy_gettext("strong"),
    "strongest": lazy_gettext("strongest"),
}
"""The computer's levels (controller.bot.LEVELS), weakest first."""

GAME_NAMES: Mapping[str, str] = {"perlen-pyramide": "Perlen-Pyramide", "pyramidos": "Pyramidos"}


def colour_name(name: object) -> str:
    """The translated colour name; a colour only the config knows keeps its own words."""
    if isinstance(name, str) and name in COLOUR_NAMES:
        return str(COLOUR_NAMES[name])
    if isinstance(name, str) and name.startswith("seat ") and name.endswith(" colour"):
        return str(gettext("seat %(n)s colour", n=name[5:-7]))
    return str(name or COLOUR_NAMES["unknown"])


def side_name(side: str) -> str:
    return str(SIDE_NAMES.get(side, side))


def swatch_text(swatch: drawing.Swatch) -> str:
    """``Anna (red, R)`` or ``red (R)``."""
    colour = colour_name(swatch.name)
    if swatch.player:
        text = gettext(
            "%(player)s (%(colour)s, %(letter)s)",
            player=swatch.player,
            colour=colour,
            letter=swatch.letter,
        )
        return str(text)
    return str(gettext("%(colour)s (%(letter)s)", colour=colour, letter=swatch.letter))


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


def target_label(target: drawing.TargetMark) -> str:
    parts = []
    if target.owner is not None:
        parts.append(gettext("ball of %(colour)s", colour=swatch_text(target.owner)))
    else:
        parts.append(gettext("empty"))
    if target.name == "top":
        parts.append(gettext("open") if target.open else gettext("closed until t1–t4 hold balls"))
    return f"{target.name}: " + ", ".join(parts)


def bonus_reason(reason: object) -> str:
    return str(BONUS_REASONS.get(reason, "")) if isinstance(reason, str) else ""


def level_name(level: object) -> str:
    return str(LEVEL_NAMES.get(level, level)) if isinstance(level, str) else ""


def link_state(state: object) -> str:
    return str(LINK_STATES.get(state, state)) if isinstance(state, str) else ""


def status_name(status: object) -> str:
    return str(STATUS_NAMES.get(status, status)) if isinstance(status, str) else ""


def game_name(game: object) -> str:
    return GAME_NAMES.get(game, "") if isinstance(game, str) else ""


def house_rules() -> list[tuple[str, str, list[tuple[str, str]]]]:
    """The Perlen-Pyramide options of RULES.md: (key, title, [(value, label)]), default first."""
    return [
        ("ties", gettext("Ties"), [
            ("shared", gettext("players level on visible pearls share the win")),
            ("total", gettext("break the tie by total pearls in the pyramid, then share")),
        ]),
        ("pools", gettext("Running out of pearls"), [
            ("strict", gettext("25 pearls per colour: a bonus owed to an empty colour goes to "
                               "the next colour with pearls; a player with none left passes")),
            ("unlimited", gettext("ignore the pools (sets with spare pearls)")),
        ]),
        ("start", gettext("First pearl (house variant “centre start”)"), [
            ("anywhere", gettext("the first pearl may go on any cell")),
            ("centre", gettext("centre start: the first pearl goes on c3")),
        ]),
        ("placement", gettext("Placement (house variant “open placement”)"), [
            ("touching", gettext("every pearl after the first touches an occupied cell")),
            ("free", gettext("open placement: any empty cell")),
        ]),
        ("score", gettext("What scores (house variant “every pearl counts”)"), [
            ("visible", gettext("the 41 visible pearls")),
            ("all", gettext("every pearl counts: all 55, the hidden ones too")),
        ]),
    ]  # fmt: skip


def register(app: Flask) -> None:
    """Make the helpers available to every template."""
    app.jinja_env.globals.update(
        place_label=place_label,
        target_label=target_label,
        side_name=side_name,
        colour_name=colour_name,
        swatch_text=swatch_text,
        bonus_reason=bonus_reason,
        link_state=link_state,
        status_name=status_name,
        game_name=game_name,
        level_name=level_name,
        house_rules=house_rules,
    )
    app.jinja_env.filters["swatch_text"] = swatch_text


# -- the live regions ------------------------------------------------------------------------


def live_context(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """Everything the live templates draw, worked out once per snapshot."""
    game = snapshot.get("game")
    palette = drawing.swatches(snapshot)
    context: dict[str, Any] = {
        "snap": snapshot,
        "game": game,
        "palette": palette,
        "bars": drawing.score_bars(snapshot),
    }
    to_move = snapshot.get("to_move")
    if game == "pyramidos":
        context["pyr"] = drawing.pyramidos_view(snapshot)
    else:
        context["layers"] = drawing.layers_view(snapshot)
        context["side"] = drawing.side_view(snapshot)
    context["mover"] = drawing.swatch_of(palette, to_move) if to_move is not None else None
    players = snapshot.get("players") or []
    level = None
    if isinstance(to_move, int) and 0 <= to_move < len(players):
        entry = players[to_move]
        level = entry.get("computer") if isinstance(entry, Mapping) else None
    context["mover_level"] = level
    context["pending"] = [
        (item, drawing.swatch_of(palette, item.get("colour")))
        for item in snapshot.get("pending") or ()
        if isinstance(item, Mapping)
    ]
    context["mismatches"] = [
        (item, drawing.swatch_of(palette, item.get("colour")))
        for item in snapshot.get("mismatches") or ()
        if isinstance(item, Mapping)
    ]
    winners = [w for w in snapshot.get("winners") or () if isinstance(w, int)]
    context["winners"] = [drawing.swatch_of(palette, w) for w in winners]
    return context


LIVE_REGIONS = ("live-status", "live-board", "live-scores")


def live_fragments(snapshot: Mapping[str, Any]) -> dict[str, str]:
    """The three live regions of the game page, by element id."""
    context = live_context(snapshot)
    return {
        region: render_template(f"_{region.replace('-', '_')}.html", **context)
        for region in LIVE_REGIONS
    }


def diagnostics_context(snapshot: Mapping[str, Any], channel_names: list[str]) -> dict[str, Any]:
    active = {s for s in snapshot.get("sensors") or () if isinstance(s, str)}
    toggles = snapshot.get("toggles") if isinstance(snapshot.get("toggles"), Mapping) else {}
    assert isinstance(toggles, Mapping)
    link = snapshot.get("link") if isinstance(snapshot.get("link"), Mapping) else {}
    assert isinstance(link, Mapping)
    counters = link.get("counters") if isinstance(link.get("counters"), Mapping) else {}
    rows = [
        (name, name in active, toggles.get(name, 0) if isinstance(toggles.get(name), int) else 0)
        for name in channel_names
    ]
    return {"snap": snapshot, "rows": rows, "link": link, "counters": counters}


def diagnostics_fragments(snapshot: Mapping[str, Any]) -> dict[str, str]:
    from web_ui.app import web_state

    names = sorted(web_state().channel_map.channel_by_name, key=_channel_order)
    context = diagnostics_context(snapshot, names)
    return {
        "diag-sensors": render_template("_diag_sensors.html", **context),
        "diag-link": render_template("_diag_link.html", **context),
    }


def _channel_order(name: str) -> tuple[int, str]:
    """Cells in reading order (a1, b1 … e5), then targets, then buttons."""
    if len(name) == 2 and name[0] in "abcde" and name[1] in "12345":
        return (0, name[1] + name[0])
    if name.startswith("t") or name == "top":
        return (1, "z" if name == "top" else name)
    return (2, name)

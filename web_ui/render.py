"""Words and fragments: the live regions of the page rendered from a snapshot.

The same functions render the first page and every Server-Sent-Events update, so a page
that was loaded and one that was updated live are identical. Texts are translated here
(Flask-Babel) and escaped by Jinja; the snapshot is only ever read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from babel.numbers import format_decimal
from flask import Flask, render_template
from flask_babel import (
    get_locale,
    get_translations,
    gettext,
    lazy_gettext,
    lazy_pgettext,
    pgettext,
)

from controller.hardware.channels import CELLS
from controller.referee import words
from controller.referee.messages import TERMS, Items, Message, Term, colour_term, sentences
from controller.referee.session import Seated, called
from controller.referee.snapshot import PlayerView, Snapshot
from controller.store_values import LeaderRow
from web_ui import drawing
from web_ui.state import web_state

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


def say(messages: Iterable[Message] | Message | None) -> str:
    """The referee's messages as text in the reader's language."""
    if messages is None:
        return ""
    if isinstance(messages, Message):
        messages = (messages,)
    return sentences(messages, get_translations(), number)


def number(value: float, places: int) -> str:
    """``1.5`` in English, ``1,5`` in German and Danish (Babel's data for the reader's
    language)."""
    return format_decimal(value, format="0." + "0" * places, locale=str(get_locale() or "en"))


def decimal(value: float, places: int = 1) -> str:
    """The template filter ``decimal``: :func:`number` with one place unless told."""
    return number(value, places)


def term(kind: str, value: object) -> str:
    """A word of the referee's vocabularies (a colour, a level …) in the reader's language."""
    if not isinstance(value, str):
        return ""
    words = TERMS.get(kind, {})
    if value not in words:
        return value
    return words[value] if kind == "game" else str(gettext(words[value]))


def colour_name(name: object) -> str:
    """The translated colour name; a colour only the config knows keeps its own words."""
    if not isinstance(name, str):
        return term("colour", "unknown")
    word = colour_term(name)
    return say(word) if isinstance(word, Message) else term("colour", word.value)


def level_name(level: object) -> str:
    return term("level", level)


def game_name(game: object) -> str:
    return term("game", game)


def side_name(side: str) -> str:
    return str(SIDE_NAMES.get(side, side))


def who(swatch: drawing.Swatch) -> str:
    """The player's name (an unnamed seat's default in the reader's language), or ``""``."""
    return say(swatch.player) if isinstance(swatch.player, Message) else swatch.player


def player_name(player: Seated, players: Iterable[Seated]) -> str:
    """A stored player's name; an unnamed seat's default in the reader's language."""
    name = called(player, players)
    return say(name) if isinstance(name, Message) else str(name)


def leader_name(row: LeaderRow) -> str:
    """A leaderboard row's name: the unnamed computer seats of a level as ``Computer
    (strong)`` in the reader's language."""
    if row.level is None:
        return row.name
    return say(Message.of("computer_name", level=Term("level", row.level)))


def swatch_text(swatch: drawing.Swatch) -> str:
    """``Anna (red, R)`` or ``red (R)``."""
    colour = colour_name(swatch.name)
    if swatch.player:
        text = gettext(
            "%(player)s (%(colour)s, %(letter)s)",
            player=who(swatch),
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


def link_state(state: object) -> str:
    return str(LINK_STATES.get(state, state)) if isinstance(state, str) else ""


def status_name(status: object) -> str:
    return str(STATUS_NAMES.get(status, status)) if isinstance(status, str) else ""


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


COLOUR_LETTERS: Mapping[str, Any] = {
    "red": lazy_pgettext("letter of the colour red", "R"),
    "blue": lazy_pgettext("letter of the colour blue", "B"),
    "yellow": lazy_pgettext("letter of the colour yellow", "Y"),
    "green": lazy_pgettext("letter of the colour green", "G"),
    "orange": lazy_pgettext("letter of the colour orange", "O"),
    "purple": lazy_pgettext("letter of the colour purple", "P"),
    "pink": lazy_pgettext("letter of the colour pink", "K"),
    "cyan": lazy_pgettext("letter of the colour cyan", "C"),
}
"""The letter on each palette colour's pearls in the reader's language (one or two
characters, no two alike in a language: any colours may meet in a game). A colour only
the config knows keeps its seat number."""


def colour_letter(name: str, letter: str) -> str:
    """The letter of the palette colour ``name`` in the reader's language, else ``letter``."""
    return str(COLOUR_LETTERS[name]) if name in COLOUR_LETTERS else letter


def local_letters(players: tuple[PlayerView, ...]) -> tuple[PlayerView, ...]:
    """``players`` with the colour letters of the reader's language (snapshots and the
    API keep the palette's own)."""
    return tuple(
        dataclasses.replace(p, letter=colour_letter(p.colour_name, p.letter)) for p in players
    )


def register(app: Flask) -> None:
    """Make the helpers available to every template."""
    app.jinja_env.globals.update(
        place_label=place_label,
        target_label=target_label,
        side_name=side_name,
        colour_name=colour_name,
        swatch_text=swatch_text,
        who=who,
        player_name=player_name,
        leader_name=leader_name,
        bonus_reason=bonus_reason,
        link_state=link_state,
        status_name=status_name,
        game_name=game_name,
        level_name=level_name,
        house_rules=house_rules,
        colour_letter=colour_letter,
        say=say,
        term=term,
        counter_name=counter_name,
        adapter_name=adapter_name,
        sensor_name=sensor_name,
    )
    app.jinja_env.filters["swatch_text"] = swatch_text
    app.jinja_env.filters["decimal"] = decimal


# -- the live regions ------------------------------------------------------------------------


def live_context(snapshot: Snapshot) -> dict[str, Any]:
    """Everything the live templates draw, worked out once per snapshot."""
    snapshot = dataclasses.replace(snapshot, players=local_letters(snapshot.players))
    palette = drawing.swatches(snapshot)
    context: dict[str, Any] = {
        "snap": snapshot,
        "game": snapshot.game,
        "palette": palette,
        "bars": drawing.score_bars(snapshot),
        "mover": drawing.mover(snapshot),
    }
    if snapshot.game == "pyramidos":
        context["pyr"] = drawing.pyramidos_view(snapshot)
    else:
        context["layers"] = drawing.layers_view(snapshot)
        context["side"] = drawing.side_view(snapshot)
    to_move = snapshot.to_move
    players = snapshot.players
    level = players[to_move].computer if to_move is not None and to_move < len(players) else None
    context["mover_level"] = level
    context["pending"] = [(b, drawing.swatch_of(palette, b.colour)) for b in snapshot.pending]
    context["removals"] = [(b, drawing.swatch_of(palette, b.colour)) for b in snapshot.removals]
    # "The highest first" only when one rests on another: they lie on two layers.
    context["removals_top_down"] = len({b.pos.split(":")[0] for b in snapshot.removals}) > 1
    context["winners"] = [drawing.swatch_of(palette, w) for w in snapshot.winners]
    context["take_off"] = _take_off(snapshot)
    return context


def _take_off(snapshot: Snapshot) -> str:
    """The pieces the game does not have, in one sentence (``Take all 25 pearls off the
    board.``), or ``""``."""
    extra = [m.cell for m in snapshot.mismatches if m.kind == "extra"]
    if not extra:
        return ""
    if snapshot.game == "pyramidos":
        word, everything = "ball", all(owner is None for owner in snapshot.targets.values())
    else:
        word, everything = "pearl", not snapshot.pearls
    return say(Message.of("fix_board", fixes=Items((words.take_off(extra, word, everything),))))


LIVE_REGIONS = ("live-status", "live-bar", "live-board", "live-scores", "live-controls")


def live_fragments(snapshot: Snapshot, *, with_csrf: bool = False) -> dict[str, str]:
    """The live regions of the game page, by element id.

    The same bytes go to every viewer, so they hold nothing of one browser's session;
    ``with_csrf`` (the first page load only) puts this browser's token into the forms.
    """
    context = live_context(snapshot)
    context["with_csrf"] = with_csrf
    return {
        region: render_template(f"_{region.replace('-', '_')}.html", **context).strip()
        for region in LIVE_REGIONS
    }


COUNTER_NAMES: Mapping[str, Any] = {
    "scans": lazy_gettext("matrix scans"),
    "fast_scans": lazy_gettext("fast scans (while something moves)"),
    "frames": lazy_gettext("sensor frames"),
    "errors": lazy_gettext("scan errors"),
    "scan_cpu_us": lazy_gettext("CPU time of the last scan (µs)"),
    "scan_wall_us": lazy_gettext("duration of the last scan (µs)"),
    "led_writes": lazy_gettext("LED writes"),
    "led_frames": lazy_gettext("LED pictures"),
    "board_restarts": lazy_gettext("Pico restarts"),
    "dropped_lines": lazy_gettext("serial lines dropped"),
    "duplicate_lines": lazy_gettext("repeated lines"),
    "stale_lines": lazy_gettext("late lines"),
    "sensor_lines": lazy_gettext("sensor lines"),
    "frame_refreshes": lazy_gettext("LED pictures refreshed"),
    "frame_retries": lazy_gettext("LED pictures sent again"),
    "frames_acked": lazy_gettext("LED pictures confirmed"),
    "frames_refused": lazy_gettext("LED pictures refused"),
    "frames_sent": lazy_gettext("LED pictures sent"),
    "handshakes": lazy_gettext("handshakes"),
    "link_losses": lazy_gettext("links lost"),
    "reconnects": lazy_gettext("reconnections"),
    "sounds": lazy_gettext("sounds played"),
    "tunes_sent": lazy_gettext("tunes sent to the Pico"),
    "tunes_refused": lazy_gettext("tunes the Pico refused"),
    "device_dropped_lines": lazy_gettext("lines the Pico dropped"),
    "device_lines_held": lazy_gettext("lines the Pico held back (host not reading)"),
    "device_lines_cut": lazy_gettext("lines the Pico cut short"),
}
"""The board adapters' counters (``BoardStatus.counters``) in words; others keep their name."""

ADAPTER_NAMES: Mapping[str, Any] = {
    "sim": lazy_gettext("simulated board (no hardware)"),
    "gpio": lazy_gettext("sensors and LEDs on the Pi's own pins"),
    "serial": lazy_gettext("a Pico over USB"),
}


def counter_name(name: str) -> str:
    return str(COUNTER_NAMES[name]) if name in COUNTER_NAMES else name.replace("_", " ")


def adapter_name(adapter: str) -> str:
    return str(ADAPTER_NAMES[adapter]) if adapter in ADAPTER_NAMES else adapter


def sensor_name(name: str) -> str:
    """``button:confirm`` -> the Confirm button; cells and targets keep their names."""
    buttons = {
        "button:confirm": gettext("Confirm button"),
        "button:end_turn": gettext("End turn button"),
        "button:undo": gettext("Undo button"),
    }
    if name in buttons:
        return str(buttons[name])
    if name.startswith("seat:") and name[5:].isdigit():
        return str(gettext("seat %(n)d light", n=int(name[5:]) + 1))
    return name


def diagnostics_context(snapshot: Snapshot, channel_names: list[str]) -> dict[str, Any]:
    active = set(snapshot.sensors)
    rows = [(name, name in active, snapshot.toggles.get(name, 0)) for name in channel_names]
    link = snapshot.link
    counters = dict(link.counters) if link is not None else {}
    return {"snap": snapshot, "rows": rows, "link": link, "counters": counters}


def diagnostics_fragments(snapshot: Snapshot) -> dict[str, str]:
    names = sorted(web_state().channel_map.channel_by_name, key=_channel_order)
    context = diagnostics_context(snapshot, names)
    return {
        "diag-sensors": render_template("_diag_sensors.html", **context),
        "diag-link": render_template("_diag_link.html", **context),
    }


def _channel_order(name: str) -> tuple[int, str]:
    """Cells in reading order (a1, b1 … e5), then targets, then buttons."""
    if name in CELLS:
        return (0, name[1] + name[0])
    if name.startswith("t") or name == "top":
        return (1, "z" if name == "top" else name)
    return (2, name)

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
)

from controller.hardware.channels import CELLS, ChannelMap
from controller.hardware.port import SensorLevels
from controller.referee import prompts
from controller.referee.messages import TERMS, Items, Message, colour_term, sentences
from controller.referee.players import Seated, called, computer_term
from controller.referee.snapshot import MismatchView, PlayerView, Snapshot
from controller.store.values import LeaderRow
from web_ui import drawing
from web_ui.games.view import GameView
from web_ui.state import web_state

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
    """The translated colour name; a colour only the config knows keeps its own prompts."""
    if not isinstance(name, str):
        return term("colour", "unknown")
    word = colour_term(name)
    return say(word) if isinstance(word, Message) else term("colour", word.value)


def level_name(level: object) -> str:
    return term("level", level)


def game_name(game: object) -> str:
    return term("game", game)


def who(swatch: drawing.Swatch) -> str:
    """The player's name (an unnamed seat's default in the reader's language), or ``""``."""
    return say(swatch.player) if isinstance(swatch.player, Message) else swatch.player


def player_name(player: Seated, players: Iterable[Seated]) -> str:
    """A stored player's name; an unnamed seat's default in the reader's language."""
    name = called(player, players)
    return say(name) if isinstance(name, Message) else str(name)


def leader_name(row: LeaderRow) -> str:
    """A leaderboard row's name: the unnamed computer seats of a level as ``Strong
    computer`` in the reader's language."""
    if row.level is None:
        return row.name
    return say(Message.of("computer_name", computer=computer_term(row.level)))


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


PLACE_NAMES: Mapping[str, Any] = {
    "top": lazy_pgettext("the name of the target on top", "top"),
}
"""Places of the board that are not written like ``c3`` or ``t1``, as a label names them."""


def place_name(name: str) -> str:
    """A place's name as a label shows it: ``c3``, ``t1``; the top in prompts."""
    return str(PLACE_NAMES[name]) if name in PLACE_NAMES else name


def link_state(state: object) -> str:
    return str(LINK_STATES.get(state, state)) if isinstance(state, str) else ""


def status_name(status: object) -> str:
    return str(STATUS_NAMES.get(status, status)) if isinstance(status, str) else ""


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


def register(app: Flask, views: Mapping[str, GameView]) -> None:
    """Make the helpers available to every template: the page's, and each game view's
    own (:attr:`~web_ui.games.view.GameView.helpers`; no two may share a name)."""
    shared = app.jinja_env.globals
    for view in views.values():
        for name, helper in view.helpers.items():
            if name in shared and shared[name] is not helper:
                raise ValueError(f"two games' templates both call a helper {name!r}")
            shared[name] = helper
    app.jinja_env.globals.update(
        colour_name=colour_name,
        swatch_text=swatch_text,
        who=who,
        player_name=player_name,
        leader_name=leader_name,
        link_state=link_state,
        status_name=status_name,
        game_name=game_name,
        place_name=place_name,
        game_views=views,
        view_of=view_of,
        level_name=level_name,
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
    view = view_of(snapshot.game)
    context: dict[str, Any] = {
        "snap": snapshot,
        "game": snapshot.game,
        "kind": view,
        "palette": palette,
        "bars": view.score_bars(snapshot) if view else (),
        "mover": drawing.mover(snapshot),
        # The shared mismatch list, unless the game says what to do first.
        "mismatch_shown": bool(snapshot.mismatches),
    }
    if view is not None:
        context.update(view.drawings(snapshot))
        context.update(view.context(snapshot, palette))
    placing = all(_played_there(m, snapshot) for m in snapshot.mismatches)
    if placing:
        # The other board's move still to be placed here is the next step, said once by
        # its note in the normal colour: no list of what is wrong with the board.
        context["mismatch_shown"] = False
    to_move = snapshot.to_move
    players = snapshot.players
    level = players[to_move].computer if to_move is not None and to_move < len(players) else None
    context["mover_level"] = level
    # A named computer seat says its level beside its name; an unnamed one's name says it.
    named = level is not None and to_move is not None and players[to_move].default_name is None
    context["mover_badge"] = term("computer", level) if named else ""
    context["winners"] = [drawing.swatch_of(palette, w) for w in snapshot.winners]
    context["take_off"] = _take_off(snapshot, view)
    context["elsewhere"] = elsewhere = _elsewhere(snapshot, view)
    other = _owner(elsewhere, view)
    context["elsewhere_said"] = (
        other.left_over(len(elsewhere)) if other is not None and other.left_over else ""
    )
    # What to do, without the turn again: the headline and the bar say whose turn it is.
    said = TURN_SAID
    if placing and snapshot.mismatches and _speaks_of(snapshot.note, snapshot.last_move):
        said = said | FIX_SAID  # the note says where to place the other board's move
    context["prompt_now"] = say(tuple(m for m in snapshot.prompt if m.key not in said))
    # The hint's first sentence, for the bar at the foot of the screen.
    context["hint_said"] = say(tuple(m for m in snapshot.note if m.key in HINT_SAID)[:1])
    # Where a computer seat plays, when the prompt says something else first (the bonus
    # pearls owed): only its ring on the board would say it otherwise.
    chosen = snapshot.computer_move
    context["computer_next"] = bool(chosen) and not any(
        m.key in COMPUTER_SAID for m in snapshot.prompt
    )
    return context


HINT_SAID = frozenset({"hint", "hint_chances", "hint_wins", "hint_denies"})
"""The notes that give a hint's cell (a second note may say what it is worth)."""
COMPUTER_SAID = frozenset({"computer_chose", "unnamed_computer_chose"})
"""The prompts that say where a computer seat plays."""


TURN_SAID = frozenset({"to_move"})
"""Prompts that only say whose turn it is: the turn bar and the status say it already."""
FIX_SAID = frozenset({"fix_board"})
"""The prompt that says how to make the board match the game."""


def _speaks_of(note: tuple[Message, ...], cell: str | None) -> bool:
    """Whether a message of ``note`` is about ``cell`` (names it as its ``cell``)."""
    return cell is not None and any(dict(m.params).get("cell") == cell for m in note)


def view_of(game: object) -> GameView | None:
    """The view of ``game`` (a game's name) on this page, or None for no game or one the
    board does not play."""
    return web_state().view_of(game)


def _played_there(mismatch: MismatchView, snapshot: Snapshot) -> bool:
    """``mismatch`` is the last move, made on the other board of a linked game, whose
    piece is still to be placed here: the normal next step, not a fault of the board."""
    players, colour = snapshot.players, mismatch.colour
    return (
        mismatch.kind == "missing"
        and mismatch.cell == snapshot.last_move
        and colour is not None
        and 0 <= colour < len(players)
        and players[colour].remote
    )


def _elsewhere(snapshot: Snapshot, view: GameView | None) -> list[str]:
    """The places the sensors report a piece on that the game's drawing does not show (a
    ball on a target during a game of pearls): listed beside it, so that every piece on
    the board is seen."""
    if view is None or not view.places:
        return []
    found = (s for s in snapshot.sensors if s not in view.places and not s.startswith("button:"))
    return sorted(found, key=_channel_order)


def _owner(places: list[str], view: GameView | None) -> GameView | None:
    """The other game whose drawing has every one of ``places`` (the pearls of the last
    game left on the cells during a game of balls), to name its pieces; None if none has."""
    if not places:
        return None
    others = (v for v in web_state().views.values() if v is not view)
    return next((v for v in others if set(places) <= v.places), None)


def _take_off(snapshot: Snapshot, view: GameView | None) -> str:
    """The pieces the game does not have, in one sentence (``Take all 25 pearls off the
    board.``), or ``""``."""
    extra = [m.cell for m in snapshot.mismatches if m.kind == "extra"]
    if not extra or view is None:
        return ""
    everything = view.bare(snapshot)
    count = view.kind.stacked(frozenset(extra)) if everything else 0
    take_off = prompts.take_off(extra, view.piece, everything, count)
    return say(Message.of("fix_board", fixes=Items((take_off,))))


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


def levels_fragment(levels: SensorLevels | None, cmap: ChannelMap) -> str:
    """The Diagnostics page's bars: each cell's and target's reading against its
    thresholds (the scale is twice the ``on`` threshold), in reading order."""
    rows = []
    if levels is not None:
        for channel, level in enumerate(levels.channels):
            name = cmap.name_by_channel.get(channel)
            if name is None or name.startswith("button") or level.state == "none":
                continue
            scale = max(2 * level.on, 1)

            def share(value: int, scale: int = scale) -> float:
                return round(min(100.0, 100.0 * value / scale), 1)

            rows.append((name, level, share(level.level), share(level.off), share(level.on)))
        rows.sort(key=lambda row: _channel_order(row[0]))
    return render_template("_diag_levels.html", rows=rows, known=levels is not None)


def _channel_order(name: str) -> tuple[int, str]:
    """Cells in reading order (a1, b1 … e5), then targets, then buttons."""
    if name in CELLS:
        return (0, name[1] + name[0])
    if name.startswith("t") or name == "top":
        return (1, "z" if name == "top" else name)
    return (2, name)

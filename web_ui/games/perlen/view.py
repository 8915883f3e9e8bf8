"""Perlen-Pyramide's :class:`~web_ui.games.view.GameView`: the layers from above and the
four sides, the bonus pearls to place and to take off, its rules and its house rules, and
the computer's review of a finished game.

>>> PERLEN_VIEW.name, PERLEN_VIEW.fixed_seats, PERLEN_VIEW.reviewed
('perlen-pyramide', 3, True)
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from controller.games.perlen import bot
from controller.games.perlen.kind import PERLEN_PYRAMIDE
from controller.games.perlen.record import PerlenRecord
from controller.games.perlen.snapshot import parts_of
from controller.referee.snapshot import Snapshot
from controller.rules.records import Record
from controller.vocabulary import CELLS
from web_ui.drawing import Swatch, swatch_of
from web_ui.games.perlen import drawing, labels, pictures
from web_ui.games.view import GameView, MoveLoss


def _drawings(snapshot: Snapshot) -> dict[str, Any]:
    return {"layers": drawing.layers_view(snapshot), "side": drawing.side_view(snapshot)}


def _context(snapshot: Snapshot, palette: Sequence[Swatch]) -> dict[str, Any]:
    parts = parts_of(snapshot)
    removals = parts.removals
    return {
        "pending": [(b, swatch_of(palette, b.colour)) for b in parts.pending],
        # The colours under each bonus pearl owed, which say why it has its colour.
        "split": labels.splits(
            [(p.pos, p.colour) for p in parts.pearls] + [(b.pos, b.colour) for b in parts.pending]
        ),
        "removals": [(b, swatch_of(palette, b.colour)) for b in removals],
        # "The highest first" only when one rests on another: they lie on two layers.
        "removals_top_down": len({b.pos.split(":")[0] for b in removals}) > 1,
        # While bonus pearls of a move taken back come off, that list says what to do;
        # while the last pearl is held off (a take-back, or a move to another cell being
        # decided), the prompt says it: the board is not wrong, so no red list says so.
        "mismatch_shown": bool(snapshot.mismatches) and not removals and not _held(snapshot),
    }


HELD: Final = frozenset({"keep_off", "moving"})
"""The prompts of a pearl held off its cell (``PerlenPyramide.urgent``)."""


def _held(snapshot: Snapshot) -> bool:
    return any(message.key in HELD for message in snapshot.prompt)


def _forced(snapshot: Snapshot) -> bool:
    """The last base pearl went into the only empty cell, or the first onto c3 with the
    centre start."""
    base = sum(1 for p in parts_of(snapshot).pearls if p.pos.startswith("1:"))
    centre = snapshot.options.get("start") == "centre"
    return base == len(CELLS) or (base == 1 and centre)


def _review(record: Record, budget_per_move: float, cancel: Any) -> Sequence[MoveLoss]:
    if not isinstance(record, PerlenRecord):
        raise TypeError(f"not a Perlen-Pyramide record: {type(record).__name__}")
    stop = cancel if isinstance(cancel, threading.Event) else None
    return tuple(
        MoveLoss(m.number, m.colour, m.played.short, m.best.short, m.loss)
        for m in bot.review(record, budget_per_move=budget_per_move, cancel=stop)
    )


PERLEN_VIEW: Final = GameView(
    kind=PERLEN_PYRAMIDE,
    template="_game_perlen.html",
    folder=Path(__file__).parent / "templates",
    drawings=_drawings,
    score_bars=drawing.score_bars,
    bare=lambda snapshot: not parts_of(snapshot).pearls,
    places=frozenset(CELLS),
    context=_context,
    helpers={
        "place_label": labels.place_label,
        "side_name": labels.side_name,
        "bonus_reason": labels.bonus_reason,
        "house_rules": labels.house_rules,
    },
    pictures=lambda players: pictures.rule_pictures(players[:3]),
    review=_review,
    forced=_forced,
    left_over=labels.left_over,
)
"""Perlen-Pyramide, as the page shows it."""

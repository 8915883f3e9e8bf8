"""The pictures of the page, worked out from a :class:`Snapshot`: pure geometry, no markup.

The templates turn these values into SVG; keeping the numbers here lets them be tested
without a browser, and the same code draws the live game, each step of a replay and the
pictures of the rules page (all three are snapshots made by
:func:`controller.referee.showing.position`). What every game's pictures share is here:
a player's :class:`Swatch` (never a colour alone: a pattern and a letter too) and the
:class:`ScoreBar`; each game draws its own board (its folder under ``web_ui/games``).

>>> from controller.palette import PALETTE
>>> players = tuple(PlayerView(i, i, n, c.hex, c.name, c.letter, c.pattern_id, None)
...                 for i, (n, c) in enumerate(zip(("Anna", "Ben"), PALETTE)))
>>> snap = Snapshot(game="any", players=players, to_move=1, points=(3, 1))
>>> [s.letter for s in swatches(snap)], mover(snap).player
(['R', 'B'], 'Ben')
>>> [(b.value, b.most, b.to_move) for b in points_bars(snap, 10)]
[(3, 10, False), (1, 10, True)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from controller.palette import PALETTE, PaletteError, parse_hex
from controller.referee.messages import Message
from controller.referee.snapshot import PlayerView, Snapshot

# -- colours -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Swatch:
    """One player's colour as the page draws it: never by colour alone."""

    fill: str
    """``#rrggbb``."""
    name: str
    """The colour's name (``red``), translated by the template."""
    letter: str
    """One letter printed on every pearl (``R``)."""
    ink: str
    """Black or white, whichever reads better on ``fill``."""
    pattern: str = "pattern-plain"
    """The id of the SVG pattern drawn over the fill (controller.palette names them)."""
    player: str | Message = ""
    """The name of the player who plays it, if any (an unnamed seat's default name as a
    message, rendered in the reader's language)."""
    seat: int | None = None
    computer: bool = False
    """A computer seat plays it: the page marks it with the robot."""
    remote: bool = False
    """A person on the other board of a linked game plays it: the scores say so."""


PICTURE_PLAYERS: Final = tuple(
    PlayerView(i, i, "", c.hex, c.name, c.letter, c.pattern_id, None)
    for i, c in enumerate(PALETTE[:4])
)
"""The players of the rules page's pictures: the palette's first four colours, unnamed
(the page gives them its language's letters)."""

UNKNOWN = Swatch("#9e9e9e", "unknown", "?", "#000000")
"""For a colour number the snapshot names no player for (a damaged record)."""


def _ink(fill: str) -> str:
    """WCAG relative luminance: black text on light colours, white on dark ones."""
    try:
        r, g, b = (c / 255 for c in parse_hex(fill))
    except PaletteError:
        return "#000000"

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    luminance = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    # Contrast against black (L+0.05)/0.05 vs white 1.05/(L+0.05): equal at L ≈ 0.179.
    return "#000000" if luminance > 0.179 else "#ffffff"


def swatch(player: PlayerView) -> Swatch:
    return Swatch(
        fill=player.colour,
        name=player.colour_name,
        letter=player.letter[:2],
        ink=_ink(player.colour),
        pattern=player.pattern,
        player=player.name or player.default_name or "",
        seat=player.seat,
        computer=player.computer is not None,
        remote=player.remote,
    )


def swatches(snapshot: Snapshot) -> tuple[Swatch, ...]:
    """The players' swatches by player number (a colour in turn order, or the seat)."""
    return tuple(swatch(p) for p in snapshot.players)


def swatch_of(palette: Sequence[Swatch], colour: int | None) -> Swatch:
    if colour is not None and 0 <= colour < len(palette):
        return palette[colour]
    return UNKNOWN


def mover(snapshot: Snapshot) -> Swatch | None:
    """The swatch of the player to move (hints and the computer's choice are drawn in it)."""
    if snapshot.to_move is None:
        return None
    return swatch_of(swatches(snapshot), snapshot.to_move)


# -- score bars ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScoreBar:
    swatch: Swatch
    value: int
    most: int
    """The bar's full length (the most a player can score)."""
    extra: int | None = None
    """A second figure some games show (Perlen-Pyramide: all pearls of this colour in the
    pyramid, the tie-break)."""
    pool: int | None = None
    """Pieces left in this player's pool (None: unlimited or none kept)."""
    to_move: bool = False
    winner: bool = False

    @property
    def fraction(self) -> float:
        return 0.0 if self.most <= 0 else max(0.0, min(1.0, self.value / self.most))


def at(values: Sequence[int | None] | None, index: int) -> int | None:
    """``values[index]``, or None past its end."""
    return values[index] if values is not None and index < len(values) else None


def points_bars(snapshot: Snapshot, most: int) -> tuple[ScoreBar, ...]:
    """One bar per player, in player order: the points that count so far
    (:attr:`Snapshot.points`) out of ``most``."""
    winners = set(snapshot.winners)
    return tuple(
        ScoreBar(
            s, at(snapshot.points, i) or 0, most, to_move=snapshot.to_move == i, winner=i in winners
        )
        for i, s in enumerate(swatches(snapshot))
    )

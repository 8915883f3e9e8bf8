"""The pictures of the page, worked out from a :class:`Snapshot`: pure geometry, no markup.

The templates (``templates/_svg.html``) turn these values into SVG; keeping the numbers
here lets them be tested without a browser, and the same code draws the live game, each
step of a replay and the pictures of the rules page (all three are snapshots made by
:func:`controller.referee.snapshot.position`).

Perlen-Pyramide is drawn twice:

* **from above, layer by layer** (:func:`layers_view`): the 5×5 base large (the cells a
  virtual board player taps), layers 2 to 5 small beneath it, each with its coordinates.
  The outer ring of every layer is *visible* in the finished pyramid and so scores: a
  band marks it, so that a family sees why a pearl in the middle counts for nothing.
  While a bonus pearl is owed, its layer is drawn large too, with its place marked.
* **from the side** (:func:`side_view`): the four faces of the pyramid, which are exactly
  the pearls a family sees when they walk round the table.

>>> from controller.palette import PALETTE
>>> from controller.referee.snapshot import PearlView, PlayerView, Snapshot
>>> players = tuple(PlayerView(i, i, n, c.hex, c.name, c.letter, c.pattern_id, None)
...                 for i, (n, c) in enumerate(zip(("Anna", "Ben", "Cleo"), PALETTE)))
>>> snap = Snapshot(game="perlen-pyramide", players=players,
...                 pearls=(PearlView("1:c3", 0), PearlView("2:b2", 2)))
>>> view = layers_view(snap)
>>> cell = view.cell("c3")
>>> cell.pearl.letter, cell.visible, (cell.x, cell.y)
('R', False, (162.0, 162.0))
>>> [p.pos for p in view.layers[1].places if p.pearl]
['2:b2']
>>> side_view(snap).faces[0].places[2].pos   # the front face, seen from player 1's seat
'c1'

(Over 500 lines on purpose: the four pictures share the swatches, the marks and the
places, and a reader checks the geometry of the page in one file.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from controller.palette import PaletteError, parse_hex
from controller.referee.messages import Message
from controller.referee.snapshot import BonusView, PlayerView, Snapshot
from controller.rules.notation import (
    FILES,
    POSITIONS,
    NotationError,
    Position,
    layer_size,
    parse_position,
)

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
    )


def swatches(snapshot: Snapshot) -> tuple[Swatch, ...]:
    """The players' swatches by colour number (Perlen-Pyramide) or seat (Pyramidos)."""
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


# -- Perlen-Pyramide from above ------------------------------------------------------------

BASE_CELL: Final = 56.0
"""Side of a base cell in SVG units (a comfortable finger on a phone 360 px wide)."""
BASE_X: Final = 22.0
BASE_Y: Final = 22.0
UPPER_CELL: Final = 22.0
UPPER_GAP: Final = 20.0
"""Between the small layers 2 to 5, which hold their rank numbers: all four fit the width."""
UPPER_Y: Final = BASE_Y + 5 * BASE_CELL + 50.0
LAYERS_WIDTH: Final = BASE_X + 5 * BASE_CELL + 8.0
LAYERS_HEIGHT: Final = UPPER_Y + 4 * UPPER_CELL + 24.0


@dataclass(frozen=True, slots=True)
class Place:
    """One position of the pyramid as drawn: where, what is there, what to mark."""

    pos: str
    """``c3`` or ``2:b2`` (the short name)."""
    layer: int
    x: float
    """Centre of the place."""
    y: float
    size: float
    """Side of its square (the pearl's diameter is a little less)."""
    visible: bool
    """On the outer ring of its layer: seen from outside, so it scores."""
    pearl: Swatch | None = None
    pending: Swatch | None = None
    """A bonus pearl of this colour is owed here (the one the LEDs show is ``next``)."""
    next_pending: bool = False
    missing: Swatch | None = None
    """Base only: the game has a pearl of this colour here but the sensor sees none."""
    extra: bool = False
    """Base only: the sensor sees a pearl where the game has none."""
    footprint: Swatch | None = None
    """Base only: under the bonus pearl the LEDs show (they blink these cells)."""
    remove: bool = False
    """A bonus pearl of a move taken back that is still to come off."""
    legal: bool = False
    hint: Swatch | None = None
    """A hint for the player to move: ringed in their colour."""
    computer: Swatch | None = None
    """The computer seat's chosen cell: ringed in its colour."""
    last: bool = False
    """The move just made (a replay marks it)."""
    sensed: bool = False
    """Base only: the sensor (or the virtual board) reads a pearl here."""

    @property
    def r(self) -> float:
        """Radius of a pearl drawn here."""
        return self.size * 0.42

    @property
    def left(self) -> float:
        return self.x - self.size / 2

    @property
    def top(self) -> float:
        return self.y - self.size / 2


@dataclass(frozen=True, slots=True)
class Layer:
    number: int
    places: tuple[Place, ...]
    label_x: float
    label_y: float
    ring: tuple[float, float, float, float, float]
    """The visible ring: x, y and side of the layer's square, and the ring's width
    (layers 4 and 5 are all ring)."""
    files: tuple[tuple[str, float, float], ...] = ()
    """File letters with their label position (under the layer)."""
    ranks: tuple[tuple[str, float, float], ...] = ()


@dataclass(frozen=True, slots=True)
class LayersView:
    width: float
    height: float
    layers: tuple[Layer, ...]
    footprint_box: tuple[float, float, float, float, Swatch] | None = None
    """x, y, width, height of the shown bonus pearl's footprint on the base."""
    focus: Layer | None = None
    """While a bonus pearl is owed: its layer, drawn as large as the base."""
    focus_height: float = 0.0

    def cell(self, name: str) -> Place:
        """A base cell by name."""
        for place in self.layers[0].places:
            if place.pos == name:
                return place
        raise KeyError(name)


def _position(text: str | None) -> Position | None:
    if text is None:
        return None
    try:
        return parse_position(text)
    except NotationError:
        return None


def _geometry(layer: int, large: bool = False) -> tuple[float, float, float]:
    """Left, top and cell size of ``layer`` in the layers view (``large``: the focus)."""
    if layer == 1 or large:
        return BASE_X, BASE_Y, BASE_CELL
    x0 = BASE_X
    for below in range(2, layer):
        x0 += layer_size(below) * UPPER_CELL + UPPER_GAP
    return x0, UPPER_Y, UPPER_CELL


def _centre(pos: Position, large: bool = False) -> tuple[float, float, float]:
    """Centre and cell size of ``pos`` (rank 1 nearest the viewer)."""
    x0, y0, size = _geometry(pos.layer, large)
    n = layer_size(pos.layer)
    return x0 + (pos.file + 0.5) * size, y0 + (n - 1 - pos.rank + 0.5) * size, size


@dataclass(frozen=True, slots=True)
class _Marks:
    """What the snapshot says about each place, by short name."""

    pearls: dict[str, Swatch]
    pending: dict[str, Swatch]
    shown: Position | None
    missing: dict[str, Swatch]
    extra: set[str]
    removals: set[str]
    legal: set[str]
    hint: str | None
    computer: str | None
    last: str | None
    sensed: set[str] = field(default_factory=set)
    mover: Swatch | None = None


def _marks(snapshot: Snapshot) -> _Marks:
    palette = swatches(snapshot)

    def shorts(items: Sequence[BonusView]) -> dict[str, Swatch]:
        out = {}
        for item in items:
            if (pos := _position(item.pos)) is not None:
                out[pos.short] = swatch_of(palette, item.colour)
        return out

    pearls = {}
    for item in snapshot.pearls:
        if (pos := _position(item.pos)) is not None:
            pearls[pos.short] = swatch_of(palette, item.colour)
    pending = snapshot.pending
    shown = None
    if pending:
        shown = _position(pending[min(snapshot.shown_bonus, len(pending) - 1)].pos)
    removals = shorts(snapshot.removals)
    if snapshot.removals:
        pearls.update(removals)  # still on the board until taken off
    return _Marks(
        pearls=pearls,
        pending=shorts(pending),
        shown=_position(snapshot.removals[0].pos) if snapshot.removals else shown,
        missing={
            m.cell: swatch_of(palette, m.colour) for m in snapshot.mismatches if m.kind == "missing"
        },
        extra={m.cell for m in snapshot.mismatches if m.kind == "extra"},
        removals=set(removals),
        # Allowed cells are marked only when the game was started with help for children.
        legal=set(snapshot.legal) if snapshot.children_help else set(),
        hint=snapshot.hint,
        computer=snapshot.computer_move,
        last=snapshot.last_move,
        sensed={s for s in snapshot.sensors if len(s) == 2},
        mover=mover(snapshot),
    )


def _place(pos: Position, marks: _Marks, large: bool = False) -> Place:
    x, y, size = _centre(pos, large)
    name = pos.short
    shown = marks.shown
    under = shown is not None and name in shown.footprint
    return Place(
        pos=name,
        layer=pos.layer,
        x=x,
        y=y,
        size=size,
        visible=pos.visible,
        pearl=marks.pearls.get(name),
        pending=marks.pending.get(name),
        next_pending=shown is pos,
        missing=marks.missing.get(name),
        extra=name in marks.extra,
        footprint=(marks.pending.get(shown.short) or marks.pearls.get(shown.short))
        if under and shown is not None
        else None,
        remove=name in marks.removals,
        legal=name in marks.legal,
        hint=marks.mover if name == marks.hint else None,
        computer=marks.mover if name == marks.computer else None,
        last=name == marks.last,
        sensed=name in marks.sensed,
    )


def _layer(number: int, marks: _Marks, large: bool = False) -> Layer:
    places = tuple(_place(p, marks, large) for p in POSITIONS if p.layer == number)
    x0, y0, size = _geometry(number, large)
    n = layer_size(number)
    ring = (x0, y0, n * size, size)
    files = tuple(
        (FILES[i], x0 + (i + 0.5) * size, y0 + n * size + (16 if size > 30 else 11))
        for i in range(n)
    )
    ranks = tuple(
        (str(r + 1), x0 - (BASE_X / 2 if size > 30 else 7), y0 + (n - 1 - r + 0.5) * size)
        for r in range(n)
    )
    label_y = y0 - (6 if number == 1 or large else 10)
    return Layer(number, places, x0, label_y, (*ring, float(n)), files, ranks)


def layers_view(snapshot: Snapshot) -> LayersView:
    """Every place of the pyramid, layer by layer, marked as the snapshot says."""
    marks = _marks(snapshot)
    layers = tuple(_layer(number, marks) for number in range(1, 6))
    box = None
    focus = None
    shown = marks.shown
    colour = None
    if shown is not None:
        colour = marks.pending.get(shown.short) or marks.pearls.get(shown.short)
    if shown is not None and colour is not None:
        n = shown.layer
        box = (
            BASE_X + shown.file * BASE_CELL,
            BASE_Y + (5 - shown.rank - n) * BASE_CELL,
            n * BASE_CELL,
            n * BASE_CELL,
            colour,
        )
        if snapshot.pending and not snapshot.removals:
            focus = _layer(shown.layer, marks, large=True)
    height = BASE_Y + layer_size(focus.number) * BASE_CELL + 30 if focus else 0.0
    return LayersView(LAYERS_WIDTH, LAYERS_HEIGHT, layers, box, focus, height)


# -- Perlen-Pyramide from the side ---------------------------------------------------------

SIDE_PEARL: Final = 22.0
SIDE_ROW: Final = SIDE_PEARL * 0.87
"""Rows of stacked balls are ~√3/2 of a diameter apart."""
SIDE_FACE_W: Final = 5 * SIDE_PEARL
SIDE_FACE_H: Final = 4 * SIDE_ROW + SIDE_PEARL
SIDE_PAD: Final = 14.0
SIDE_LABEL: Final = 16.0


@dataclass(frozen=True, slots=True)
class Face:
    side: str
    """``front`` (rank 1, player 1's side), ``right`` (file e), ``back``, ``left``."""
    places: tuple[Place, ...]
    label_x: float
    label_y: float


@dataclass(frozen=True, slots=True)
class SideView:
    width: float
    height: float
    faces: tuple[Face, ...]


def _face_positions(side: str, layer: int) -> list[Position]:
    """The positions of ``layer`` on one face, left to right as seen from that side."""
    n = layer_size(layer)
    last = n - 1
    row = [p for p in POSITIONS if p.layer == layer]
    if side == "front":  # looking north from rank 1: file a on the left
        return sorted((p for p in row if p.rank == 0), key=lambda p: p.file)
    if side == "right":  # looking west from file e: rank 1 on the left
        return sorted((p for p in row if p.file == last), key=lambda p: p.rank)
    if side == "back":  # looking south from rank 5: file e on the left
        return sorted((p for p in row if p.rank == last), key=lambda p: -p.file)
    return sorted((p for p in row if p.file == 0), key=lambda p: -p.rank)


SIDES: Final = ("front", "right", "back", "left")


def side_view(snapshot: Snapshot) -> SideView:
    """The four faces of the pyramid, each a triangle of 5 + 4 + 3 + 2 + 1 places."""
    marks = _marks(snapshot)
    faces = []
    cell_w = SIDE_FACE_W + 2 * SIDE_PAD
    cell_h = SIDE_FACE_H + SIDE_LABEL + 2 * SIDE_PAD
    for i, side in enumerate(SIDES):
        ox = (i % 2) * cell_w + SIDE_PAD
        oy = (i // 2) * cell_h + SIDE_PAD
        places = []
        for layer in range(1, 6):
            row = _face_positions(side, layer)
            indent = (layer - 1) * SIDE_PEARL / 2
            y = oy + SIDE_FACE_H - SIDE_PEARL / 2 - (layer - 1) * SIDE_ROW
            for k, pos in enumerate(row):
                places.append(
                    Place(
                        pos=pos.short,
                        layer=layer,
                        x=ox + indent + (k + 0.5) * SIDE_PEARL,
                        y=y,
                        size=SIDE_PEARL / 0.84,
                        visible=True,
                        pearl=marks.pearls.get(pos.short),
                        pending=marks.pending.get(pos.short),
                    )
                )
        faces.append(
            Face(side, tuple(places), ox + SIDE_FACE_W / 2, oy + SIDE_FACE_H + SIDE_LABEL - 2)
        )
    return SideView(2 * cell_w, 2 * cell_h, tuple(faces))


# -- Pyramidos -------------------------------------------------------------------------------

TARGET_NAMES: Final = ("t1", "t2", "t3", "t4", "top")
PYRAMIDOS_SIZE: Final = 300.0


@dataclass(frozen=True, slots=True)
class TargetMark:
    name: str
    x: float
    y: float
    r: float
    owner: Swatch | None
    open: bool
    """Only the top can be closed (until the four base targets hold a ball)."""
    sensed: bool
    missing: bool = False
    extra: bool = False


@dataclass(frozen=True, slots=True)
class PyramidosView:
    size: float
    targets: tuple[TargetMark, ...]
    steps: tuple[tuple[float, float, float], ...] = field(default=())
    """Concentric squares (x, y, side) drawing the stepped pyramid from above."""

    def target(self, name: str) -> TargetMark:
        for mark in self.targets:
            if mark.name == name:
                return mark
        raise KeyError(name)


# Base targets at the four corners of the second step, counted anticlockwise from the
# near left like the cells (t1 nearest seat 0); the top in the middle.
_TARGET_AT: Final = {
    "t1": (0.27, 0.73),
    "t2": (0.73, 0.73),
    "t3": (0.73, 0.27),
    "t4": (0.27, 0.27),
    "top": (0.5, 0.5),
}


def pyramidos_view(snapshot: Snapshot) -> PyramidosView:
    """The targets from above, each with its owner's swatch; the top open or closed."""
    palette = swatches(snapshot)
    sensed = set(snapshot.sensors)
    missing = {m.cell for m in snapshot.mismatches if m.kind == "missing"}
    extra = {m.cell for m in snapshot.mismatches if m.kind == "extra"}
    size = PYRAMIDOS_SIZE
    marks = []
    for name in TARGET_NAMES:
        fx, fy = _TARGET_AT[name]
        owner = snapshot.targets.get(name)
        marks.append(
            TargetMark(
                name=name,
                x=fx * size,
                y=fy * size,
                r=size * (0.1 if name == "top" else 0.085),
                owner=None if owner is None else swatch_of(palette, owner),
                open=snapshot.top_open if name == "top" else True,
                sensed=name in sensed,
                missing=name in missing,
                extra=name in extra,
            )
        )
    steps = tuple((size * f, size * f, size * (1 - 2 * f)) for f in (0.04, 0.14, 0.36))
    return PyramidosView(size, tuple(marks), steps)


# -- score bars ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScoreBar:
    swatch: Swatch
    value: int
    most: int
    """The bar's full length (41 visible pearls, 55 with ``score = all``, 6 in Pyramidos)."""
    extra: int | None = None
    """Perlen-Pyramide: all pearls of this colour in the pyramid (the tie-break)."""
    pool: int | None = None
    """Perlen-Pyramide: pearls left in this colour's pool (None: unlimited)."""
    to_move: bool = False
    winner: bool = False

    @property
    def fraction(self) -> float:
        return 0.0 if self.most <= 0 else max(0.0, min(1.0, self.value / self.most))


def _at(values: Sequence[int | None] | None, index: int) -> int | None:
    return values[index] if values is not None and index < len(values) else None


def score_bars(snapshot: Snapshot) -> tuple[ScoreBar, ...]:
    """One bar per player, in colour (Perlen) or seat (Pyramidos) order."""
    palette = swatches(snapshot)
    winners = set(snapshot.winners)
    scores = snapshot.scores
    if snapshot.game == "pyramidos":
        return tuple(
            ScoreBar(
                s, _at(scores.points, i) or 0, 6, to_move=snapshot.to_move == i, winner=i in winners
            )
            for i, s in enumerate(palette)
        )
    most = 55 if snapshot.options.get("score") == "all" else 41
    values = scores.scores or scores.visible
    return tuple(
        ScoreBar(
            s,
            _at(values, i) or 0,
            most,
            extra=_at(scores.totals, i),
            pool=_at(snapshot.pools_left, i),
            to_move=snapshot.to_move == i,
            winner=i in winners,
        )
        for i, s in enumerate(palette)
    )

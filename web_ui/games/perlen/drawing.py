"""Perlen-Pyramide's pictures, worked out from a snapshot: pure geometry, no markup
(``templates/_svg_perlen.html`` turns them into SVG).

It is drawn twice:

* **from above, layer by layer** (:func:`layers_view`): the 5×5 base large (the cells a
  virtual board player taps), layers 2 to 5 small beneath it, each with its coordinates.
  The outer ring of every layer is *visible* in the finished pyramid and so scores: a
  band marks it, so that a family sees why a pearl in the middle counts for nothing.
  While a bonus pearl is owed, its layer is drawn large too, with its place marked.
* **from the side** (:func:`side_view`): the four faces of the pyramid, which are exactly
  the pearls a family sees when they walk round the table.

>>> from controller.palette import PALETTE
>>> from controller.referee.snapshot import PlayerView, Snapshot
>>> from controller.games.perlen.snapshot import PearlView, PerlenParts
>>> players = tuple(PlayerView(i, i, n, c.hex, c.name, c.letter, c.pattern_id, None)
...                 for i, (n, c) in enumerate(zip(("Anna", "Ben", "Cleo"), PALETTE)))
>>> parts = PerlenParts(pearls=(PearlView("1:c3", 0), PearlView("2:b2", 2)))
>>> snap = Snapshot(game="perlen-pyramide", players=players, parts=parts)
>>> view = layers_view(snap)
>>> cell = view.cell("c3")
>>> cell.pearl.letter, cell.visible, (cell.x, cell.y)
('R', False, (162.0, 162.0))
>>> [p.pos for p in view.layers[1].places if p.pearl]
['2:b2']
>>> side_view(snap).faces[0].places[2].pos   # the front face, seen from player 1's seat
'c1'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from controller.games.perlen.snapshot import BonusView, parts_of
from controller.referee.snapshot import Snapshot
from controller.rules.notation import (
    FILES,
    POSITIONS,
    NotationError,
    Position,
    layer_size,
    parse_position,
)
from web_ui.drawing import ScoreBar, Swatch, at, mover, swatch_of, swatches

# -- from above -------------------------------------------------------------------------------

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
    legal: Swatch | None = None
    """An allowed cell (help for children): marked in the mover's colour."""
    hint: Swatch | None = None
    """A hint for the player to move: ringed in their colour."""
    computer: Swatch | None = None
    """The computer seat's chosen cell: ringed in its colour."""
    last: bool = False
    """The move just made (a replay marks it)."""
    sensed: bool = False
    """Base only: the sensor (or the virtual board) reads a pearl here."""
    held: Swatch | None = None
    """Base only: a pearl the sensor reads where the game has none yet and that is not
    wrong (the mover's, put down beside a wrong one): drawn faint in the mover's colour,
    so that the page shows it as the board does, never with a red ✕."""

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

    parts = parts_of(snapshot)
    pearls = {}
    for item in parts.pearls:
        if (pos := _position(item.pos)) is not None:
            pearls[pos.short] = swatch_of(palette, item.colour)
    pending = parts.pending
    # The first bonus pearl to place, as the words say it (the LEDs go round them all).
    shown = _position(pending[0].pos) if pending else None
    removals = shorts(parts.removals)
    if parts.removals:
        pearls.update(removals)  # still on the board until taken off
    return _Marks(
        pearls=pearls,
        pending=shorts(pending),
        shown=_position(parts.removals[0].pos) if parts.removals else shown,
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
        legal=marks.mover if name in marks.legal else None,
        hint=marks.mover if name == marks.hint else None,
        computer=marks.mover if name == marks.computer else None,
        last=name == marks.last,
        sensed=name in marks.sensed,
        held=marks.mover
        if name in marks.sensed and name not in marks.pearls and name not in marks.extra
        else None,
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
        parts = parts_of(snapshot)
        if parts.pending and not parts.removals:
            focus = _layer(shown.layer, marks, large=True)
    height = BASE_Y + layer_size(focus.number) * BASE_CELL + 30 if focus else 0.0
    return LayersView(LAYERS_WIDTH, LAYERS_HEIGHT, layers, box, focus, height)


# -- from the side -----------------------------------------------------------------------------

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


def score_bars(snapshot: Snapshot) -> tuple[ScoreBar, ...]:
    """One bar per player, in colour order: pearls out of 41 visible (55 when every pearl
    in the pyramid counts), with the totals and the pools left."""
    palette = swatches(snapshot)
    winners = set(snapshot.winners)
    parts = parts_of(snapshot)
    scores = parts.scores
    most = 55 if snapshot.options.get("score") == "all" else 41
    values = scores.scores or scores.visible
    return tuple(
        ScoreBar(
            s,
            at(values, i) or 0,
            most,
            extra=at(scores.totals, i),
            pool=at(parts.pools_left, i),
            to_move=snapshot.to_move == i,
            winner=i in winners,
        )
        for i, s in enumerate(palette)
    )

"""The pictures of the page, worked out from a snapshot dict: pure geometry, no markup.

The templates (``templates/_svg.html``) turn these values into SVG; keeping the numbers
here lets them be tested without a browser, and the same code draws the live game, each
step of a replay and the pictures of the rules page.

Perlen-Pyramide is drawn twice:

* **from above, layer by layer** (:func:`layers_view`): the 5×5 base large (the cells a
  virtual board player taps), layers 2 to 5 small beneath it. Pearls on the outer ring of
  their layer are *visible* in the finished pyramid and so score; they get a gold rim.
* **from the side** (:func:`side_view`): the four faces of the pyramid, which are exactly
  the pearls a family sees when they walk round the table.

>>> snap = {"players": [{"seat": 0, "colour": "#d62728", "colour_name": "red", "letter": "R"},
...                     {"seat": 1, "colour": "#1f77b4", "colour_name": "blue", "letter": "B"},
...                     {"seat": 2, "colour": "#f2c500", "colour_name": "yellow", "letter": "Y"}],
...         "pearls": [{"pos": "1:c3", "colour": 0}, {"pos": "2:b2", "colour": 2}]}
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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from controller import palette
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
    player: str = ""
    """The name of the player who plays it, if any."""
    seat: int | None = None


UNKNOWN = Swatch("#9e9e9e", "unknown", "?", "#000000")
"""For a colour number the snapshot names no player for (a damaged record)."""


def _ink(fill: str) -> str:
    """WCAG relative luminance: black text on light colours, white on dark ones."""
    try:
        r, g, b = (int(fill[i : i + 2], 16) / 255 for i in (1, 3, 5))
    except (ValueError, IndexError):
        return "#000000"

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    luminance = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    # Contrast against black (L+0.05)/0.05 vs white 1.05/(L+0.05): equal at L ≈ 0.179.
    return "#000000" if luminance > 0.179 else "#ffffff"


def _hex(value: object) -> str:
    if (
        isinstance(value, str)
        and len(value) == 7
        and value[0] == "#"
        and all(c in "0123456789abcdefABCDEF" for c in value[1:])
    ):
        return value.lower()
    return UNKNOWN.fill


def _pattern(name: str, fill: str, seat: int | None) -> str:
    try:
        return palette.by_name(name).pattern_id
    except palette.PaletteError:
        pass
    if fill == UNKNOWN.fill:
        return "pattern-plain"
    rgb = (int(fill[1:3], 16), int(fill[3:5], 16), int(fill[5:7], 16))
    return palette.from_rgb(rgb, seat if seat is not None else 0).pattern_id


def swatches(snapshot: Mapping[str, Any]) -> tuple[Swatch, ...]:
    """The players' swatches, in the order of the snapshot's ``players``: the index is the
    colour number (Perlen-Pyramide, turn order) or the seat (Pyramidos), which is what
    ``pearls``, ``to_move``, ``targets`` and ``winners`` refer to."""
    out = []
    for entry in snapshot.get("players") or ():
        if not isinstance(entry, Mapping):
            continue
        fill = _hex(entry.get("colour"))
        seat = entry.get("seat")
        seat = seat if isinstance(seat, int) and not isinstance(seat, bool) else None
        name = str(entry.get("colour_name") or "")
        pattern = entry.get("pattern")
        if not (isinstance(pattern, str) and pattern.startswith("pattern-") and pattern.isascii()
                and all(c.isalnum() or c == "-" for c in pattern)):  # fmt: skip
            pattern = _pattern(name, fill, seat)
        out.append(
            Swatch(
                fill=fill,
                name=name,
                letter=str(entry.get("letter") or "?")[:2],
                ink=_ink(fill),
                pattern=pattern,
                player=str(entry.get("name") or ""),
                seat=seat,
            )
        )
    return tuple(out)


def swatch_of(palette: Sequence[Swatch], colour: object) -> Swatch:
    if isinstance(colour, int) and not isinstance(colour, bool) and 0 <= colour < len(palette):
        return palette[colour]
    return UNKNOWN


# -- Perlen-Pyramide from above ------------------------------------------------------------

BASE_CELL: Final = 56.0
"""Side of a base cell in SVG units (a comfortable finger on a phone 360 px wide)."""
BASE_X: Final = 22.0
BASE_Y: Final = 22.0
UPPER_CELL: Final = 22.0
UPPER_GAP: Final = 20.0
UPPER_Y: Final = BASE_Y + 5 * BASE_CELL + 44.0
LAYERS_WIDTH: Final = BASE_X + 5 * BASE_CELL + 8.0
LAYERS_HEIGHT: Final = UPPER_Y + 4 * UPPER_CELL + 10.0


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
    """A bonus pearl of this colour is owed here (the first pending one is ``next``)."""
    next_pending: bool = False
    missing: Swatch | None = None
    """Base only: the game has a pearl of this colour here but the sensor sees none."""
    extra: bool = False
    """Base only: the sensor sees a pearl where the game has none."""
    footprint: Swatch | None = None
    """Base only: under the next pending bonus pearl (the LEDs blink these cells)."""
    legal: bool = False
    hint: bool = False
    computer: bool = False
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


@dataclass(frozen=True, slots=True)
class LayersView:
    width: float
    height: float
    layers: tuple[Layer, ...]
    files: tuple[tuple[str, float, float], ...]
    """Base file letters with their label position."""
    ranks: tuple[tuple[str, float, float], ...]
    footprint_box: tuple[float, float, float, float, Swatch] | None = None
    """x, y, width, height of the next bonus pearl's footprint on the base."""

    def cell(self, name: str) -> Place:
        """A base cell by name."""
        for place in self.layers[0].places:
            if place.pos == name:
                return place
        raise KeyError(name)


def _position(text: object) -> Position | None:
    if not isinstance(text, str):
        return None
    try:
        return parse_position(text)
    except NotationError:
        return None


def _centre(pos: Position) -> tuple[float, float, float]:
    """Centre and cell size of ``pos`` in the layers view (rank 1 nearest the viewer)."""
    if pos.layer == 1:
        size = BASE_CELL
        x = BASE_X + (pos.file + 0.5) * size
        y = BASE_Y + (4 - pos.rank + 0.5) * size
        return x, y, size
    size = UPPER_CELL
    x0 = BASE_X
    for layer in range(2, pos.layer):
        x0 += layer_size(layer) * size + UPPER_GAP
    n = layer_size(pos.layer)
    x = x0 + (pos.file + 0.5) * size
    y = UPPER_Y + (n - 1 - pos.rank + 0.5) * size
    return x, y, size


def _cells(items: object, key: str) -> set[str]:
    out = set()
    for item in items if isinstance(items, list | tuple) else ():
        value = item.get(key) if isinstance(item, Mapping) else item
        pos = _position(value)
        if pos is not None and pos.layer == 1:
            out.add(pos.short)
    return out


def layers_view(snapshot: Mapping[str, Any]) -> LayersView:
    """Every place of the pyramid, layer by layer, marked as the snapshot says."""
    palette = swatches(snapshot)
    pearls: dict[str, Swatch] = {}
    for item in snapshot.get("pearls") or ():
        if isinstance(item, Mapping) and (pos := _position(item.get("pos"))) is not None:
            pearls[pos.short] = swatch_of(palette, item.get("colour"))
    pending: dict[str, Swatch] = {}
    first_pending: Position | None = None
    for item in snapshot.get("pending") or ():
        if isinstance(item, Mapping) and (pos := _position(item.get("pos"))) is not None:
            pending[pos.short] = swatch_of(palette, item.get("colour"))
            first_pending = first_pending or pos
    missing: dict[str, Swatch] = {}
    extra: set[str] = set()
    for item in snapshot.get("mismatches") or ():
        if not isinstance(item, Mapping) or (pos := _position(item.get("cell"))) is None:
            continue
        if item.get("kind") == "extra":
            extra.add(pos.short)
        elif item.get("kind") == "missing":
            missing[pos.short] = swatch_of(palette, item.get("colour"))
    footprint = set(first_pending.footprint) if first_pending is not None else set()
    footprint_swatch = pending.get(first_pending.short) if first_pending is not None else None
    # Allowed cells are marked only when the game was started with help for children.
    legal = _cells(snapshot.get("legal") or (), "pos") if snapshot.get("children_help") else set()
    hint = _cells([snapshot.get("hint")], "pos")
    computer = _cells([snapshot.get("computer_move")], "pos")
    last = _cells([snapshot.get("last_move")], "pos")
    sensed = _cells(snapshot.get("sensors") or (), "pos")

    layers: list[Layer] = []
    for number in range(1, 6):
        places = []
        for pos in POSITIONS:
            if pos.layer != number:
                continue
            x, y, size = _centre(pos)
            name = pos.short
            places.append(
                Place(
                    pos=name,
                    layer=number,
                    x=x,
                    y=y,
                    size=size,
                    visible=pos.visible,
                    pearl=pearls.get(name),
                    pending=pending.get(name),
                    next_pending=first_pending is pos,
                    missing=missing.get(name),
                    extra=name in extra,
                    footprint=footprint_swatch if name in footprint else None,
                    legal=name in legal,
                    hint=name in hint,
                    computer=name in computer,
                    last=name in last,
                    sensed=name in sensed,
                )
            )
        first = places[0]
        label_x = first.left
        label_y = BASE_Y - 6 if number == 1 else UPPER_Y - 8
        layers.append(Layer(number, tuple(places), label_x, label_y))
    files = tuple(
        (f, BASE_X + (i + 0.5) * BASE_CELL, BASE_Y + 5 * BASE_CELL + 16)
        for i, f in enumerate(FILES)
    )
    ranks = tuple((str(r + 1), BASE_X / 2, BASE_Y + (4 - r + 0.5) * BASE_CELL) for r in range(5))
    box = None
    if first_pending is not None and footprint_swatch is not None:
        n = first_pending.layer
        box = (
            BASE_X + first_pending.file * BASE_CELL,
            BASE_Y + (5 - first_pending.rank - n) * BASE_CELL,
            n * BASE_CELL,
            n * BASE_CELL,
            footprint_swatch,
        )
    return LayersView(LAYERS_WIDTH, LAYERS_HEIGHT, tuple(layers), files, ranks, box)


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


def side_view(snapshot: Mapping[str, Any]) -> SideView:
    """The four faces of the pyramid, each a triangle of 5 + 4 + 3 + 2 + 1 places."""
    palette = swatches(snapshot)
    pearls: dict[str, Swatch] = {}
    for item in snapshot.get("pearls") or ():
        if isinstance(item, Mapping) and (pos := _position(item.get("pos"))) is not None:
            pearls[pos.short] = swatch_of(palette, item.get("colour"))
    pending: dict[str, Swatch] = {}
    for item in snapshot.get("pending") or ():
        if isinstance(item, Mapping) and (pos := _position(item.get("pos"))) is not None:
            pending[pos.short] = swatch_of(palette, item.get("colour"))
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
                        pearl=pearls.get(pos.short),
                        pending=pending.get(pos.short),
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
_TARGET_AT: Final[Mapping[str, tuple[float, float]]] = {
    "t1": (0.27, 0.73),
    "t2": (0.73, 0.73),
    "t3": (0.73, 0.27),
    "t4": (0.27, 0.27),
    "top": (0.5, 0.5),
}


def pyramidos_view(snapshot: Mapping[str, Any]) -> PyramidosView:
    """The targets from above, each with its owner's swatch; the top open or closed."""
    palette = swatches(snapshot)
    owners = snapshot.get("targets") if isinstance(snapshot.get("targets"), Mapping) else {}
    sensed = {s for s in snapshot.get("sensors") or () if isinstance(s, str)}
    top_open = bool(snapshot.get("top_open"))
    size = PYRAMIDOS_SIZE
    marks = []
    for name in TARGET_NAMES:
        fx, fy = _TARGET_AT[name]
        owner = owners.get(name) if isinstance(owners, Mapping) else None
        marks.append(
            TargetMark(
                name=name,
                x=fx * size,
                y=fy * size,
                r=size * (0.1 if name == "top" else 0.085),
                owner=None if owner is None else swatch_of(palette, owner),
                open=top_open if name == "top" else True,
                sensed=name in sensed,
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


def _ints(value: object) -> list[int | None]:
    if not isinstance(value, list | tuple):
        return []
    return [v if isinstance(v, int) and not isinstance(v, bool) else None for v in value]


def score_bars(snapshot: Mapping[str, Any]) -> tuple[ScoreBar, ...]:
    """One bar per player, in colour (Perlen) or seat (Pyramidos) order."""
    palette = swatches(snapshot)
    scores = snapshot.get("scores") if isinstance(snapshot.get("scores"), Mapping) else {}
    assert isinstance(scores, Mapping)
    winners = {w for w in _ints(snapshot.get("winners")) if w is not None}
    to_move = snapshot.get("to_move")
    bars = []
    if snapshot.get("game") == "pyramidos":
        points = _ints(scores.get("points"))
        for index, swatch in enumerate(palette):
            value = points[index] if index < len(points) else None
            bars.append(
                ScoreBar(
                    swatch,
                    value or 0,
                    6,
                    to_move=to_move == index,
                    winner=index in winners,
                )
            )
        return tuple(bars)
    options = snapshot.get("options") if isinstance(snapshot.get("options"), Mapping) else {}
    assert isinstance(options, Mapping)
    most = 55 if options.get("score") == "all" else 41
    values = _ints(scores.get("scores")) or _ints(scores.get("visible"))
    totals = _ints(scores.get("totals"))
    pools = _ints(snapshot.get("pools_left"))
    for colour, swatch in enumerate(palette):
        bars.append(
            ScoreBar(
                swatch,
                (values[colour] if colour < len(values) else None) or 0,
                most,
                extra=totals[colour] if colour < len(totals) else None,
                pool=pools[colour] if colour < len(pools) else None,
                to_move=to_move == colour,
                winner=colour in winners,
            )
        )
    return tuple(bars)

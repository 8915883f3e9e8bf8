"""The LED supply's voltage drop, solved on the routed copper of a ``.kicad_pcb``.

The copper of one net is a resistor network: its filled pours and pads rasterised into
square cells (a cell is copper when its centre is), each cell joined to its four
neighbours by the sheet's resistance; its tracks as resistors ρ·L/(w·t) between the
cells at their ends (where a track lies in its net's own pour, the pour's cells already
carry it); its vias as resistors ρ·h/(π·d·t_plating) between the two layers' cells. The
supply's entry is held at 0 V, every load draws its current at its pad, and the network
is solved (a sparse Laplacian, scipy's direct solver). An LED's supply is its VDD pad's
potential less its GND pad's: the drop at the LED is what the +5V copper loses on the
way there plus what the ground copper gains on the way back.

Figures (the sources are cited where each is used):

- copper's resistivity 1.724 × 10⁻⁸ Ω·m at 20 °C (IEC 60028, the International
  Annealed Copper Standard), 0.393 %/K (the same standard's 0.00393/K);
- 1 oz copper 34.8 µm thick (IPC-2221A, the table of copper foil thicknesses: 1 oz/ft²
  = 0.0014 in); the fab's outer layers are 1 oz finished (JLCPCB's standard stack-up);
- a via's barrel plated 20 µm (IPC-6012 class 2, the least average hole-wall copper)
  through 1.6 mm.

Read with :mod:`hardware.pcb.sexpr` in the project's venv: no KiCad needed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sparse
import scipy.sparse.linalg as linalg
from scipy.sparse import csgraph

from hardware.pcb import sexpr
from hardware.pcb.footprints import rotate

__all__ = [
    "COPPER_RESISTIVITY",
    "Copper",
    "Load",
    "Network",
    "read_copper",
    "sheet_ohms",
    "solve",
]

COPPER_RESISTIVITY = 1.724e-8
"""Ω·m at 20 °C, annealed copper (IEC 60028)."""
TEMPERATURE_COEFFICIENT = 0.00393
"""Per kelvin, the same standard's."""
COPPER_THICKNESS = 34.8e-6
"""m: 1 oz/ft² (IPC-2221A, copper foil thickness table: 0.0014 in)."""
VIA_PLATING = 20e-6
"""m: the barrel's copper (IPC-6012 class 2, least average)."""
BOARD_THICKNESS = 1.6e-3


def sheet_ohms(celsius: float = 20.0) -> float:
    """The copper's resistance per square at ``celsius``."""
    rho = COPPER_RESISTIVITY * (1 + TEMPERATURE_COEFFICIENT * (celsius - 20.0))
    return rho / COPPER_THICKNESS


@dataclass(frozen=True)
class Segment:
    layer: str
    start: tuple[float, float]
    end: tuple[float, float]
    width: float


@dataclass(frozen=True)
class PadCopper:
    ref: str
    pad: str
    layers: tuple[str, ...]
    x: float
    y: float
    width: float
    height: float
    """The pad's box on the board (turned with its footprint: a box around it)."""


@dataclass
class Copper:
    """One net's copper in a board file."""

    net: str
    polygons: dict[str, list[list[tuple[float, float]]]] = field(default_factory=dict)
    """Layer → the pour's filled polygons."""
    segments: list[Segment] = field(default_factory=list)
    vias: list[tuple[float, float, float]] = field(default_factory=list)
    """(x, y, drill)."""
    pads: list[PadCopper] = field(default_factory=list)


def read_copper(path: Path, nets: Iterable[str]) -> dict[str, Copper]:
    """The copper of ``nets`` in the ``.kicad_pcb`` at ``path``."""
    root = sexpr.parse(path.read_text(encoding="utf-8"))
    wanted = set(nets)
    names = {str(n[1]): str(n[2]) for n in sexpr.children(root, "net") if len(n) > 2}
    out = {net: Copper(net) for net in wanted}

    def net_of(item: sexpr.Expr) -> str | None:
        ref = sexpr.child(item, "net")
        if ref is None or len(ref) < 2:
            return None
        name = names.get(str(ref[1]))
        return name if name in wanted else None

    for seg in sexpr.children(root, "segment"):
        net = net_of(seg)
        if net is None:
            continue
        sx, sy = sexpr.numbers(sexpr.child(seg, "start"), 2)
        ex, ey = sexpr.numbers(sexpr.child(seg, "end"), 2)
        (w,) = sexpr.numbers(sexpr.child(seg, "width"), 1)
        layer = sexpr.child(seg, "layer")
        assert layer is not None
        out[net].segments.append(Segment(str(layer[1]), (sx, sy), (ex, ey), w))
    for via in sexpr.children(root, "via"):
        net = net_of(via)
        if net is None:
            continue
        x, y = sexpr.numbers(sexpr.child(via, "at"), 2)
        (drill,) = sexpr.numbers(sexpr.child(via, "drill"), 1)
        out[net].vias.append((x, y, drill))
    for zone in sexpr.children(root, "zone"):
        net_name = sexpr.child(zone, "net_name")
        name = str(net_name[1]) if net_name else ""
        if name not in wanted:
            continue
        for filled in sexpr.children(zone, "filled_polygon"):
            layer = sexpr.child(filled, "layer")
            pts = sexpr.child(filled, "pts")
            assert layer is not None and pts is not None
            polygon = [
                (x, y) for x, y in (sexpr.numbers(xy, 2) for xy in sexpr.children(pts, "xy"))
            ]
            out[name].polygons.setdefault(str(layer[1]), []).append(polygon)
    for fp in sexpr.children(root, "footprint"):
        fx, fy, fa = sexpr.numbers(sexpr.child(fp, "at"), 3)
        ref = next(
            (
                str(t[2])
                for t in sexpr.children(fp, "fp_text")
                if len(t) > 2 and t[1] == "reference"
            ),
            "?",
        )
        for pad in sexpr.children(fp, "pad"):
            net = net_of(pad)
            if net is None:
                continue
            px, py, pa = sexpr.numbers(sexpr.child(pad, "at"), 3)
            w, h = sexpr.numbers(sexpr.child(pad, "size"), 2)
            dx, dy = rotate(px, py, fa)
            # a pad's own angle includes its footprint's; a box around the turned pad
            a = math.radians(pa)
            c, s = abs(math.cos(a)), abs(math.sin(a))
            layers = sexpr.child(pad, "layers")
            assert layers is not None
            on = tuple(str(x) for x in layers[1:])
            copper = tuple(lay for lay in ("F.Cu", "B.Cu") if lay in on or "*.Cu" in on)
            out[net].pads.append(
                PadCopper(ref, str(pad[1]), copper, fx + dx, fy + dy, w * c + h * s, w * s + h * c)
            )
    return out


@dataclass(frozen=True)
class Load:
    """A current drawn from the net (positive: out of the net) at one pad."""

    ref: str
    pad: str
    amps: float


class Network:
    """One net's copper as a resistor network on a ``cell`` mm grid."""

    def __init__(self, copper: Copper, width: float, height: float, cell: float = 0.5,
                 celsius: float = 20.0) -> None:  # fmt: skip
        self.copper = copper
        self.cell = cell
        self.nx = math.ceil(width / cell) + 1
        self.ny = math.ceil(height / cell) + 1
        self.layers = ("F.Cu", "B.Cu")
        self.r_sheet = sheet_ohms(celsius)
        self.rho = COPPER_RESISTIVITY * (1 + TEMPERATURE_COEFFICIENT * (celsius - 20.0))
        grids = {lay: np.zeros((self.ny, self.nx), dtype=bool) for lay in self.layers}
        for layer, polygons in copper.polygons.items():
            for polygon in polygons:
                grids[layer] |= _raster(polygon, self.nx, self.ny, cell)
        for pad in copper.pads:
            for layer in pad.layers:
                i0, i1 = self._span(pad.x - pad.width / 2, pad.x + pad.width / 2, self.nx)
                j0, j1 = self._span(pad.y - pad.height / 2, pad.y + pad.height / 2, self.ny)
                grids[layer][j0 : j1 + 1, i0 : i1 + 1] = True
        self.grids = grids
        self.index: dict[tuple[int, int, int], int] = {}
        rows: list[int] = []
        cols: list[int] = []
        conductances: list[float] = []
        for k, layer in enumerate(self.layers):
            g = grids[layer]
            js, is_ = np.nonzero(g)
            for j, i in zip(js.tolist(), is_.tolist(), strict=True):
                self.index[(k, j, i)] = len(self.index)
            # neighbours to the right and below, both copper: one square each
            for dj, di in ((0, 1), (1, 0)):
                both = g[: self.ny - dj, : self.nx - di] & g[dj:, di:]
                bj, bi = np.nonzero(both)
                for j, i in zip(bj.tolist(), bi.tolist(), strict=True):
                    rows.append(self.index[(k, j, i)])
                    cols.append(self.index[(k, j + dj, i + di)])
                    conductances.append(1.0 / self.r_sheet)
        for seg in copper.segments:
            k = self.layers.index(seg.layer)
            a, b = self._node(k, *seg.start), self._node(k, *seg.end)
            length = math.hypot(seg.end[0] - seg.start[0], seg.end[1] - seg.start[1]) * 1e-3
            if a == b or length == 0 or self._inside(seg, k):
                continue
            rows.append(a)
            cols.append(b)
            conductances.append(seg.width * 1e-3 * COPPER_THICKNESS / (self.rho * length))
        for x, y, drill in copper.vias:
            a, b = self._node(0, x, y), self._node(1, x, y)
            barrel = math.pi * drill * 1e-3 * VIA_PLATING
            rows.append(a)
            cols.append(b)
            conductances.append(barrel / (self.rho * BOARD_THICKNESS))
        n = len(self.index)
        r, c, g_ = np.array(rows), np.array(cols), np.array(conductances)
        off = sparse.coo_matrix((-g_, (r, c)), shape=(n, n))
        lap = off + off.T
        diagonal = -np.asarray(lap.sum(axis=1)).ravel()
        self.laplacian = (lap + sparse.diags(diagonal)).tocsc()

    def _span(self, lo: float, hi: float, count: int) -> tuple[int, int]:
        i0 = max(0, math.ceil(lo / self.cell - 0.5))
        i1 = min(count - 1, math.floor(hi / self.cell - 0.5))
        if i1 < i0:  # smaller than a cell: the cell it is in
            i0 = i1 = min(count - 1, max(0, int((lo + hi) / 2 / self.cell)))
        return i0, i1

    def _cell(self, x: float, y: float) -> tuple[int, int]:
        return (
            min(self.ny - 1, max(0, int(y / self.cell))),
            min(self.nx - 1, max(0, int(x / self.cell))),
        )

    def _node(self, k: int, x: float, y: float) -> int:
        j, i = self._cell(x, y)
        key = (k, j, i)
        if key not in self.index:
            self.index[key] = len(self.index)
            self._grow()
        return self.index[key]

    def _grow(self) -> None:
        """A node outside the raster (a track's end off the pour): one more row."""
        if hasattr(self, "laplacian"):
            raise AssertionError("nodes are added before the network is built")

    def _inside(self, seg: Segment, k: int) -> bool:
        """A track in its net's own pour: the pour's cells carry it already."""
        g = self.grids[self.layers[k]]
        for t in (0.0, 0.5, 1.0):
            x = seg.start[0] + t * (seg.end[0] - seg.start[0])
            y = seg.start[1] + t * (seg.end[1] - seg.start[1])
            j, i = self._cell(x, y)
            if not g[j, i]:
                return False
        return True

    def pad_node(self, ref: str, pad: str) -> int:
        """The node at a pad's centre (its first layer)."""
        for p in self.copper.pads:
            if p.ref == ref and p.pad == pad:
                k = self.layers.index(p.layers[0])
                j, i = self._cell(p.x, p.y)
                return self.index[(k, j, i)]
        raise KeyError(f"{self.copper.net}: no pad {ref}.{pad}")

    def potentials(self, source: tuple[str, str], loads: Sequence[Load]) -> np.ndarray:
        """Each node's potential with ``source`` held at 0 V and every load drawing its
        current (the rest of the network floats). A node the source cannot reach is
        reported as an error: it would have no potential."""
        n = self.laplacian.shape[0]
        current = np.zeros(n)
        for load in loads:
            current[self.pad_node(load.ref, load.pad)] -= load.amps
        s = self.pad_node(*source)
        # only the copper joined to the source has a potential; a load off it is an error
        _, label = csgraph.connected_components(self.laplacian, directed=False)
        keep = label == label[s]
        stranded = [x for x in loads if not keep[self.pad_node(x.ref, x.pad)]]
        if stranded:
            names = ", ".join(f"{x.ref}.{x.pad}" for x in stranded)
            raise ValueError(f"{self.copper.net}: no copper joins {names} to the supply")
        keep[s] = False
        reduced = self.laplacian[keep][:, keep]
        volts = np.zeros(n)
        solved = linalg.spsolve(reduced.tocsc(), current[keep])
        volts[keep] = solved
        return volts


def _raster(polygon: Sequence[tuple[float, float]], nx: int, ny: int, cell: float) -> np.ndarray:
    """Cells whose centre is inside ``polygon`` (even–odd rule, as KiCad's fills are
    fractured polygons without holes)."""
    out = np.zeros((ny, nx), dtype=bool)
    pts = np.asarray(polygon, dtype=float)
    x0, y0 = pts[:, 0], pts[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    lo, hi = (
        int(max(0, math.floor(pts[:, 1].min() / cell))),
        int(min(ny - 1, math.ceil(pts[:, 1].max() / cell))),
    )
    for j in range(lo, hi + 1):
        y = (j + 0.5) * cell
        crossing = (y0 <= y) != (y1 <= y)
        if not crossing.any():
            continue
        xs = np.sort(
            x0[crossing] + (y - y0[crossing]) * (x1[crossing] - x0[crossing])
            / (y1[crossing] - y0[crossing])
        )  # fmt: skip
        for a, b in zip(xs[0::2], xs[1::2], strict=False):
            i0 = max(0, math.ceil(a / cell - 0.5))
            i1 = min(nx - 1, math.floor(b / cell - 0.5))
            if i1 >= i0:
                out[j, i0 : i1 + 1] = True
    return out


@dataclass(frozen=True)
class Drop:
    """One LED's supply, solved."""

    ref: str
    supply_volts: float
    """How much lower its VDD–GND is than the supply's entry's."""
    positive: float
    ground: float


def solve(
    path: Path,
    width: float,
    height: float,
    leds: Mapping[str, float],
    others: Sequence[tuple[str, str, str, str, float]],
    entry: Mapping[str, tuple[str, str]],
    cell: float = 0.5,
    celsius: float = 20.0,
    vdd_pad: str = "1",
    gnd_pad: str = "6",
) -> list[Drop]:
    """Every LED's supply drop. ``leds``: reference → amps (VDD is ``vdd_pad``, GND
    ``gnd_pad``: 1 and 6 on the APA102-2020, 4 and 2 on the WS2812B-2020);
    ``others``: (ref, +5V pad, ref, GND pad, amps) of the other loads; ``entry``: net →
    the (ref, pad) where the supply enters it (the fuse's output, the socket's GND)."""
    copper = read_copper(path, ("+5V", "GND"))
    volts: dict[str, np.ndarray] = {}
    networks: dict[str, Network] = {}
    for net, led_pad in (("+5V", vdd_pad), ("GND", gnd_pad)):
        network = Network(copper[net], width, height, cell, celsius)
        loads = [Load(ref, led_pad, amps) for ref, amps in leds.items()]
        loads += [
            Load(r5, p5, amps) if net == "+5V" else Load(rg, pg, amps)
            for r5, p5, rg, pg, amps in others
        ]
        if net == "GND":  # the current comes back into the ground copper
            loads = [Load(x.ref, x.pad, -x.amps) for x in loads]
        networks[net] = network
        volts[net] = network.potentials(entry[net], loads)
    out = []
    for ref in leds:
        down = -volts["+5V"][networks["+5V"].pad_node(ref, vdd_pad)]
        up = volts["GND"][networks["GND"].pad_node(ref, gnd_pad)]
        out.append(Drop(ref, down + up, down, up))
    return sorted(out, key=lambda d: -d.supply_volts)

"""A small maze router: every net's pads joined by tracks on a 0.5 mm grid, two layers.

KiCad 6 has no autorouter and none of the free ones fits a generated flow, so the
generator places the tracks itself. The boards are sparse (a few small parts per 25 mm
cell), so an A* search per connection on a grid finds short, clean routes: horizontal
runs preferred on the top copper, vertical ones on the bottom, a via costs as much as
eight grid steps, a turn a little. Nets are routed widest first, then by how many pads
they have; each new pad is joined to the tree of its net already routed.

The grid and the widths are chosen so that spacing holds by construction with the fab's
0.15 mm clearance (JLCPCB's for two layers): two tracks on neighbouring grid lines 0.5 mm
apart leave 0.25 mm (signal, 0.25 mm wide) or 0.175 mm (a 0.4 mm power track beside a
signal); two power nets never take neighbouring lines; a via (0.6 mm, 0.3 mm drill)
keeps every grid point around it for its own net. KiCad's DRC checks the result.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass

from hardware.pcb.design import POWER_NETS, Board, Placed, Track, Via

__all__ = ["RouteError", "Rules", "route"]


class RouteError(RuntimeError):
    """A connection the router could not make; names the net and the pad."""


@dataclass(frozen=True)
class Rules:
    """The fab's rules (JLCPCB, two layers) and the widths this project routes with."""

    grid: float = 0.5
    signal: float = 0.25
    power: float = 0.4
    clearance: float = 0.15
    via: float = 0.6
    drill: float = 0.3
    edge: float = 0.6
    """Copper kept this far from the board's edge (JLCPCB: at least 0.3 mm)."""


FREE, BLOCKED, MANY = -1, -2, -3
VIA_COST, TURN_COST, AGAINST_GRAIN, GREED = 8.0, 0.4, 1.0, 1.6


@dataclass
class _PadShape:
    net: int
    x: float
    y: float
    hw: float
    hh: float
    layers: tuple[int, ...]
    ref: str
    pad: str


def _shapes(part: Placed, net_id: dict[str, int]) -> list[_PadShape]:
    out = []
    a = math.radians(part.angle)
    c, s = abs(math.cos(a)), abs(math.sin(a))
    own = (0,) if part.side == "F" else (1,)
    for pad in part.footprint.pads:
        x, y = part.local(pad.x, pad.y)
        w = pad.width * c + pad.height * s
        h = pad.width * s + pad.height * c
        layers: tuple[int, ...]
        if pad.kind == "hole":
            # KiCad keeps copper 0.25 mm from a hole (the rules' hole clearance), not 0.15
            net, layers = BLOCKED, (0, 1)
            w, h = w + 0.2, h + 0.2
        else:
            name = part.nets.get(pad.name, "")
            net = net_id.get(name, BLOCKED)
            layers = own if pad.kind == "smd" else (0, 1)
        out.append(_PadShape(net, x, y, w / 2, h / 2, layers, part.ref, pad.name))
    return out


class _Grid:
    def __init__(self, board: Board, rules: Rules, net_id: dict[str, int]) -> None:
        self.rules = rules
        g = rules.grid
        self.nx = int(board.width / g) + 1
        self.ny = int(board.height / g) + 1
        size = self.nx * self.ny
        self.owner = [[FREE] * size for _ in range(2)]
        self.halo = [[FREE] * size for _ in range(2)]
        self.wide = [[FREE] * size for _ in range(2)]
        """Per layer: the net of a wide (power) track through each node."""
        edge = rules.edge + rules.power / 2
        r = board.corner_radius
        for j in range(self.ny):
            for i in range(self.nx):
                x, y = i * g, j * g
                # a rounded corner: the distance to the arc's centre, less its radius
                cx, cy = min(max(x, r), board.width - r), min(max(y, r), board.height - r)
                inside = r - math.hypot(x - cx, y - cy) if r else math.inf
                if min(x, y, board.width - x, board.height - y, inside) < edge:
                    for layer in (0, 1):
                        self.owner[layer][j * self.nx + i] = BLOCKED
        for hole in board.holes:
            self._disc(hole.x, hole.y, hole.diameter / 2 + rules.clearance + rules.power / 2)
        for layer_name, (x0, y0, x1, y1) in board.keepouts:
            for idx in self._nodes_in(x0, y0, x1, y1):
                self.owner[0 if layer_name == "F.Cu" else 1][idx] = BLOCKED
        self.pads: list[_PadShape] = []
        self.pad_nodes: set[tuple[int, int]] = set()
        """Nodes inside pads (the stub check leaves them to the pads' own test)."""
        for part in board.parts:
            for shape in _shapes(part, net_id):
                self.pads.append(shape)
                self._mark_pad(shape)
        # tracks and vias the design fixed before routing (fan-outs): a via is a pad on
        # both layers; a track keeps other nets away and joins the pads at its ends
        self.links: list[tuple[_PadShape, _PadShape]] = []
        for via in board.vias:
            net = net_id[via.net]
            shape = _PadShape(net, via.at[0], via.at[1], rules.via / 2, rules.via / 2, (0, 1),
                              "via", f"{via.at[0]:g},{via.at[1]:g}")  # fmt: skip
            self.pads.append(shape)
            self._mark_pad(shape)
            for idx in self._nodes_in(via.at[0] - 0.01, via.at[1] - 0.01,
                                      via.at[0] + 0.01, via.at[1] + 0.01):  # fmt: skip
                self.take_via(idx, net)
        for track in board.tracks:
            net = net_id[track.net]
            layer = 0 if track.layer == "F.Cu" else 1
            self._mark_segment(track, net, layer)
            ends = [self._pad_at(track.start, net), self._pad_at(track.end, net)]
            if ends[0] is not None and ends[1] is not None:
                self.links.append((ends[0], ends[1]))

    def _pad_at(self, at: tuple[float, float], net: int) -> _PadShape | None:
        for p in self.pads:
            if p.net == net and abs(p.x - at[0]) < 1e-3 and abs(p.y - at[1]) < 1e-3:
                return p
        return None

    def _mark_segment(self, t: Track, net: int, layer: int) -> None:
        grow = self.rules.clearance + t.width / 2 + self.rules.signal / 2
        (x0, y0), (x1, y1) = t.start, t.end
        length = math.hypot(x1 - x0, y1 - y0) or 1e-9
        for idx in self._nodes_in(min(x0, x1) - grow, min(y0, y1) - grow,
                                  max(x0, x1) + grow, max(y0, y1) + grow):  # fmt: skip
            px, py = self.xy(idx)
            u = max(0.0, min(1.0, ((px - x0) * (x1 - x0) + (py - y0) * (y1 - y0)) / length**2))
            d = math.hypot(px - (x0 + u * (x1 - x0)), py - (y0 + u * (y1 - y0)))
            if d < t.width / 2:
                own = self.owner[layer]
                own[idx] = net if own[idx] in (FREE, net) else BLOCKED
            if d < grow:
                halo = self.halo[layer]
                halo[idx] = net if halo[idx] in (FREE, net) else MANY

    def _disc(self, x: float, y: float, r: float) -> None:
        for idx in self._nodes_in(x - r, y - r, x + r, y + r):
            nx, ny = self.xy(idx)
            if math.hypot(nx - x, ny - y) < r:
                self.owner[0][idx] = self.owner[1][idx] = BLOCKED

    def _nodes_in(self, x0: float, y0: float, x1: float, y1: float) -> Iterable[int]:
        g = self.rules.grid
        for j in range(max(0, math.ceil(y0 / g)), min(self.ny - 1, math.floor(y1 / g)) + 1):
            for i in range(max(0, math.ceil(x0 / g)), min(self.nx - 1, math.floor(x1 / g)) + 1):
                yield j * self.nx + i

    def _mark_pad(self, p: _PadShape) -> None:
        inner = 1e-6
        grow = self.rules.clearance + self.rules.signal / 2
        for layer in p.layers:
            own, halo = self.owner[layer], self.halo[layer]
            for idx in self._nodes_in(p.x - p.hw + inner, p.y - p.hh + inner,
                                      p.x + p.hw - inner, p.y + p.hh - inner):  # fmt: skip
                own[idx] = p.net if own[idx] in (FREE, p.net) else BLOCKED
                self.pad_nodes.add((layer, idx))
            for idx in self._nodes_in(p.x - p.hw - grow, p.y - p.hh - grow,
                                      p.x + p.hw + grow, p.y + p.hh + grow):  # fmt: skip
                if halo[idx] == FREE:
                    halo[idx] = p.net
                elif halo[idx] != p.net:
                    halo[idx] = MANY

    def xy(self, idx: int) -> tuple[float, float]:
        g = self.rules.grid
        return (idx % self.nx) * g, (idx // self.nx) * g

    def neighbours(self, idx: int) -> list[int]:
        i, j = idx % self.nx, idx // self.nx
        out = []
        if i > 0:
            out.append(idx - 1)
        if i < self.nx - 1:
            out.append(idx + 1)
        if j > 0:
            out.append(idx - self.nx)
        if j < self.ny - 1:
            out.append(idx + self.nx)
        return out

    def ring(self, idx: int) -> list[int]:
        """The eight neighbours (fewer at the edge)."""
        i, j = idx % self.nx, idx // self.nx
        return [
            (j + dj) * self.nx + i + di
            for dj in (-1, 0, 1)
            for di in (-1, 0, 1)
            if (di or dj) and 0 <= i + di < self.nx and 0 <= j + dj < self.ny
        ]

    def usable(self, layer: int, idx: int, net: int, wide: bool = False) -> bool:
        if self.owner[layer][idx] not in (FREE, net) or self.halo[layer][idx] not in (FREE, net):
            return False
        if wide:
            w, halo = self.wide[layer], self.halo[layer]
            return all(w[n] in (FREE, net) and halo[n] in (FREE, net) for n in self.neighbours(idx))
        return True

    def via_ok(self, idx: int, net: int) -> bool:
        for layer in (0, 1):
            if not self.usable(layer, idx, net):
                return False
            own, halo = self.owner[layer], self.halo[layer]
            for n in self.ring(idx):
                if own[n] not in (FREE, net) or halo[n] not in (FREE, net):
                    return False
        return True

    def take(self, layer: int, idx: int, net: int, wide: bool = False) -> None:
        self.owner[layer][idx] = net
        if wide:
            self.wide[layer][idx] = net

    def take_via(self, idx: int, net: int) -> None:
        for layer in (0, 1):
            self.owner[layer][idx] = net
            for n in self.ring(idx):
                halo = self.halo[layer]
                halo[n] = net if halo[n] in (FREE, net) else MANY

    def stub_clear(self, pad: _PadShape, to: tuple[float, float], width: float, layer: int) -> bool:
        """The straight stub from the pad's centre to ``to`` keeps clear of other pads and
        of the tracks already there."""
        gap = self.rules.clearance + width / 2
        steps = 8
        reach = gap + self.rules.power / 2
        own = self.owner[layer]
        for k in range(steps + 1):
            x = pad.x + (to[0] - pad.x) * k / steps
            y = pad.y + (to[1] - pad.y) * k / steps
            for idx in self._nodes_in(x - reach, y - reach, x + reach, y + reach):
                if own[idx] in (FREE, pad.net) or (layer, idx) in self.pad_nodes:
                    continue
                nx, ny = self.xy(idx)
                if math.hypot(nx - x, ny - y) < reach and own[idx] >= 0:
                    return False
        for other in self.pads:
            if other.net == pad.net and other.net != BLOCKED:
                continue
            if abs(other.x - pad.x) > 4 or abs(other.y - pad.y) > 4:
                continue
            if layer not in other.layers:
                continue
            for k in range(steps + 1):
                x = pad.x + (to[0] - pad.x) * k / steps
                y = pad.y + (to[1] - pad.y) * k / steps
                if abs(x - other.x) < other.hw + gap and abs(y - other.y) < other.hh + gap:
                    return False
        return True


State = tuple[int, int, int]  # layer, node, direction (0 none, 1 horizontal, 2 vertical)


def route(board: Board, rules: Rules = Rules()) -> Board:
    """The board with every net's pads joined by tracks and vias; :class:`RouteError` if
    a pad cannot be reached."""
    nets = board.nets()
    routable = [n for n in nets if not n.startswith("unconnected-")]
    net_id = {name: i for i, name in enumerate(routable)}
    # the LEDs' clock (its pads sit in the middle of the LED's sides: they get out only
    # sideways) and data first, then power, then the rest by size; the poured nets last
    # (the pours carry their current: their tracks only make sure every pad is joined)
    poured = {net for _, net in board.pours}
    first = {n: i for i, n in enumerate(board.route_first)}
    order = sorted(
        routable,
        key=lambda n: (
            not n.startswith("LED_"),
            n in poured,
            first.get(n, len(first)),
            n not in POWER_NETS,
            -len(nets[n]),
            n,
        ),
    )
    failures: list[str] = []
    for _attempt in range(ATTEMPTS):
        grid = _Grid(board, rules, net_id)
        tracks: list[Track] = list(board.tracks)
        vias: list[Via] = list(board.vias)
        try:
            for name in order:
                _route_net(grid, name, net_id[name], rules, tracks, vias, frozenset(poured))
        except _Stuck as stuck:
            # rip everything up and route the net that got stuck first next time
            failures.append(str(stuck))
            order.remove(stuck.net)
            order.insert(0, stuck.net)
            continue
        return board.routed(*_prune(board, tracks, vias))
    raise RouteError(f"{board.name}: gave up after {ATTEMPTS} attempts: " + "; ".join(failures))


def _prune(
    board: Board, tracks: list[Track], vias: list[Via]
) -> tuple[tuple[Track, ...], tuple[Via, ...]]:
    """Drop the fan-out vias no route took to the bottom layer (those of a poured net
    stay: the pours take them), and those with copper on one layer only (a back stub no
    route took on); and their stubs when no route reached them at all."""
    fixed = set(board.tracks)

    def ends_at(at: tuple[float, float], layer: str, routed_only: bool) -> bool:
        return any(
            t.layer == layer
            and (not routed_only or t not in fixed)
            and (_near(t.start, at) or _near(t.end, at))
            for t in tracks
        )

    poured = {net for _, net in board.pours}
    pour_of = {layer: net for layer, net in board.pours}
    drop_vias, drop_tracks = set(), set()
    for via in board.vias:
        if pour_of.get("F.Cu") == via.net:
            continue
        if via.net in poured or ends_at(via.at, "B.Cu", False):
            # …unless nothing meets it on the front (a back stub's via no route took on)
            if ends_at(via.at, "F.Cu", False):
                continue
            drop_vias.add(via)
            if not ends_at(via.at, "B.Cu", True):
                drop_tracks |= {t for t in board.tracks
                                if t.layer == "B.Cu" and _near(t.end, via.at)}  # fmt: skip
            continue
        drop_vias.add(via)
        if not ends_at(via.at, "F.Cu", True):
            drop_tracks |= {t for t in board.tracks if _near(t.end, via.at)}
    return (
        tuple(t for t in tracks if t not in drop_tracks),
        tuple(v for v in vias if v not in drop_vias),
    )


def _near(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return abs(a[0] - b[0]) < 1e-3 and abs(a[1] - b[1]) < 1e-3


ATTEMPTS = 12
EXPANSION_LIMIT = 300_000


class _Stuck(Exception):
    def __init__(self, net: str, message: str) -> None:
        super().__init__(message)
        self.net = net


def _access(
    grid: _Grid, pad: _PadShape, net: int, width: float
) -> list[tuple[int, int, tuple[float, float]]]:
    """(layer, node, stub end) where a track may leave this pad."""
    out = []
    reach = 0.8
    for layer in pad.layers:
        for idx in grid._nodes_in(pad.x - pad.hw - reach, pad.y - pad.hh - reach,
                                  pad.x + pad.hw + reach, pad.y + pad.hh + reach):  # fmt: skip
            x, y = grid.xy(idx)
            inside = abs(x - pad.x) <= pad.hw and abs(y - pad.y) <= pad.hh
            if not inside and math.hypot(x - pad.x, y - pad.y) > max(pad.hw, pad.hh) + reach:
                continue
            if not grid.usable(layer, idx, net):
                continue
            if inside or grid.stub_clear(pad, (x, y), width, layer):
                out.append((layer, idx, (x, y)))
    return out


def _route_net(
    grid: _Grid,
    name: str,
    net: int,
    rules: Rules,
    tracks: list[Track],
    vias: list[Via],
    poured: frozenset[str] = frozenset(),
) -> None:
    power = name in POWER_NETS and name not in poured
    pads = [p for p in grid.pads if p.net == net]
    tree: set[tuple[int, int]] = set()
    # ends of stubs not drawn yet: a route that arrives there draws its stub
    pending: dict[tuple[int, int], tuple[_PadShape, tuple[float, float]]] = {}
    joined: list[_PadShape] = []
    rest = pads[:]

    def join(pad: _PadShape) -> None:
        for q in _linked(grid, pad):
            tree.update((lay, i) for lay, i, _ in _inside(grid, q))
            for lay, i, end in _access(grid, q, net, rules.signal):
                if (lay, i) not in tree:
                    tree.add((lay, i))
                    pending[(lay, i)] = (q, end)
            joined.append(q)
            if q in rest:
                rest.remove(q)

    join(rest[0])
    while rest:
        rest.sort(key=lambda p: min(abs(p.x - q.x) + abs(p.y - q.y) for q in joined))
        pad = rest[0]
        near = min(joined, key=lambda q: abs(pad.x - q.x) + abs(pad.y - q.y))
        if any((lay, idx) in tree for lay, idx, _ in _inside(grid, pad)):
            join(pad)
            continue
        # power nets go wide where there is room, and at signal width where there is not
        for wide in (True, False) if power else (False,):
            width = rules.power if wide else rules.signal
            starts = [
                (lay, i, e, q)
                for q in _linked(grid, pad)
                for lay, i, e in _access(grid, q, net, width)
            ]
            path = (
                _search(
                    grid,
                    net,
                    [(lay, i, e) for lay, i, e, _ in starts],
                    tree,
                    (near.x, near.y),
                    wide,
                )
                if starts
                else None
            )
            if path is not None:
                break
        if path is None:
            raise _Stuck(
                name,
                f"net {name}: found no route from pad {pad.ref}.{pad.pad} at "
                f"({pad.x:.2f}, {pad.y:.2f}) to the rest of the net",
            )
        first, last = path[0], path[-1]
        from_pad, stub_end = next((q, e) for lay, i, e, q in starts if (lay, i) == first)
        _stub(grid, tracks, name, net, first[0], rules.signal, from_pad, stub_end)
        if last in pending:
            to_pad, end = pending.pop(last)
            _stub(grid, tracks, name, net, last[0], rules.signal, to_pad, end)
        _emit(grid, name, net, width, wide, path, tracks, vias)
        tree.update(path)
        join(pad)


def _linked(grid: _Grid, pad: _PadShape) -> list[_PadShape]:
    """The pad and every pad the fixed tracks join to it."""
    group = [pad]
    for shape in group:
        for a, b in grid.links:
            for x, y in ((a, b), (b, a)):
                if x is shape and y not in group:
                    group.append(y)
    return group


def _inside(grid: _Grid, pad: _PadShape) -> list[tuple[int, int, tuple[float, float]]]:
    out = []
    for layer in pad.layers:
        for idx in grid._nodes_in(pad.x - pad.hw, pad.y - pad.hh, pad.x + pad.hw, pad.y + pad.hh):
            out.append((layer, idx, grid.xy(idx)))
    return out


def _stub(
    grid: _Grid,
    tracks: list[Track],
    name: str,
    net: int,
    layer: int,
    width: float,
    pad: _PadShape,
    end: tuple[float, float],
) -> None:
    if math.hypot(end[0] - pad.x, end[1] - pad.y) > 1e-6:
        track = Track(
            name, "F.Cu" if layer == 0 else "B.Cu", width, (round(pad.x, 4), round(pad.y, 4)), end
        )
        tracks.append(track)
        grid._mark_segment(track, net, layer)


def _search(
    grid: _Grid,
    net: int,
    starts: list[tuple[int, int, tuple[float, float]]],
    tree: set[tuple[int, int]],
    toward: tuple[float, float],
    wide: bool,
) -> list[tuple[int, int]] | None:
    """From any start to any node of ``tree``, aiming at ``toward`` (the nearest pad
    already joined: the search ends as soon as it touches the tree anywhere)."""
    nx = grid.nx
    ti, tj = toward[0] / grid.rules.grid, toward[1] / grid.rules.grid

    def h(idx: int) -> float:
        return GREED * (abs(idx % nx - ti) + abs(idx // nx - tj))

    best: dict[State, float] = {}
    came: dict[State, State | None] = {}
    heap: list[tuple[float, float, State]] = []
    for layer, idx, _ in starts:
        state = (layer, idx, 0)
        best[state] = 0.0
        came[state] = None
        heapq.heappush(heap, (h(idx), 0.0, state))
    expansions = 0
    while heap:
        _f, g, state = heapq.heappop(heap)
        if g > best.get(state, math.inf):
            continue
        layer, idx, direction = state
        if (layer, idx) in tree:
            return _path(came, state)
        expansions += 1
        if expansions > EXPANSION_LIMIT:
            return None
        moves: list[tuple[State, float]] = []
        for n in grid.neighbours(idx):
            d = 1 if abs(n - idx) == 1 else 2
            if not grid.usable(layer, n, net, wide):
                continue
            cost = 1.0 + (AGAINST_GRAIN if d != layer + 1 else 0.0)
            if direction and d != direction:
                cost += TURN_COST
            moves.append(((layer, n, d), cost))
        if grid.via_ok(idx, net):
            moves.append(((1 - layer, idx, 0), VIA_COST))
        for nxt, cost in moves:
            ng = g + cost
            if ng < best.get(nxt, math.inf):
                best[nxt] = ng
                came[nxt] = state
                heapq.heappush(heap, (ng + h(nxt[1]), ng, nxt))
    return None


def _path(came: dict[State, State | None], end: State) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    state: State | None = end
    while state is not None:
        if not out or out[-1] != (state[0], state[1]):
            out.append((state[0], state[1]))
        state = came[state]
    return out[::-1]


def _emit(
    grid: _Grid,
    name: str,
    net: int,
    width: float,
    wide: bool,
    path: list[tuple[int, int]],
    tracks: list[Track],
    vias: list[Via],
) -> None:
    run_start = 0
    for k in range(1, len(path) + 1):
        layer_change = k < len(path) and path[k][0] != path[k - 1][0]
        end_of_run = k == len(path) or layer_change
        if not end_of_run:
            continue
        run = path[run_start:k]
        layer = run[0][0]
        for _, idx in run:
            grid.take(layer, idx, net, wide)
        corners = [run[0][1]]
        for a, b, c in zip(run, run[1:], run[2:], strict=False):
            if (b[1] - a[1]) != (c[1] - b[1]):
                corners.append(b[1])
        if len(run) > 1:
            corners.append(run[-1][1])
        for a_idx, b_idx in itertools.pairwise(corners):
            tracks.append(
                Track(name, "F.Cu" if layer == 0 else "B.Cu", width, grid.xy(a_idx), grid.xy(b_idx))
            )
        if layer_change:
            idx = path[k][1]
            grid.take_via(idx, net)
            vias.append(Via(name, grid.xy(idx)))
        run_start = k

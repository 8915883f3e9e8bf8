"""Each board's KiCad 6 schematic (``.kicad_sch``), written from the same design values
that make its ``.kicad_pcb``, and read back into a netlist.

The schematic is a generated drawing of the netlist, not hand-drawn: one symbol per part
(a box with its pins, inputs and power on the left, the rest on the right, drawn from
:data:`~hardware.pcb.parts.CATALOGUE`'s pins and their electrical types), laid out in a
grid in the order the design adds parts, each pin ending in a short wire and a label with
its net's name (KiCad joins labels of one name on a sheet), or a no-connect flag. The
symbols' library is in the file itself (KiCad 6 keeps a copy of every symbol it uses in
``lib_symbols``), so it opens without the project's libraries; every symbol carries the
footprint, manufacturer, MPN and LCSC number, so that KiCad's "Update PCB from
schematic" pairs it with the board's footprint.

:func:`read` parses a written schematic with :mod:`hardware.pcb.sexpr` and joins pins,
wires and labels by their coordinates, as KiCad's connectivity does: the nets it returns
are what the drawing says, which ``tests/hardware/pcb`` compares with the board's copper
(and runs :func:`hardware.pcb.checks.erc_pins` over).

The format: KiCad 6.0's ``(kicad_sch (version 20211123) …)``, checked by parsing each
written file back here and with kiutils (an independent KiCad 6 parser from PyPI) in the
tests. KiCad 6 has no command-line or Python way to load a schematic, so opening it in
Eeschema itself is a manual step (not yet done for this revision).
"""

from __future__ import annotations

import itertools
import math
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hardware.pcb import sexpr
from hardware.pcb.design import Board, Placed
from hardware.pcb.parts import PartKind

__all__ = ["SchematicNets", "read", "write"]

VERSION = "20211123"
PITCH = 2.54
"""The schematic grid (0.1 in): every pin and label sits on it."""
PIN = 2.54
"""Pin length."""
STUB = 2.54
"""The wire from a pin's end to its label."""
COLUMNS = 14
CELL = (76.2, 0.0)
"""Width of a grid column (the row height follows the tallest symbol in the row)."""
_NAMESPACE = uuid.UUID("6f0c4c52-4b8e-4c1e-9a55-6e8f5f0a2912")


class Q(str):
    """An atom KiCad writes in quotes (names, values, text); every other atom (numbers,
    keywords, uuids) goes bare, as KiCad's parser wants them."""


def dump(expr: sexpr.Expr, depth: int = 0) -> str:
    """KiCad's layout: a list per line where it holds lists, atoms quoted when ``Q``."""
    if isinstance(expr, str):
        return sexpr.quote(expr) if isinstance(expr, Q) else expr
    head, *rest = expr
    parts = [str(head)] + [dump(e, depth + 1) for e in rest]
    if not any(isinstance(e, list) and any(isinstance(x, list) for x in e) for e in rest):
        return "(" + " ".join(parts) + ")"
    pad = "\n" + "  " * (depth + 1)
    out = "(" + parts[0]
    for e, text in zip(rest, parts[1:], strict=True):
        out += (pad if isinstance(e, list) else " ") + text
    return out + ")"


def _uuid(*parts: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, "/".join(parts)))


def _mm(value: float) -> str:
    return f"{round(value, 4):g}"


@dataclass(frozen=True)
class _Pin:
    number: str
    name: str
    type: str
    x: float
    """In the symbol's own frame (y up, as KiCad's symbol editor has it), the pin's end."""
    y: float
    angle: int
    """0: the pin points right from its end (a pin on the left side), 180: left."""


LEFT_TYPES = frozenset({"input", "power_in"})


def _layout(kind: PartKind) -> tuple[list[_Pin], float, float]:
    """The pins of ``kind``'s symbol and the half width and half height of its box."""
    numbers = sorted(kind.pins, key=_natural)
    left = [n for n in numbers if kind.pins[n].type in LEFT_TYPES]
    right = [n for n in numbers if n not in left]
    if not left:  # passives: half on each side
        half = (len(right) + 1) // 2
        left, right = right[:half], right[half:]
    rows = max(len(left), len(right), 1)
    half_h = PITCH * (rows + 1) / 2
    half_h = math.ceil(half_h / PITCH) * PITCH
    half_w = 7.62
    pins = []
    for side, group in ((-1, left), (1, right)):
        for i, number in enumerate(group):
            y = half_h - PITCH * (i + 1)
            pin = kind.pins[number]
            pins.append(
                _Pin(number, pin.name, pin.type, side * (half_w + PIN), y, 0 if side < 0 else 180)
            )
    return pins, half_w, half_h


def _natural(number: str) -> tuple[str, int]:
    letters = number.rstrip("0123456789")
    return (letters, int(number[len(letters) :] or 0))


def _font(hide: bool = False) -> sexpr.Expr:
    effects: list[sexpr.Expr] = ["effects", ["font", ["size", "1.27", "1.27"]]]
    if hide:
        effects.append("hide")
    return effects


def _lib_symbol(name: str, kind: PartKind) -> sexpr.Expr:
    pins, half_w, half_h = _layout(kind)
    short = name.partition(":")[2]
    body: list[sexpr.Expr] = [
        "symbol",
        Q(f"{short}_0_1"),
        [
            "rectangle",
            ["start", _mm(-half_w), _mm(half_h)],
            ["end", _mm(half_w), _mm(-half_h)],
            ["stroke", ["width", "0.254"], ["type", "default"], ["color", "0", "0", "0", "0"]],
            ["fill", ["type", "background"]],
        ],
    ]
    unit: list[sexpr.Expr] = ["symbol", Q(f"{short}_1_1")]
    for pin in pins:
        unit.append(
            [
                "pin",
                pin.type,
                "line",
                ["at", _mm(pin.x), _mm(pin.y), str(pin.angle)],
                ["length", _mm(PIN)],
                ["name", Q(pin.name), _font()],
                ["number", Q(pin.number), _font()],
            ]
        )
    return [
        "symbol",
        Q(name),
        ["in_bom", "yes"],
        ["on_board", "yes"],
        _property("Reference", kind.prefix, 0, 0.0, half_h + 1.27),
        _property("Value", kind.value, 1, 0.0, -half_h - 1.27),
        _property("Footprint", kind.footprint, 2, 0.0, 0.0, hide=True),
        _property("Datasheet", "", 3, 0.0, 0.0, hide=True),
        body,
        unit,
    ]


def _property(
    key: str, value: str, number: int, x: float, y: float, hide: bool = False
) -> sexpr.Expr:
    return [
        "property",
        Q(key),
        Q(value),
        ["id", str(number)],
        ["at", _mm(x), _mm(y), "0"],
        _font(hide),
    ]


def _snap(v: float) -> float:
    return round(v / PITCH) * PITCH


def write(board: Board, path: Path, source: str) -> None:
    """``board``'s schematic into ``path`` (a ``.kicad_sch``)."""
    path.write_text(text(board, source), encoding="utf-8")


def text(board: Board, source: str) -> str:
    kinds: dict[str, PartKind] = {}
    for part in board.parts:
        kinds.setdefault(f"pyramid:{part.kind.key}", part.kind)
    sheet = _uuid(board.name, "sheet")
    items: list[sexpr.Expr] = [
        "kicad_sch",
        ["version", VERSION],
        ["generator", "eeschema"],
        ["uuid", sheet],
        ["paper", Q("A0")],
        [
            "title_block",
            ["title", Q(board.title)],
            ["comment", "1", Q(f"generated from {source} by make board (hardware/pcb)")],
            ["comment", "2", Q("every pin ends in a label of its net: edit the design, not here")],
        ],
        ["lib_symbols", *(_lib_symbol(name, kind) for name, kind in sorted(kinds.items()))],
    ]
    instances: list[sexpr.Expr] = ["symbol_instances"]
    x0, y0 = 25.4, 38.1
    x, y, row_height = x0, y0, 0.0
    column = 0
    for part in board.parts:
        pins, half_w, half_h = _layout(part.kind)
        if column == COLUMNS:
            column, x, y = 0, x0, y + row_height + 12.7
            row_height = 0.0
        at = (_snap(x + half_w + PIN + STUB + 10.16), _snap(y + half_h))
        items += _placed(board, part, at, pins)
        instances.append(
            [
                "path",
                Q(f"/{_uuid(board.name, part.ref)}"),
                ["reference", Q(part.ref)],
                ["unit", "1"],
                ["value", Q(part.kind.value)],
                ["footprint", Q(part.kind.footprint)],
            ]
        )
        row_height = max(row_height, 2 * half_h)
        x += CELL[0]
        column += 1
    items.append(["sheet_instances", ["path", Q("/"), ["page", Q("1")]]])
    items.append(instances)
    return dump(items) + "\n"


def _placed(
    board: Board, part: Placed, at: tuple[float, float], pins: list[_Pin]
) -> list[sexpr.Expr]:
    sx, sy = at
    half_h = _layout(part.kind)[2]
    kind = part.kind
    symbol: list[sexpr.Expr] = [
        "symbol",
        ["lib_id", Q(f"pyramid:{kind.key}")],
        ["at", _mm(sx), _mm(sy), "0"],
        ["unit", "1"],
        ["in_bom", "yes"],
        ["on_board", "yes"],
        ["uuid", _uuid(board.name, part.ref)],
        _property("Reference", part.ref, 0, sx, sy - half_h - 1.27),
        _property("Value", kind.value, 1, sx, sy + half_h + 1.27),
        _property("Footprint", kind.footprint, 2, sx, sy, hide=True),
        _property("Datasheet", "", 3, sx, sy, hide=True),
        _property("Manufacturer", kind.manufacturer, 4, sx, sy, hide=True),
        _property("MPN", kind.mpn, 5, sx, sy, hide=True),
        _property("LCSC", kind.lcsc, 6, sx, sy, hide=True),
        _property("Role", part.role, 7, sx, sy, hide=True),
    ]
    for pin in pins:
        symbol.append(["pin", Q(pin.number), ["uuid", _uuid(board.name, part.ref, pin.number)]])
    out: list[sexpr.Expr] = [symbol]
    for pin in pins:
        # the pin's end on the sheet (the symbol's y is up, the sheet's down)
        ex, ey = sx + pin.x, sy - pin.y
        net = part.nets[pin.number]
        key = (board.name, part.ref, pin.number)
        if net.startswith("unconnected-"):
            out.append(["no_connect", ["at", _mm(ex), _mm(ey)], ["uuid", _uuid(*key, "nc")]])
            continue
        lx = ex - STUB if pin.angle == 0 else ex + STUB
        out.append(
            [
                "wire",
                ["pts", ["xy", _mm(ex), _mm(ey)], ["xy", _mm(lx), _mm(ey)]],
                ["stroke", ["width", "0"], ["type", "default"], ["color", "0", "0", "0", "0"]],
                ["uuid", _uuid(*key, "wire")],
            ]
        )
        justify = "right" if pin.angle == 0 else "left"
        out.append(
            [
                "label",
                Q(net),
                ["at", _mm(lx), _mm(ey), "180" if pin.angle == 0 else "0"],
                ["effects", ["font", ["size", "1.27", "1.27"]], ["justify", justify, "bottom"]],
                ["uuid", _uuid(*key, "label")],
            ]
        )
    return out


# -- reading back -----------------------------------------------------------------------


@dataclass(frozen=True)
class SchematicNets:
    """What a ``.kicad_sch`` connects, found from its drawing."""

    nets: dict[str, list[tuple[str, str]]]
    """Net name (its label's) → its (reference, pin) pairs, sorted."""
    pin_types: dict[tuple[str, str], str]
    """(reference, pin) → the pin's electrical type in the symbol."""
    not_connected: set[tuple[str, str]]
    """Pins with a no-connect flag."""
    unlabelled: list[list[tuple[str, str]]]
    """Groups of pins joined by wires but carrying no label (an anonymous net)."""
    values: dict[str, str]
    """Reference → value."""
    fields: dict[str, dict[str, str]]
    """Reference → its properties (Footprint, MPN, LCSC, …)."""


def read(path: Path) -> SchematicNets:
    """The nets ``path``'s drawing makes (pins, wires and labels joined where they meet)."""
    root = sexpr.parse(path.read_text(encoding="utf-8"))
    library: dict[str, list[tuple[str, str, float, float]]] = {}
    lib = sexpr.child(root, "lib_symbols")
    for sym in sexpr.children(lib or [], "symbol"):
        name = str(sym[1])
        pins = []
        for unit in sexpr.children(sym, "symbol"):
            for drawn in sexpr.children(unit, "pin"):
                px, py, _ = sexpr.numbers(sexpr.child(drawn, "at"), 3)
                number = sexpr.child(drawn, "number")
                assert number is not None
                pins.append((str(number[1]), str(drawn[1]), px, py))
        library[name] = pins
    parent: dict[tuple[float, float], tuple[float, float]] = {}

    def find(p: tuple[float, float]) -> tuple[float, float]:
        parent.setdefault(p, p)
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    def union(a: tuple[float, float], b: tuple[float, float]) -> None:
        parent[find(a)] = find(b)

    def key(x: float, y: float) -> tuple[float, float]:
        return (round(x, 3), round(y, 3))

    pin_at: dict[tuple[str, str], tuple[float, float]] = {}
    pin_types: dict[tuple[str, str], str] = {}
    values: dict[str, str] = {}
    fields: dict[str, dict[str, str]] = {}
    for sym in sexpr.children(root, "symbol"):
        lib_id = sexpr.child(sym, "lib_id")
        assert lib_id is not None
        sx, sy, angle = sexpr.numbers(sexpr.child(sym, "at"), 3)
        if angle:
            raise ValueError(f"{path}: symbols are placed unturned; one is at {angle:g}°")
        props = {str(p[1]): str(p[2]) for p in sexpr.children(sym, "property")}
        ref = props["Reference"]
        values[ref] = props.get("Value", "")
        fields[ref] = props
        for pin_number, kind, px, py in library[str(lib_id[1])]:
            pin_at[(ref, pin_number)] = key(sx + px, sy - py)
            pin_types[(ref, pin_number)] = kind
            find(pin_at[(ref, pin_number)])
    for wire in sexpr.children(root, "wire"):
        pts = sexpr.child(wire, "pts")
        ends = [key(*sexpr.numbers(xy, 2)) for xy in sexpr.children(pts or [], "xy")]
        for a, b in itertools.pairwise(ends):
            union(a, b)
    names: dict[tuple[float, float], str] = {}
    for label in sexpr.children(root, "label"):
        lx, ly, _ = sexpr.numbers(sexpr.child(label, "at"), 3)
        at = key(lx, ly)
        find(at)
        existing = names.get(find(at))
        name = str(label[1])
        if existing is not None and existing != name:
            raise ValueError(f"{path}: labels {existing!r} and {name!r} on one wire")
        names[find(at)] = name
    # labels of one name join their wires
    by_name: dict[str, tuple[float, float]] = {}
    for at, name in list(names.items()):
        if name in by_name:
            union(at, by_name[name])
        else:
            by_name[name] = at
    named = {find(at): name for name, at in by_name.items()}
    not_connected: set[tuple[str, str]] = set()
    flags = {
        key(*sexpr.numbers(sexpr.child(nc, "at"), 2)) for nc in sexpr.children(root, "no_connect")
    }
    nets: dict[str, list[tuple[str, str]]] = {}
    anonymous: dict[tuple[float, float], list[tuple[str, str]]] = {}
    for pair, at in pin_at.items():
        if at in flags:
            not_connected.add(pair)
            continue
        root_at = find(at)
        if root_at in named:
            nets.setdefault(named[root_at], []).append(pair)
        else:
            anonymous.setdefault(root_at, []).append(pair)
    return SchematicNets(
        {n: sorted(v, key=_pair) for n, v in sorted(nets.items())},
        pin_types,
        not_connected,
        [sorted(v, key=_pair) for v in anonymous.values()],
        values,
        fields,
    )


def _pair(pair: tuple[str, str]) -> tuple[str, int, tuple[str, int]]:
    ref, pin = pair
    letters = ref.rstrip("0123456789")
    return (letters, int(ref[len(letters) :] or 0), _natural(pin))


def board_pins(board: Board) -> Mapping[tuple[str, str], str]:
    """(reference, pin) → net, as the board's design gives it (for comparisons)."""
    return {(p.ref, pad): net for p in board.parts for pad, net in p.nets.items()}

"""Footprints: the pads and courtyard of a KiCad footprint, read from its ``.kicad_mod``.

The router and the checks need to know where each pad is and what it blocks; KiCad's own
libraries (the kicad-footprints package) and the project's library ``pyramid.pretty``
are read here as text, so the design can be laid out without KiCad's Python module.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from hardware.pcb import sexpr

__all__ = [
    "PROJECT_LIBRARY",
    "Footprint",
    "FootprintError",
    "Pad",
    "footprint_dirs",
    "load_footprint",
    "rotate",
]

PROJECT_LIBRARY = "pyramid"
"""The library name of the footprints this project makes (``hardware/pcb/pyramid.pretty``)."""

_HERE = Path(__file__).resolve().parent
STOCK_DIR_ENV = "KICAD6_FOOTPRINT_DIR"
"""KiCad 6's own variable for its footprint libraries (Debian: /usr/share/kicad/footprints)."""


class FootprintError(LookupError):
    """A footprint that is not installed or cannot be read; says which and where."""


@dataclass(frozen=True)
class Pad:
    """One pad, in the footprint's own frame (mm, y down as in KiCad)."""

    name: str
    x: float
    y: float
    width: float
    height: float
    kind: Literal["smd", "tht", "hole"]
    drill: float = 0.0


@dataclass(frozen=True)
class Footprint:
    lib: str
    name: str
    pads: tuple[Pad, ...]
    courtyard: tuple[float, float, float, float]
    """x0, y0, x1, y1 of the courtyard (F.CrtYd), in the footprint's own frame."""

    @property
    def fpid(self) -> str:
        return f"{self.lib}:{self.name}"

    def pads_named(self, name: str) -> tuple[Pad, ...]:
        return tuple(p for p in self.pads if p.name == name)

    @property
    def pad_names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.name for p in self.pads if p.kind != "hole"))


def rotate(x: float, y: float, degrees: float) -> tuple[float, float]:
    """A point of a footprint turned by ``degrees`` as KiCad turns it (anticlockwise on
    screen, where y points down)."""
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    return (round(x * c + y * s, 6), round(-x * s + y * c, 6))


def footprint_dirs() -> dict[str, Path]:
    """Library name → ``.pretty`` directory: the project's and KiCad's installed ones."""
    stock = Path(os.environ.get(STOCK_DIR_ENV, "/usr/share/kicad/footprints"))
    dirs = {p.name.removesuffix(".pretty"): p for p in sorted(stock.glob("*.pretty"))}
    dirs[PROJECT_LIBRARY] = _HERE / f"{PROJECT_LIBRARY}.pretty"
    return dirs


@cache
def load_footprint(fpid: str) -> Footprint:
    """``"Library:Name"`` read from its ``.kicad_mod``; :class:`FootprintError` if missing."""
    lib, _, name = fpid.partition(":")
    directory = footprint_dirs().get(lib)
    if directory is None:
        raise FootprintError(
            f"footprint library {lib!r} is not installed (looked in ${STOCK_DIR_ENV} or "
            "/usr/share/kicad/footprints): apt-get install kicad-footprints"
        )
    path = directory / f"{name}.kicad_mod"
    if not path.is_file():
        raise FootprintError(f"no footprint {name!r} in {directory}")
    return _read(lib, name, path.read_text(encoding="utf-8"))


def _read(lib: str, name: str, text: str) -> Footprint:
    expr = sexpr.parse(text)
    pads: list[Pad] = []
    for pad in sexpr.children(expr, "pad"):
        pad_name, kind = str(pad[1]), str(pad[2])
        x, y, angle = sexpr.numbers(sexpr.child(pad, "at"), 3)
        w, h = sexpr.numbers(sexpr.child(pad, "size"), 2)
        if round(angle) % 180 == 90:
            w, h = h, w
        drill_expr = sexpr.child(pad, "drill")
        drill = next(
            (float(e) for e in (drill_expr or [])[1:] if isinstance(e, str) and _is_number(e)), 0.0
        )
        pad_kind: Literal["smd", "tht", "hole"] = (
            "smd" if kind == "smd" else "tht" if kind == "thru_hole" else "hole"
        )
        pads.append(Pad(pad_name, x, y, w, h, pad_kind, drill))
    xs: list[float] = []
    ys: list[float] = []
    for head in ("fp_line", "fp_rect"):
        for line in sexpr.children(expr, head):
            if sexpr.child(line, "layer") != ["layer", "F.CrtYd"]:
                continue
            for end in ("start", "end"):
                px, py = sexpr.numbers(sexpr.child(line, end), 2)
                xs.append(px)
                ys.append(py)
    for circle in sexpr.children(expr, "fp_circle"):
        if sexpr.child(circle, "layer") == ["layer", "F.CrtYd"]:
            cx, cy = sexpr.numbers(sexpr.child(circle, "center"), 2)
            ex, ey = sexpr.numbers(sexpr.child(circle, "end"), 2)
            r = math.hypot(ex - cx, ey - cy)
            xs += [cx - r, cx + r]
            ys += [cy - r, cy + r]
    if not xs:
        xs = [p.x - p.width / 2 for p in pads] + [p.x + p.width / 2 for p in pads]
        ys = [p.y - p.height / 2 for p in pads] + [p.y + p.height / 2 for p in pads]
    return Footprint(lib, name, tuple(pads), (min(xs), min(ys), max(xs), max(ys)))


def _is_number(atom: object) -> bool:
    if not isinstance(atom, str):
        return False
    try:
        float(atom)
    except ValueError:
        return False
    return True

"""Reaching KiCad: find the Python that has ``pcbnew`` and run :mod:`kicad` under it.

KiCad 6 builds its ``pcbnew`` module for the system's Python (Debian: /usr/bin/python3,
3.11.2) and links it against KiCad's own libraries; the project's venv runs another
Python (pyenv 3.11.7). Rather than putting pcbnew's two files on the venv's path (an
extension built for one interpreter, loaded into another: it works until it crashes), the
KiCad steps run in a child process of the interpreter that has pcbnew, found at run
time: ``$PYRAMID_KICAD_PYTHON`` if set, else /usr/bin/python3, else ``python3`` on the
PATH. A child per step also gives every DRC a fresh pcbnew (it keeps global state).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

from hardware.pcb.design import Board
from hardware.pcb.footprints import PROJECT_LIBRARY, footprint_dirs
from hardware.pcb.router import Rules

__all__ = ["KICAD_PYTHON_ENV", "KiCadError", "kicad_python", "layout", "run"]

KICAD_PYTHON_ENV = "PYRAMID_KICAD_PYTHON"
SCRIPT = Path(__file__).resolve().parent / "kicad.py"
INSTALL = "apt-get install --no-install-recommends kicad kicad-footprints kicad-symbols"


class KiCadError(RuntimeError):
    """KiCad is missing or one of its steps failed; says which and how to install it."""


@cache
def kicad_python() -> str | None:
    """The first interpreter that can ``import pcbnew``, or None."""
    env = os.environ.get(KICAD_PYTHON_ENV)
    candidates = [env] if env else ["/usr/bin/python3", shutil.which("python3")]
    for candidate in candidates:
        if not candidate or not Path(candidate).exists():
            continue
        probe = subprocess.run(
            [candidate, "-c", "import pcbnew"], capture_output=True, timeout=60, check=False
        )
        if probe.returncode == 0:
            return candidate
    return None


def run(command: str, *args: Path) -> dict[str, Any]:
    """``kicad.py COMMAND ARGS`` under KiCad's Python; its JSON answer."""
    python = kicad_python()
    if python is None:
        raise KiCadError(f"no Python with KiCad's pcbnew module: {INSTALL}")
    proc = subprocess.run(
        [python, str(SCRIPT), command, *(str(a.resolve()) for a in args)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if proc.returncode != 0:
        raise KiCadError(f"kicad.py {command} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    answer: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return answer


def _hole_footprint(diameter: float) -> str:
    names = {2.7: "MountingHole_2.7mm_M2.5", 3.2: "MountingHole_3.2mm_M3"}
    return f"MountingHole:{names.get(round(diameter, 1), f'MountingHole_{diameter:g}mm')}"


def layout(board: Board, rules: Rules, source: str, seed: int) -> dict[str, Any]:
    """What kicad.py's ``build`` reads: the placed parts, tracks, vias and the rules."""
    parts: list[dict[str, Any]] = [
        {
            "ref": p.ref,
            "footprint": p.kind.footprint,
            "value": p.kind.value,
            "x": p.x,
            "y": p.y,
            "angle": p.angle,
            "side": p.side,
            "nets": dict(p.nets),
            "fields": {
                "Manufacturer": p.kind.manufacturer,
                "MPN": p.kind.mpn,
                "LCSC": p.kind.lcsc,
                "Role": p.role,
            },
        }
        for p in board.parts
    ]
    parts += [
        {
            "ref": f"H{n}",
            "footprint": _hole_footprint(h.diameter),
            "value": "mounting hole",
            "x": h.x,
            "y": h.y,
            "angle": 0.0,
            "nets": {},
            "fields": {},
            "virtual": True,
        }
        for n, h in enumerate(board.holes, start=1)
    ]
    libs = {p["footprint"].partition(":")[0] for p in parts}
    dirs = footprint_dirs()
    return {
        "title": board.title,
        "source": source,
        "seed": seed,
        "width": board.width,
        "height": board.height,
        "corner_radius": board.corner_radius,
        "pours": [list(p) for p in board.pours],
        "libraries": {lib: str(dirs[lib]) for lib in sorted(libs | {PROJECT_LIBRARY})},
        "rules": {
            "clearance": rules.clearance,
            "min_track": 0.15,
            "signal": rules.signal,
            "via": rules.via,
            "drill": rules.drill,
            "min_drill": 0.3,
            "min_annular": 0.13,
            "edge": 0.3,
            "hole_to_hole": 0.5,
            "hole_clearance": 0.25,
            "zone_clearance": 0.3,
        },
        "parts": parts,
        "tracks": [
            {"net": t.net, "layer": t.layer, "width": t.width, "start": t.start, "end": t.end}
            for t in board.tracks
        ],
        "vias": [{"net": v.net, "at": v.at} for v in board.vias],
    }

"""The text outputs of a board, all pure: netlist, BOM, placement file, Gerber clean-up.

- ``<board>.net``: KiCad's netlist format (``export`` version E), what Eeschema would
  hand to Pcbnew: every part with its footprint and order fields, every net with its pins
  and their electrical types.
- ``<board>-bom.csv`` and ``<board>-cpl.csv``: JLCPCB's assembly files (BOM columns
  Comment, Designator, Footprint, LCSC; placement columns Designator, Mid X, Mid Y,
  Layer, Rotation), with the manufacturer part numbers beside them. Parts a maker
  solders by hand are listed in the BOM with ``hand`` and left out of the placement file.
- Gerber and drill files carry the time they were written; :func:`normalise` drops those
  lines so that the committed files change only when the board does.
"""

from __future__ import annotations

import csv
import io
import re

from hardware.pcb import sexpr
from hardware.pcb.design import Board

__all__ = ["bom_csv", "cpl_csv", "netlist", "normalise", "parts_cost"]


def netlist(board: Board, source: str) -> str:
    comps: list[sexpr.Expr] = ["components"]
    for part in board.parts:
        comps.append(
            [
                "comp",
                ["ref", part.ref],
                ["value", part.kind.value],
                ["footprint", part.kind.footprint],
                ["description", part.kind.description],
                [
                    "fields",
                    ["field", ["name", "Manufacturer"], part.kind.manufacturer],
                    ["field", ["name", "MPN"], part.kind.mpn],
                    ["field", ["name", "LCSC"], part.kind.lcsc],
                    ["field", ["name", "Role"], part.role],
                ],
            ]
        )
    nets: list[sexpr.Expr] = ["nets"]
    types = {(p.ref, pad): pin.type for p in board.parts for pad, pin in p.kind.pins.items()}
    for code, (name, nodes) in enumerate(board.nets().items(), start=1):
        net: list[sexpr.Expr] = ["net", ["code", str(code)], ["name", name]]
        for ref, pad in nodes:
            net.append(["node", ["ref", ref], ["pin", pad], ["pintype", str(types[(ref, pad)])]])
        nets.append(net)
    design: sexpr.Expr = [
        "design",
        ["source", source],
        ["tool", "pyramid-board hardware/pcb (make board)"],
        ["sheet", ["number", "1"], ["name", "/"], ["title_block", ["title", board.title]]],
    ]
    return sexpr.dump(["export", ["version", "E"], design, comps, nets], indent=2) + "\n"


def _rows(writer_rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(writer_rows)
    return out.getvalue()


def bom_csv(board: Board) -> str:
    groups: dict[tuple[str, str, str, str, str, str], list[str]] = {}
    for part in board.parts:
        k = part.kind
        key = (k.value, k.footprint.partition(":")[2], k.lcsc, k.manufacturer, k.mpn, k.assembly)
        groups.setdefault(key, []).append(part.ref)
    prices = {p.kind.mpn: p.kind.price for p in board.parts}
    rows = [["Comment", "Designator", "Footprint", "LCSC", "Manufacturer", "MPN", "Assembly",
             "Quantity", "Unit price (USD)"]]  # fmt: skip
    for (value, fp, lcsc, maker, mpn, assembly), refs in sorted(groups.items()):
        rows.append([value, ",".join(refs), fp, lcsc, maker, mpn, assembly, str(len(refs)),
                     f"{prices[mpn]:g}"])  # fmt: skip
    # what is ordered with the board but not on it: no designator, no footprint
    for k, count, _ in board.loose:
        rows.append([k.value, "", "", k.lcsc, k.manufacturer, k.mpn, k.assembly, str(count),
                     f"{k.price:g}"])  # fmt: skip
    return _rows(rows)


def cpl_csv(board: Board) -> str:
    """The placement file in the Gerbers' frame: KiCad plots them from its own origin
    (the board's top left corner) with y upwards, so a part at KiCad's (x, y) is at
    (x, −y) there, as KiCad's own position file puts it."""
    rows = [["Designator", "Mid X", "Mid Y", "Layer", "Rotation"]]
    for part in board.parts:
        if part.kind.assembly != "smt":
            continue
        rows.append(
            [part.ref, f"{part.x:.3f}mm", f"{-part.y:.3f}mm",
             "Top" if part.side == "F" else "Bottom", f"{part.angle:g}"]
        )  # fmt: skip
    return _rows(rows)


def parts_cost(board: Board) -> float:
    """USD: every part's unit price (:mod:`hardware.pcb.parts`), summed, and what is
    ordered with the board (:attr:`~hardware.pcb.design.Board.loose`)."""
    on_board = sum(p.kind.price for p in board.parts)
    return round(on_board + sum(k.price * n for k, n, _ in board.loose), 2)


_DATED = re.compile(
    r"^(%TF\.CreationDate,.*%|; #@! TF\.CreationDate,.*|G04 Created by KiCad.*date.*"
    r"|; DRILL file .* date .*|<title>.*</title>|<desc>.*</desc>)$"
)


def normalise(text: str) -> str:
    """A plot or drill file without the lines that say when it was written."""
    return "\n".join(line for line in text.splitlines() if not _DATED.match(line)) + "\n"

"""The KiCad side: build a ``.kicad_pcb`` from a layout, run DRC, read pads back, plot.

This file runs under the Python that has KiCad's ``pcbnew`` module (Debian's
/usr/bin/python3 with the ``kicad`` package), never in the project's venv, and imports
nothing but the standard library and pcbnew; :mod:`hardware.pcb.kicad_run` starts it.
Every command reads or writes plain files and prints one JSON object:

    python3 hardware/pcb/kicad.py build LAYOUT.json BOARD.kicad_pcb
    python3 hardware/pcb/kicad.py drc BOARD.kicad_pcb REPORT.rpt
    python3 hardware/pcb/kicad.py dump BOARD.kicad_pcb
    python3 hardware/pcb/kicad.py plot BOARD.kicad_pcb OUTDIR
    python3 hardware/pcb/kicad.py break BOARD.kicad_pcb BROKEN.kicad_pcb

Paths are made absolute here (KiCad's plotter writes relative output folders somewhere
else than the working directory).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pcbnew

MM = 1_000_000  # KiCad's internal unit is the nanometre


def _nm(mm: float) -> int:
    return round(mm * MM)


def _point(xy: list[float]) -> pcbnew.wxPoint:
    return pcbnew.wxPoint(_nm(xy[0]), _nm(xy[1]))


def _footprint_dir(lib: str, layout: dict[str, Any]) -> str:
    dirs: dict[str, str] = layout["libraries"]
    return dirs[lib]


def build(layout_path: Path, out: Path) -> dict[str, Any]:
    layout: dict[str, Any] = json.loads(layout_path.read_text(encoding="utf-8"))
    pcbnew.KIID.SeedGenerator(int(layout["seed"]))
    board = pcbnew.BOARD()
    rules = layout["rules"]
    ds = board.GetDesignSettings()
    ds.m_MinClearance = _nm(rules["clearance"])
    ds.m_TrackMinWidth = _nm(rules["min_track"])
    ds.m_ViasMinSize = _nm(rules["via"])
    ds.m_ViasMinAnnularWidth = _nm(rules["min_annular"])
    ds.m_MinThroughDrill = _nm(rules["min_drill"])
    ds.m_CopperEdgeClearance = _nm(rules["edge"])
    ds.m_HoleToHoleMin = _nm(rules["hole_to_hole"])
    ds.m_HoleClearance = _nm(rules["hole_clearance"])
    ds.m_SilkClearance = 0
    default = ds.GetNetClasses().GetDefault()
    default.SetClearance(_nm(rules["clearance"]))
    default.SetTrackWidth(_nm(rules["signal"]))
    default.SetViaDiameter(_nm(rules["via"]))
    default.SetViaDrill(_nm(rules["drill"]))
    title = board.GetTitleBlock()
    title.SetTitle(layout["title"])
    title.SetComment(0, layout["source"])

    nets: dict[str, pcbnew.NETINFO_ITEM] = {}

    def net(name: str) -> pcbnew.NETINFO_ITEM:
        if name not in nets:
            item = pcbnew.NETINFO_ITEM(board, name)
            board.Add(item)
            nets[name] = item
        return nets[name]

    w, h = layout["width"], layout["height"]
    r = float(layout.get("corner_radius", 0.0))
    # the outline: four sides, and with r > 0 a quarter circle at each corner
    sides = [((r, 0.0), (w - r, 0.0)), ((w, r), (w, h - r)), ((w - r, h), (r, h)),
             ((0.0, h - r), (0.0, r))]  # fmt: skip
    for a, b in sides:
        edge = pcbnew.PCB_SHAPE(board)
        edge.SetShape(pcbnew.SHAPE_T_SEGMENT)
        edge.SetStart(_point(list(a)))
        edge.SetEnd(_point(list(b)))
        edge.SetLayer(pcbnew.Edge_Cuts)
        edge.SetWidth(_nm(0.1))
        board.Add(edge)
    if r > 0:
        d = r * (1 - 0.5**0.5)
        arcs = [
            ((0.0, r), (d, d), (r, 0.0)),
            ((w - r, 0.0), (w - d, d), (w, r)),
            ((w, h - r), (w - d, h - d), (w - r, h)),
            ((r, h), (d, h - d), (0.0, h - r)),
        ]
        for start, mid, end in arcs:
            arc = pcbnew.PCB_SHAPE(board)
            arc.SetShape(pcbnew.SHAPE_T_ARC)
            arc.SetArcGeometry(_point(list(start)), _point(list(mid)), _point(list(end)))
            arc.SetLayer(pcbnew.Edge_Cuts)
            arc.SetWidth(_nm(0.1))
            board.Add(arc)

    for part in layout["parts"]:
        lib, _, name = part["footprint"].partition(":")
        fp = pcbnew.FootprintLoad(_footprint_dir(lib, layout), name)
        if fp is None:
            raise SystemExit(f"footprint {part['footprint']} not found")
        fp.SetReference(part["ref"])
        fp.SetValue(part["value"])
        board.Add(fp)
        fp.SetPosition(_point([part["x"], part["y"]]))
        back = part.get("side") == "B"
        if back:
            # mirrored top to bottom about its own position, then turned
            fp.Flip(fp.GetPosition(), False)
        fp.SetOrientationDegrees(float(part["angle"]))
        # references on the fabrication layer: the assembly drawing has them, and no
        # silkscreen text lands on a pad of these crowded boards
        fp.Reference().SetLayer(pcbnew.B_Fab if back else pcbnew.F_Fab)
        fp.Reference().SetTextSize(pcbnew.wxSize(_nm(0.8), _nm(0.8)))
        fp.Reference().SetTextThickness(_nm(0.12))
        for key, value in part["fields"].items():
            fp.SetProperty(key, value)
        if part.get("virtual"):
            fp.SetAttributes(
                pcbnew.FP_EXCLUDE_FROM_BOM | pcbnew.FP_EXCLUDE_FROM_POS_FILES | pcbnew.FP_BOARD_ONLY
            )
        for pad in fp.Pads():
            name = part["nets"].get(pad.GetName(), "")
            if name and not name.startswith("unconnected-"):
                pad.SetNet(net(name))

    for t in layout["tracks"]:
        track = pcbnew.PCB_TRACK(board)
        track.SetStart(_point(t["start"]))
        track.SetEnd(_point(t["end"]))
        track.SetWidth(_nm(t["width"]))
        track.SetLayer(pcbnew.F_Cu if t["layer"] == "F.Cu" else pcbnew.B_Cu)
        track.SetNet(net(t["net"]))
        board.Add(track)
    for v in layout["vias"]:
        via = pcbnew.PCB_VIA(board)
        via.SetPosition(_point(v["at"]))
        via.SetWidth(_nm(rules["via"]))
        via.SetDrill(_nm(rules["drill"]))
        via.SetNet(net(v["net"]))
        board.Add(via)

    inset = rules["edge"]
    for layer_name, pour_net in layout["pours"]:
        layer = pcbnew.F_Cu if layer_name == "F.Cu" else pcbnew.B_Cu
        zone = pcbnew.ZONE(board)
        zone.SetLayer(layer)
        zone.SetNet(net(pour_net))
        outline = zone.Outline()
        outline.NewOutline()
        for x, y in (
            (inset, inset),
            (w - inset, inset),
            (w - inset, h - inset),
            (inset, h - inset),
        ):
            outline.Append(_nm(x), _nm(y))
        zone.SetLocalClearance(_nm(rules["zone_clearance"]))
        zone.SetMinThickness(_nm(0.25))
        zone.SetThermalReliefGap(_nm(0.3))
        zone.SetThermalReliefSpokeWidth(_nm(0.4))
        zone.SetIslandRemovalMode(pcbnew.ISLAND_REMOVAL_MODE_ALWAYS)
        # surface-mount pads solid in their pour (the LEDs' supply), through-hole pads on
        # thermal spokes (they are soldered by hand)
        zone.SetPadConnection(pcbnew.ZONE_CONNECTION_THT_THERMAL)
        board.Add(zone)
    out.parent.mkdir(parents=True, exist_ok=True)
    board.Save(str(out))
    # the zone filler needs a board as KiCad loads it (connectivity built): fill a reload
    board = pcbnew.LoadBoard(str(out))
    pcbnew.ZONE_FILLER(board).Fill(board.Zones())
    board.Save(str(out))
    return {"footprints": len(board.GetFootprints()), "tracks": len(board.GetTracks())}


_VIOLATION = re.compile(r"^\[(\w+)\]: (.*)$")


def drc(board_path: Path, report: Path) -> dict[str, Any]:
    board = pcbnew.LoadBoard(str(board_path))
    pcbnew.ZONE_FILLER(board).Fill(board.Zones())
    report.parent.mkdir(parents=True, exist_ok=True)
    if not pcbnew.WriteDRCReport(board, str(report), pcbnew.EDA_UNITS_MILLIMETRES, True):
        raise SystemExit(f"DRC could not run on {board_path}")
    text = report.read_text(encoding="utf-8")
    violations: list[dict[str, str]] = []
    section = ""
    for line in text.splitlines():
        if line.startswith("**"):
            section = line
        match = _VIOLATION.match(line)
        if match:
            violations.append({"section": section, "kind": match[1], "text": match[2]})
    counts = {m[2]: int(m[1]) for m in re.finditer(r"\*\* Found (\d+) ([\w ]+?) \*\*", text)}
    return {"counts": counts, "violations": violations}


def dump(board_path: Path) -> dict[str, Any]:
    board = pcbnew.LoadBoard(str(board_path))
    parts = []
    for fp in board.GetFootprints():
        pos = fp.GetPosition()
        pads = [
            {
                "pad": pad.GetName(),
                "net": pad.GetNetname(),
                "x": pad.GetPosition().x / MM,
                "y": pad.GetPosition().y / MM,
            }
            for pad in fp.Pads()
        ]
        parts.append(
            {
                "ref": fp.GetReference(),
                "value": fp.GetValue(),
                "footprint": str(fp.GetFPID().GetUniStringLibId()),
                "x": pos.x / MM,
                "y": pos.y / MM,
                "angle": fp.GetOrientationDegrees(),
                "back": fp.IsFlipped(),
                "pads": pads,
            }
        )
    box = board.GetBoardEdgesBoundingBox()
    edges = []
    for item in board.GetDrawings():
        if item.GetClass() != "PCB_SHAPE" or item.GetLayer() != pcbnew.Edge_Cuts:
            continue
        arc = item.GetShape() == pcbnew.SHAPE_T_ARC
        shape: dict[str, Any] = {"kind": "arc" if arc else "segment",
                                 "start": [item.GetStart().x / MM, item.GetStart().y / MM],
                                 "end": [item.GetEnd().x / MM, item.GetEnd().y / MM]}  # fmt: skip
        if shape["kind"] == "arc":
            shape["centre"] = [item.GetCenter().x / MM, item.GetCenter().y / MM]
            shape["radius"] = item.GetRadius() / MM
        edges.append(shape)
    return {
        "edges": edges,
        "parts": parts,
        "size": [box.GetWidth() / MM, box.GetHeight() / MM],
        "tracks": sum(1 for t in board.GetTracks() if t.GetClass() == "PCB_TRACK"),
        "vias": sum(1 for t in board.GetTracks() if t.GetClass() == "PCB_VIA"),
    }


LAYERS = {
    "F_Cu": "F.Cu",
    "B_Cu": "B.Cu",
    "F_Mask": "F.Mask",
    "B_Mask": "B.Mask",
    "F_SilkS": "F.SilkS",
    "B_SilkS": "B.SilkS",
    "F_Paste": "F.Paste",
    "B_Paste": "B.Paste",
    "Edge_Cuts": "Edge.Cuts",
}


def plot(board_path: Path, outdir: Path) -> dict[str, Any]:
    board = pcbnew.LoadBoard(str(board_path))
    pcbnew.ZONE_FILLER(board).Fill(board.Zones())
    outdir = outdir.resolve()
    gerbers = outdir / "gerbers"
    svgs = outdir / "svg"
    gerbers.mkdir(parents=True, exist_ok=True)
    svgs.mkdir(parents=True, exist_ok=True)
    controller = pcbnew.PLOT_CONTROLLER(board)
    options = controller.GetPlotOptions()
    options.SetOutputDirectory(str(gerbers))
    options.SetPlotFrameRef(False)
    options.SetUseGerberProtelExtensions(True)
    options.SetUseGerberX2format(True)
    options.SetIncludeGerberNetlistInfo(True)
    options.SetCreateGerberJobFile(False)
    options.SetSubtractMaskFromSilk(True)
    options.SetUseAuxOrigin(False)
    options.SetMirror(False)
    options.SetExcludeEdgeLayer(True)
    written = []
    for suffix, layer_name in LAYERS.items():
        layer = getattr(pcbnew, layer_name.replace(".", "_"))
        controller.SetLayer(layer)
        controller.OpenPlotfile(suffix, pcbnew.PLOT_FORMAT_GERBER, layer_name)
        controller.PlotLayer()
        written.append(controller.GetPlotFileName())
    options.SetOutputDirectory(str(svgs))
    options.SetExcludeEdgeLayer(False)
    for suffix, layer_name in LAYERS.items():
        if "Paste" in suffix:
            continue
        layer = getattr(pcbnew, layer_name.replace(".", "_"))
        controller.SetLayer(layer)
        controller.OpenPlotfile(suffix, pcbnew.PLOT_FORMAT_SVG, layer_name)
        controller.PlotLayer()
    controller.ClosePlot()
    drill = pcbnew.EXCELLON_WRITER(board)
    drill.SetOptions(False, False, pcbnew.wxPoint(0, 0), False)
    drill.SetFormat(True)
    drill.CreateDrillandMapFilesSet(str(gerbers), True, False)
    return {"gerbers": sorted(os.path.basename(p) for p in written)}


def break_board(board_path: Path, out: Path) -> dict[str, Any]:
    """A copy with three faults a maker's edit could make: the first track of net ROW0
    removed, a diode moved onto its neighbour's spot, and a pad of net COL1 put on COL2."""
    board = pcbnew.LoadBoard(str(board_path))
    done = []
    for track in board.GetTracks():
        if track.GetClass() == "PCB_TRACK" and track.GetNetname() == "ROW0":
            board.Remove(track)
            done.append("removed a track of ROW0")
            break
    footprints = sorted(board.GetFootprints(), key=lambda f: f.GetReference())
    diodes = [f for f in footprints if f.GetValue() == "BAT43W"]
    if len(diodes) >= 2:
        diodes[0].SetPosition(diodes[1].GetPosition())
        done.append(f"moved {diodes[0].GetReference()} onto {diodes[1].GetReference()}")
    col2 = board.FindNet("COL2")
    for fp in footprints:
        pads = [p for p in fp.Pads() if p.GetNetname() == "COL1"]
        if pads and col2 is not None:
            pads[0].SetNet(col2)
            done.append(f"{fp.GetReference()}.{pads[0].GetName()} moved from COL1 to COL2")
            break
    board.Save(str(out))
    return {"faults": done}


def main(argv: list[str]) -> int:
    command, *args = argv
    paths = [Path(a).resolve() for a in args]
    if command == "build":
        result = build(paths[0], paths[1])
    elif command == "drc":
        result = drc(paths[0], paths[1])
    elif command == "dump":
        result = dump(paths[0])
    elif command == "plot":
        result = plot(paths[0], paths[1])
    elif command == "break":
        result = break_board(paths[0], paths[1])
    else:
        print(f"unknown command {command!r}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

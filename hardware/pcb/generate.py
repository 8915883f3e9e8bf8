"""``make board``: both printed boards from the geometry file and the shipped config.

Writes, under ``hardware/pcb/``:

- ``pyramid.pretty/``: the project's footprints (the Pi socket, the upright reed);
- ``base/``, ``controller/``, ``pico/`` and ``pyramidos/`` (the pico build's Pyramidos
  module): each board's KiCad project (``.kicad_pro``,
  ``.kicad_pcb``, ``.net``);
- ``fab/``: per board the Gerbers and drill files zipped for the fab, JLCPCB's BOM and
  placement (CPL) files, and the DRC summary;
- ``pictures/``: each board from above and from below, its layers coloured.

Run: ``.venv/bin/python -m hardware.pcb.generate`` (``make board``). KiCad's steps run
under the Python that has pcbnew (see :mod:`hardware.pcb.kicad_run`).
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from hardware.geometry import load_geometry
from hardware.pcb import copper, design, library, module, outputs, pico, power, schematic
from hardware.pcb.design import Board
from hardware.pcb.footprints import PROJECT_LIBRARY
from hardware.pcb.inputs import Inputs, load_inputs
from hardware.pcb.kicad_run import layout, run
from hardware.pcb.router import Rules, route

__all__ = ["HERE", "boards", "main", "picture", "write_library"]

HERE = Path(__file__).resolve().parent
SEED = 2212
"""KiCad's object ids are drawn from this seed, so that the same board is the same file."""

PROJECT = """{
  "board": {"design_settings": {"defaults": {}}},
  "meta": {"filename": "%s.kicad_pro", "version": 1},
  "pcbnew": {"page_layout_descr_file": ""}
}
"""

COLOURS = {
    "board": "#1e4d2b",
    "Cu": "#3f8f4f",
    "Mask": "#d4a83a",
    "SilkS": "#f4f4f4",
    "Edge_Cuts": "#222222",
}


def write_library(inputs: Inputs) -> None:
    lib = HERE / f"{PROJECT_LIBRARY}.pretty"
    lib.mkdir(exist_ok=True)
    wanted = {
        f"{library.PI_SOCKET.name}.kicad_mod": library.PI_SOCKET.text,
        f"{library.TACTILE.name}.kicad_mod": library.TACTILE.text,
        f"{library.TCRT1000.name}.kicad_mod": library.TCRT1000.text,
        f"{library.PICO.name}.kicad_mod": library.PICO.text,
        f"{inputs.spec.sensor.footprint.partition(':')[2]}.kicad_mod": (
            inputs.spec.sensor.footprint_text
        ),
    }
    for old in lib.glob("*.kicad_mod"):
        if old.name not in wanted:
            old.unlink()
    for name, text in wanted.items():
        (lib / name).write_text(text, encoding="utf-8")


def boards(inputs: Inputs) -> list[Board]:
    """Every board, placed and netted (not routed): the matrix build's base board and
    HAT, and the pico build's one board."""
    out = [design.base_board(inputs.spec, inputs.pins), design.controller_board(inputs.pins)]
    if inputs.pico_spec is not None and inputs.pico_pins is not None:
        remote = module.MODULE_NAMES if inputs.module_spec is not None else ()
        out.append(pico.pico_board(inputs.pico_spec, inputs.pico_pins, remote))
    if inputs.module_spec is not None and inputs.pico_pins is not None:
        out.append(module.module_board(inputs.module_spec, inputs.pico_pins, load_geometry()))
    return out


def picture(layers: dict[str, str], width: float, height: float, side: str) -> str:
    """One SVG of a board side from KiCad's one-layer plots: the board green, copper under
    the mask lighter, the pads (mask openings) gold, the silkscreen white; the bottom seen
    from below (mirrored)."""
    w, h = round(width * 1e3), round(height * 1e3)
    flip = f' transform="translate({w} 0) scale(-1 1)"' if side == "B" else ""
    body = [f'<rect x="0" y="0" width="{w}" height="{h}" fill="{COLOURS["board"]}"/>']
    for layer in (f"{side}_Cu", f"{side}_Mask", f"{side}_SilkS", "Edge_Cuts"):
        text = layers[layer]
        inner = text[text.index(">", text.index("<svg")) + 1 : text.rindex("</svg>")]
        inner = re.sub(r"<title>.*?</title>|<desc>.*?</desc>", "", inner, flags=re.S)
        inner = _micrometres(inner)
        colour = COLOURS[layer.split("_", 1)[1] if layer != "Edge_Cuts" else layer]
        # black is the layer's copper, mask opening or print; white the holes (in copper)
        # or the print taken off the pads (in the silkscreen: not drawn)
        inner = inner.replace("#000000", colour)
        inner = inner.replace("#FFFFFF", "none" if layer.endswith("SilkS") else COLOURS["board"])
        body.append(f"<g>{inner}</g>")
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" '
        f'width="{width * 4:.0f}" height="{height * 4:.0f}" viewBox="0 0 {w} {h}">\n'
        f"<g{flip}>\n" + "\n".join(body) + "\n</g>\n</svg>\n"
    )


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_LENGTHS = re.compile(
    r'(\b(?:cx|cy|r|x|y|textLength|font-size)=")([^"]*)(")|(stroke-width:)([-\d.]+)'
    r'|(\bd=")([^"]*)(")',
    re.S,
)


def _micrometres(svg: str) -> str:
    """KiCad's plots count in nanometres; browsers lose precision past 2^25 units (33 mm
    of board). Every length in micrometres (a thousandth of the numbers, and shorter)."""

    def scale(text: str) -> str:
        return _NUMBER.sub(lambda m: f"{float(m[0]) / 1000:.0f}", text)

    def one(m: re.Match[str]) -> str:
        if m[1]:
            return m[1] + scale(m[2]) + m[3]
        if m[4]:
            return m[4] + scale(m[5])
        return m[6] + scale(m[7]) + m[8]

    return _LENGTHS.sub(one, svg)


def build_board(
    board: Board, inputs: Inputs, out: Path, work: Path, fed: tuple[Board, ...] = ()
) -> dict[str, object]:
    """Route, build, check and plot one board into ``out`` (the project) and ``fab``;
    ``fed``: the boards its supply feeds through a cable (their loads in its budget)."""
    started = time.monotonic()
    routed = route(board)
    routing_s = time.monotonic() - started
    name = board.name
    project = out / name
    project.mkdir(parents=True, exist_ok=True)
    (project / f"{name}.kicad_pro").write_text(PROJECT % name, encoding="utf-8")
    pico_board = name in ("pico", "pyramidos") and inputs.pico_pins
    pins = inputs.pico_pins.source if pico_board and inputs.pico_pins else inputs.pins.source
    source = f"hardware/geometry.toml, {pins}"
    (project / f"{name}.net").write_text(outputs.netlist(board, source), encoding="utf-8")
    schematic.write(board, project / f"{name}.kicad_sch", source)
    spec = work / f"{name}.json"
    spec.write_text(json.dumps(layout(routed, Rules(), source, SEED)), encoding="utf-8")
    pcb = project / f"{name}.kicad_pcb"
    run("build", spec, pcb)
    # KiCad also saves its window state beside the board: not part of the design
    (project / f"{name}.kicad_prl").unlink(missing_ok=True)
    drc = run("drc", pcb, work / f"{name}-drc.rpt")
    fab = out / "fab"
    fab.mkdir(exist_ok=True)
    (fab / f"{name}-bom.csv").write_text(outputs.bom_csv(board), encoding="utf-8")
    (fab / f"{name}-cpl.csv").write_text(outputs.cpl_csv(board), encoding="utf-8")
    plots = work / f"{name}-plots"
    run("plot", pcb, plots)
    write_zip(fab / f"{name}-gerbers.zip", plots / "gerbers")
    svg = {p.stem.removeprefix(f"{name}-"): p.read_text() for p in (plots / "svg").glob("*.svg")}
    pictures = out / "pictures"
    pictures.mkdir(exist_ok=True)
    for side, label in (("F", "top"), ("B", "bottom")):
        (pictures / f"{name}-{label}.svg").write_text(
            picture(svg, board.width, board.height, side), encoding="utf-8"
        )
    kinds: dict[str, int] = {}
    for v in drc["violations"]:
        kinds[v["kind"]] = kinds.get(v["kind"], 0) + 1
    summary: dict[str, object] = {
        "board": name,
        "size_mm": [board.width, board.height],
        "parts": len(board.parts),
        "smt_parts": sum(1 for p in board.parts if p.kind.assembly == "smt"),
        "hand_parts": sum(1 for p in board.parts if p.kind.assembly == "hand"),
        "nets": len([n for n in board.nets() if not n.startswith("unconnected-")]),
        "parts_cost_usd": outputs.parts_cost(board),
        "tracks": len(routed.tracks),
        "vias": len(routed.vias),
        "drc": drc["counts"],
        "drc_kinds": dict(sorted(kinds.items())),
    }
    # the supply's drops on a board with its own supply input (the module's comes by cable)
    if any(p.kind.key in power.LED_KINDS for p in board.parts) and any(
        p.kind.key == "fuse" for p in board.parts
    ):
        leds, others, entry = power.loads(board, *fed)
        vdd, gnd = power.led_pads(board)
        drops = copper.solve(pcb, board.width, board.height, leds, others, entry,
                             celsius=power.WARM_COPPER, vdd_pad=vdd, gnd_pad=gnd)  # fmt: skip
        worst = drops[0]
        summary["led_supply"] = {
            "full_white_amps": power.budget(board, *fed).full_white,
            "copper_celsius": power.WARM_COPPER,
            "worst_led": worst.ref,
            "worst_drop_volts": round(worst.supply_volts, 4),
            "of_which_5v": round(worst.positive, 4),
            "of_which_gnd": round(worst.ground, 4),
        }
    (fab / f"{name}-summary.json").write_text(
        json.dumps(summary, indent=2) + "\n", encoding="utf-8"
    )
    print(f"{name}: routed in {routing_s:.1f} s; DRC {drc['counts']} {summary['drc_kinds']}")
    return summary


def write_zip(path: Path, directory: Path) -> None:
    """The Gerbers and drill files, without their dates, in a zip that is the same bytes
    for the same board."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for file in sorted(directory.iterdir()):
            if file.suffix in (".gbr", ".pdf"):
                continue
            info = zipfile.ZipInfo(file.name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, outputs.normalise(file.read_text(encoding="utf-8")))


def main(argv: list[str] | None = None) -> int:
    """Every board, or only those named (``python -m hardware.pcb.generate pico``)."""
    names = set(argv or [])
    inputs = load_inputs()
    write_library(inputs)
    with tempfile.TemporaryDirectory() as tmp:
        made = boards(inputs)
        for board in made:
            if names and board.name not in names:
                continue
            fed = tuple(b for b in made if board.name == "pico" and b.name == "pyramidos")
            build_board(board, inputs, HERE, Path(tmp), fed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

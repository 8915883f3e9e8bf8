"""The printed boards, checked with KiCad itself (pcbnew, run as ``hardware/pcb/kicad.py``).

What is checked, on the committed ``hardware/pcb/*/*.kicad_pcb`` as a fab would get them:
KiCad's DRC with JLCPCB's two-layer rules (0.15 mm track and space, 0.3 mm drill);
every pad on the net the design's netlist gives it; every cell, target and button wired
through its diode, the ribbon cable and the HAT to exactly the row and column GPIOs the
shipped config names, and the LED chain in the config's order; the netlist's ERC; the
committed fabrication files against a fresh plot of the committed boards; and a broken
copy of the base board that DRC and the netlist check must both catch. On the pico
board, every reflective sensor, button and the top's IR module traced through the
copper to the Pico pin, multiplexer input and emitter group ``firmware/config.py``
says, and the LED chain from its LED pin in the host config's order.

Without KiCad these skip with the line to install it; under ``CI=true`` they fail.
"""

from __future__ import annotations

import json
import os
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from hardware.pcb import checks, generate, outputs
from hardware.pcb.design import BaseSpec, Board
from hardware.pcb.inputs import Inputs, load_inputs
from hardware.pcb.kicad_run import INSTALL, KICAD_PYTHON_ENV, KiCadError, kicad_python, run

HERE = generate.HERE
BOARDS = ("base", "controller", "pico", "pyramidos")
SILK = {"silk_over_copper", "silk_overlap"}
"""DRC warnings about silkscreen clipped at pads or overlapping: the fab clips silkscreen
at every mask opening anyway; they are counted, not failed."""


def require_kicad() -> str:
    """The Python with pcbnew; a skip saying what to install (a failure under CI=true)."""
    python = kicad_python()
    if python is None:
        problem = f"KiCad's pcbnew module is missing: {INSTALL}"
        if os.environ.get("CI") == "true":
            pytest.fail(f"the board checks cannot run in CI: {problem}")
        pytest.skip(problem)
    return python


@pytest.fixture(scope="module")
def kicad() -> str:
    return require_kicad()


def test_without_kicad_the_checks_skip_and_fail_in_ci(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # a Python without pcbnew (the venv's own) stands for a machine without KiCad
    monkeypatch.setenv(KICAD_PYTHON_ENV, sys.executable)
    kicad_python.cache_clear()
    try:
        monkeypatch.setenv("CI", "false")
        with pytest.raises(pytest.skip.Exception, match="apt-get install"):
            require_kicad()
        monkeypatch.setenv("CI", "true")
        with pytest.raises(pytest.fail.Exception, match="cannot run in CI"):
            require_kicad()
        with pytest.raises(KiCadError, match="apt-get install"):
            run("dump", tmp_path / "none.kicad_pcb")
    finally:
        monkeypatch.undo()
        kicad_python.cache_clear()


@pytest.fixture(scope="module")
def inputs() -> Inputs:
    return load_inputs()


@pytest.fixture(scope="module")
def designed(inputs: Inputs) -> dict[str, Board]:
    return {b.name: b for b in generate.boards(inputs)}


@pytest.fixture(scope="module")
def dumps(kicad: str) -> dict[str, dict[str, Any]]:
    return {name: run("dump", HERE / name / f"{name}.kicad_pcb") for name in BOARDS}


def pcb(name: str) -> Path:
    return HERE / name / f"{name}.kicad_pcb"


@pytest.mark.parametrize("name", BOARDS)
def test_drc_is_clean_with_jlcpcb_rules(kicad: str, tmp_path: Path, name: str) -> None:
    drc = run("drc", pcb(name), tmp_path / "drc.rpt")
    errors = [v for v in drc["violations"] if v["kind"] not in SILK]
    assert errors == []
    assert drc["counts"]["unconnected pads"] == 0
    assert drc["counts"]["Footprint errors"] == 0


@pytest.mark.parametrize("name", BOARDS)
def test_every_pad_is_on_its_netlist_net(
    dumps: dict[str, dict[str, Any]], designed: dict[str, Board], name: str
) -> None:
    assert checks.pads_against_netlist(dumps[name], designed[name]) == []


@pytest.mark.parametrize("name", BOARDS)
def test_outline_and_mounting_holes_are_the_designs(
    dumps: dict[str, dict[str, Any]], designed: dict[str, Board], name: str
) -> None:
    board = designed[name]
    width, height = dumps[name]["size"]
    # the bounding box includes the outline's 0.1 mm line
    assert width == pytest.approx(board.width + 0.1, abs=1e-3)
    assert height == pytest.approx(board.height + 0.1, abs=1e-3)
    holes = sorted((p["x"], p["y"]) for p in dumps[name]["parts"] if p["value"] == "mounting hole")
    assert holes == sorted((h.x, h.y) for h in board.holes)


@pytest.mark.parametrize("name", BOARDS)
def test_the_netlist_passes_erc(designed: dict[str, Board], name: str) -> None:
    assert checks.erc(designed[name]) == []


def test_switches_and_leds_are_wired_as_the_config_says(
    dumps: dict[str, dict[str, Any]], inputs: Inputs
) -> None:
    traced = checks.trace(dumps["base"], dumps["controller"], inputs.spec, inputs.pins)
    assert checks.against_config(traced, inputs.pins) == []
    # every channel the config names was found by following the copper
    assert set(traced.switches) == set(inputs.pins.channels)
    assert len(traced.leds) == len(inputs.pins.leds)


def test_a_board_wired_to_other_pins_fails_the_config_check(
    dumps: dict[str, dict[str, Any]], inputs: Inputs
) -> None:
    from dataclasses import replace

    swapped = replace(inputs.pins, cols=(inputs.pins.cols[1], inputs.pins.cols[0],
                                         *inputs.pins.cols[2:]))  # fmt: skip
    traced = checks.trace(dumps["base"], dumps["controller"], inputs.spec, inputs.pins)
    problems = checks.against_config(traced, swapped)
    assert any("a1" in p for p in problems)
    reordered = dict(inputs.pins.leds)
    reordered["a1"], reordered["b1"] = reordered["b1"], reordered["a1"]
    assert any("LED data chain" in p for p in checks.against_config(
        traced, replace(inputs.pins, leds=reordered)))  # fmt: skip


def joined(dumps: dict[str, dict[str, Any]], inputs: Inputs) -> tuple[dict[str, Any], BaseSpec]:
    """The pico board and the Pyramidos module, joined by their ribbon cable."""
    assert inputs.pico_spec is not None and inputs.module_spec is not None
    dump, spec, problems = checks.with_module(
        dumps["pico"], dumps["pyramidos"], inputs.pico_spec, inputs.module_spec
    )
    assert problems == []
    return dump, spec


def test_the_pico_boards_sensors_are_wired_as_the_firmware_says(
    dumps: dict[str, dict[str, Any]], inputs: Inputs
) -> None:
    assert inputs.pico_pins is not None
    traced = checks.trace_pico(*joined(dumps, inputs), inputs.pico_pins)
    assert checks.against_firmware(traced, inputs.pico_pins) == []
    # every sensor and switch the firmware names was found by following the copper, the
    # targets and the top on the module, through the cable
    assert set(traced.sensors) == set(inputs.pico_pins.sensors)
    assert len(traced.sensors) == 30
    assert set(traced.switches) == set(inputs.pico_pins.switches)
    assert len(traced.leds) == len(inputs.pico_pins.leds)


def test_a_pico_board_wired_to_other_pins_fails_the_firmware_check(
    dumps: dict[str, dict[str, Any]], inputs: Inputs
) -> None:
    from dataclasses import replace

    pins = inputs.pico_pins
    assert pins is not None
    traced = checks.trace_pico(*joined(dumps, inputs), pins)
    # two sensors' multiplexer inputs swapped in the config
    sensors = dict(pins.sensors)
    sensors["a1"], sensors["b1"] = sensors["b1"], sensors["a1"]
    problems = checks.against_firmware(traced, replace(pins, sensors=sensors))
    assert any(p.startswith("a1:") for p in problems)
    assert any(p.startswith("b1:") for p in problems)
    # the emitter groups' GPIOs and the ADC pins in another order
    emitters = (pins.emitters[1], pins.emitters[0], *pins.emitters[2:])
    assert any("lit by GPIO" in p for p in checks.against_firmware(
        traced, replace(pins, emitters=emitters)))  # fmt: skip
    assert checks.against_firmware(traced, replace(pins, adc=pins.adc[::-1]))
    switches = {**pins.switches, "button:undo": pins.switches["button:confirm"]}
    assert any("button:undo" in p for p in checks.against_firmware(
        traced, replace(pins, switches=switches)))  # fmt: skip
    reordered = dict(pins.leds)
    reordered["a1"], reordered["b1"] = reordered["b1"], reordered["a1"]
    assert any("LED data chain" in p for p in checks.against_firmware(
        traced, replace(pins, leds=reordered)))  # fmt: skip


def test_a_module_whose_cable_crosses_two_lines_fails_the_firmware_check(
    dumps: dict[str, dict[str, Any]], inputs: Inputs
) -> None:
    """The module's header with t1's and t2's sensor lines swapped (a cable or header
    wired otherwise): the joined trace finds both on the wrong multiplexer input."""
    assert inputs.pico_spec is not None and inputs.module_spec and inputs.pico_pins
    swap = {"SNS_t1": "SNS_t2", "SNS_t2": "SNS_t1"}
    module = {**dumps["pyramidos"], "parts": [
        {**p, "pads": [{**pad, "net": swap.get(pad["net"], pad["net"])} for pad in p["pads"]]}
        if p["value"] == "2x10 IDC" else p for p in dumps["pyramidos"]["parts"]
    ]}  # fmt: skip
    dump, spec, problems = checks.with_module(
        dumps["pico"], module, inputs.pico_spec, inputs.module_spec
    )
    assert problems == []
    found = checks.against_firmware(
        checks.trace_pico(dump, spec, inputs.pico_pins), inputs.pico_pins
    )
    assert any(p.startswith("t1:") for p in found) and any(p.startswith("t2:") for p in found)
    # a module without its header joins nothing, and says so
    bare = {**module, "parts": [p for p in module["parts"] if p["value"] != "2x10 IDC"]}
    assert checks.with_module(dumps["pico"], bare, inputs.pico_spec, inputs.module_spec)[2]


def test_a_broken_copy_fails_drc_and_the_netlist_check(
    kicad: str, tmp_path: Path, designed: dict[str, Board]
) -> None:
    broken = tmp_path / "broken.kicad_pcb"
    faults = run("break", pcb("base"), broken)["faults"]
    assert len(faults) == 3, faults
    drc = run("drc", broken, tmp_path / "broken.rpt")
    kinds = {v["kind"] for v in drc["violations"]} - SILK
    assert drc["counts"]["unconnected pads"] > 0 or "unconnected_items" in kinds
    assert kinds & {"courtyards_overlap", "clearance", "shorting_items", "solder_mask_bridge"}
    problems = checks.pads_against_netlist(run("dump", broken), designed["base"])
    assert any("COL2" in p for p in problems)
    assert any(" at (" in p for p in problems)


@pytest.mark.parametrize("name", BOARDS)
def test_the_committed_fab_files_match_the_board(
    kicad: str, tmp_path: Path, designed: dict[str, Board], name: str
) -> None:
    board = designed[name]
    fab = HERE / "fab"
    assert (fab / f"{name}-bom.csv").read_text() == outputs.bom_csv(board)
    assert (fab / f"{name}-cpl.csv").read_text() == outputs.cpl_csv(board)
    net = (HERE / name / f"{name}.net").read_text()
    assert net == outputs.netlist(board, net.split('(source "', 1)[1].split('"', 1)[0])
    plots = tmp_path / "plots"
    run("plot", pcb(name), plots)
    with zipfile.ZipFile(fab / f"{name}-gerbers.zip") as zf:
        committed = {n: zf.read(n).decode() for n in zf.namelist()}
    fresh = {
        p.name: outputs.normalise(p.read_text())
        for p in sorted((plots / "gerbers").iterdir())
        if p.suffix not in (".gbr", ".pdf")
    }
    assert committed.keys() == fresh.keys()
    stale = [n for n in fresh if committed[n] != fresh[n]]
    assert stale == [], "run `make board`: these fab files are stale"
    layers = {p.stem.removeprefix(f"{name}-"): p.read_text() for p in (plots / "svg").iterdir()}
    for side, label in (("F", "top"), ("B", "bottom")):
        committed_picture = (HERE / "pictures" / f"{name}-{label}.svg").read_text()
        assert committed_picture == generate.picture(layers, board.width, board.height, side)
    summary = json.loads((fab / f"{name}-summary.json").read_text())
    assert summary["parts"] == len(board.parts)


def test_the_project_library_is_current(inputs: Inputs) -> None:
    from hardware.pcb import library

    lib = HERE / "pyramid.pretty"
    assert (lib / f"{library.PI_SOCKET.name}.kicad_mod").read_text() == library.PI_SOCKET.text
    assert (lib / f"{library.TACTILE.name}.kicad_mod").read_text() == library.TACTILE.text
    assert (lib / f"{library.TCRT1000.name}.kicad_mod").read_text() == library.TCRT1000.text
    assert (lib / f"{library.PICO.name}.kicad_mod").read_text() == library.PICO.text
    reed = inputs.spec.sensor.footprint.partition(":")[2]
    assert (lib / f"{reed}.kicad_mod").read_text() == inputs.spec.sensor.footprint_text


@pytest.mark.parametrize("name", BOARDS)
def test_the_boards_nets_are_its_schematics(dumps: dict[str, dict[str, Any]], name: str) -> None:
    """Every pad of the committed .kicad_pcb (KiCad's reading of it) is on the net the
    committed .kicad_sch's drawing puts its pin on, and no net has a pin more or less."""
    from hardware.pcb import schematic

    drawn = schematic.read(HERE / name / f"{name}.kicad_sch")
    copper: dict[str, set[tuple[str, str]]] = {}
    for part in dumps[name]["parts"]:
        if part["value"] == "mounting hole":
            continue
        for pad in part["pads"]:
            if pad["net"]:
                copper.setdefault(pad["net"], set()).add((part["ref"], pad["pad"]))
    assert {n: set(v) for n, v in drawn.nets.items()} == copper


def test_the_hat_has_the_hat_specifications_mechanics(dumps: dict[str, dict[str, Any]]) -> None:
    """Raspberry Pi's HAT specification (raspberrypi/hats, hat-board-mechanical.pdf and
    designguide.md): 65 × 56.5 mm, 3 mm corner radii, four M2.5 holes 58 × 49 mm apart
    3.5 mm in from the edges, and an ID EEPROM on ID_SD/ID_SC (GPIO 0/1, header pins 27
    and 28) with 3.9 kΩ pull-ups and its write protect pulled up by 1 kΩ."""
    hat = dumps["controller"]
    assert hat["size"] == pytest.approx([65.1, 56.6], abs=1e-3)  # with the 0.1 mm line
    arcs = [e for e in hat["edges"] if e["kind"] == "arc"]
    assert sorted((round(a["centre"][0], 3), round(a["centre"][1], 3)) for a in arcs) == [
        (3.0, 3.0), (3.0, 53.5), (62.0, 3.0), (62.0, 53.5),
    ]  # fmt: skip
    assert all(a["radius"] == pytest.approx(3.0) for a in arcs)
    holes = sorted((p["x"], p["y"]) for p in hat["parts"] if p["value"] == "mounting hole")
    assert holes == [(3.5, 3.5), (3.5, 52.5), (61.5, 3.5), (61.5, 52.5)]
    xs, ys = {x for x, _ in holes}, {y for _, y in holes}
    assert max(xs) - min(xs) == pytest.approx(58.0) and max(ys) - min(ys) == pytest.approx(49.0)
    parts = {p["ref"]: p for p in hat["parts"]}
    header = next(p for p in hat["parts"] if p["value"] == "Raspberry Pi GPIO")
    pins = {pad["pad"]: pad["net"] for pad in header["pads"]}
    assert (pins["27"], pins["28"]) == ("ID_SD", "ID_SC")
    eeprom = next(p for p in hat["parts"] if p["value"] == "CAT24C32")
    nets = {pad["pad"]: pad["net"] for pad in eeprom["pads"]}
    assert nets == {"1": "GND", "2": "GND", "3": "GND", "4": "GND", "5": "ID_SD",
                    "6": "ID_SC", "7": "EEPROM_WP", "8": "3V3"}  # fmt: skip

    def pull_ups(net: str) -> list[str]:
        return [
            p["value"] for p in parts.values()
            if {pad["net"] for pad in p["pads"]} == {net, "3V3"}
        ]  # fmt: skip

    assert pull_ups("ID_SD") == ["3k9"] and pull_ups("ID_SC") == ["3k9"]
    assert pull_ups("EEPROM_WP") == ["1k"]
    # nothing else on the ID pins (the design guide: only the EEPROM and its pull-ups)
    on_id = {p["value"] for p in parts.values()
             if any(pad["net"] in ("ID_SD", "ID_SC") for pad in p["pads"])}  # fmt: skip
    assert on_id == {"CAT24C32", "3k9", "Raspberry Pi GPIO"}

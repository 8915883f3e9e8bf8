"""What a fab takes and a maker edits, checked on the committed files without KiCad's
pcbnew: the LED supply's drop solved on the routed copper, the fuse against the budget,
the LCSC codes, the placement file in the Gerbers' frame, each schematic's nets and its
electrical-rule check, and the board lying flush under the wood.

(The checks that need KiCad itself, DRC and the pads KiCad reads back, are in
test_boards.py; the schematic's nets are compared with those there too.)
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import zipfile
from pathlib import Path

import pytest

from hardware.geometry import load_geometry
from hardware.pcb import checks, copper, generate, power, schematic
from hardware.pcb.design import Board
from hardware.pcb.footprints import FootprintError, load_footprint
from hardware.pcb.inputs import Inputs, load_inputs

HERE = generate.HERE
FAB = HERE / "fab"


@pytest.fixture(autouse=True)
def footprints() -> None:
    try:
        load_footprint("Resistor_SMD:R_0603_1608Metric")
    except FootprintError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def inputs() -> Inputs:
    return load_inputs()


@pytest.fixture(scope="module")
def designed(inputs: Inputs) -> dict[str, Board]:
    return {b.name: b for b in generate.boards(inputs)}


# -- the LED supply -----------------------------------------------------------------------


LIT = ("base", "pico")
"""The boards with LEDs on them."""


@pytest.fixture(scope="module", params=LIT)
def lit(request: pytest.FixtureRequest, designed: dict[str, Board]) -> Board:
    board: Board = designed[request.param]
    return board


@pytest.fixture(scope="module")
def drops(lit: Board, designed: dict[str, Board]) -> list[copper.Drop]:
    # the pico board's supply feeds the Pyramidos module too: its draw leaves at the header
    fed = [designed["pyramidos"]] if lit.name == "pico" else []
    leds, others, entry = power.loads(lit, *fed)
    vdd, gnd = power.led_pads(lit)
    return copper.solve(
        HERE / lit.name / f"{lit.name}.kicad_pcb", lit.width, lit.height, leds, others, entry,
        celsius=power.WARM_COPPER, vdd_pad=vdd, gnd_pad=gnd,
    )  # fmt: skip


def test_every_led_keeps_its_supply_within_a_quarter_volt_at_full_white(
    drops: list[copper.Drop], lit: Board, designed: dict[str, Board]
) -> None:
    """Every LED white at full brightness (the budget's worst case) with the other loads
    on (the base board's IR modules; every emitter of the pico board and its speaker),
    solved on the committed board's pours, tracks and vias at 60 °C copper."""
    assert len(drops) == sum(1 for p in lit.parts if p.kind.key in power.LED_KINDS)
    worst = drops[0]
    assert 0 < worst.supply_volts <= power.DROP_LIMIT
    assert worst.positive > 0 and worst.ground > 0
    summary = json.loads((FAB / f"{lit.name}-summary.json").read_text())["led_supply"]
    assert summary["worst_led"] == worst.ref
    assert summary["worst_drop_volts"] == pytest.approx(worst.supply_volts, abs=1e-4)
    # the pico board's supply feeds the Pyramidos module too, through its cable
    fed = [designed["pyramidos"]] if lit.name == "pico" else []
    assert summary["full_white_amps"] == pytest.approx(power.budget(lit, *fed).full_white)


def test_the_chains_end_is_fed_by_the_pour(
    drops: list[copper.Drop], lit: Board, inputs: Inputs
) -> None:
    """The second feed: the last LED of the chain gets its supply from the +5V pour as
    directly as the first (no LED downstream of another on one track)."""
    order = inputs.pins.leds if lit.name == "base" else (inputs.pico_pins or inputs.pins).leds
    last = max(order.values())
    name = next(n for n, i in order.items() if i == last)
    ref = next(p.ref for p in lit.parts if p.role == f"LED {name}")
    end = next(d for d in drops if d.ref == ref)
    assert end.supply_volts <= power.DROP_LIMIT / 2


def _strip(tmp_path: Path, length: float, width: float) -> Path:
    """A board file with one +5V pour, a rectangle, and a pad at each end."""
    pad = (
        '(footprint "x" (layer "F.Cu") (at {x} 10) (fp_text reference "{ref}" (at 0 0)) '
        '(pad "1" smd rect (at 0 0) (size 0.5 {w}) (layers "F.Cu") (net 1 "+5V")))'
    )
    text = (
        '(kicad_pcb (net 0 "") (net 1 "+5V") (net 2 "GND") '
        + pad.format(x=5.25, ref="A", w=width)
        + pad.format(x=5.25 + length - 0.5, ref="B", w=width)
        + '(zone (net 1) (net_name "+5V") (layer "F.Cu") (filled_polygon (layer "F.Cu") (pts '
        + f"(xy 5 {10 - width / 2}) (xy {5 + length} {10 - width / 2}) "
        + f"(xy {5 + length} {10 + width / 2}) (xy 5 {10 + width / 2})))))"
    )
    path = tmp_path / "strip.kicad_pcb"
    path.write_text(text)
    return path


def test_the_solver_gives_a_strips_resistance(tmp_path: Path) -> None:
    """A 100 × 2 mm strip of 1 oz copper is 50 squares: 1 A across it drops 50 × the
    sheet's resistance (0.49 mΩ at 20 °C), to within the spreading at its two ends (the
    current enters and leaves at one cell each)."""
    path = _strip(tmp_path, 100.0, 2.0)
    net = copper.Network(copper.read_copper(path, ["+5V"])["+5V"], 120, 20, cell=0.5)
    volts = net.potentials(("A", "1"), [copper.Load("B", "1", 1.0)])
    drop = -volts[net.pad_node("B", "1")]
    assert copper.sheet_ohms() == pytest.approx(1.724e-8 / 34.8e-6)
    assert drop == pytest.approx(copper.sheet_ohms() * (99.5 - 0.5) / 2.0, rel=0.03)
    # copper 40 °C warmer: 15.7 % more
    warm = copper.Network(copper.read_copper(path, ["+5V"])["+5V"], 120, 20, 0.5, 60.0)
    hot = -warm.potentials(("A", "1"), [copper.Load("B", "1", 1.0)])[warm.pad_node("B", "1")]
    assert hot / drop == pytest.approx(1 + 0.00393 * 40, rel=1e-6)


def test_copper_cut_off_from_the_supply_is_reported(tmp_path: Path) -> None:
    path = _strip(tmp_path, 50.0, 5.0)
    text = (
        path.read_text().replace("(xy 5 7.5)", "(xy 30 7.5)").replace("(xy 5 12.5)", "(xy 30 12.5)")
    )
    path.write_text(text)
    net = copper.Network(copper.read_copper(path, ["+5V"])["+5V"], 120, 20)
    with pytest.raises(ValueError, match=r"no copper joins B\.1"):
        net.potentials(("A", "1"), [copper.Load("B", "1", 1.0)])


def test_the_fuse_holds_the_whole_budget_and_the_supply_is_asked_for_5_v(
    designed: dict[str, Board],
) -> None:
    base = designed["base"]
    budget = power.budget(base)
    assert budget.leds == 37
    # 37 × (3 × 20 + 1) mA + 5 IR modules × 20 mA
    assert budget.full_white == pytest.approx(37 * 0.061 + 0.1)
    fuse = next(p for p in base.parts if p.kind.key == "fuse")
    assert fuse.kind.value == f"{power.FUSE_HOLD:g}A"
    assert budget.full_white <= power.FUSE_HOLD
    # the USB-C sink's CC pins each have their 5.1 kΩ to ground: a source gives 5 V only
    usb = next(p for p in base.parts if p.kind.key == "usbc")
    for cc in ("A5", "B5"):
        r = next(p for p in base.parts if usb.nets[cc] in p.nets.values() and p is not usb)
        assert r.kind.value == "5k1" and "GND" in r.nets.values()
    # nothing but the fuse between the socket's VBUS and the LEDs' +5V
    beside = {n for p in base.parts if p is not usb and "VBUS" in p.nets.values()
              for n in p.nets.values()}  # fmt: skip
    assert beside == {"VBUS", "GND", "+5V"}


def test_the_pico_boards_fuse_holds_its_budget_and_its_supplies_stay_apart(
    designed: dict[str, Board],
) -> None:
    """37 WS2812B-2020 at 3 × 12 mA + 1 mA, the largest emitter group (six TCRT1000s,
    each at most (5 − 1.0) V / 150 Ω) and the speaker (5 V / 158 Ω) under the fuse's hold
    current, the Pyramidos module's five LEDs and its emitters (one in each group) fed
    through its cable; USB-C asks for 5 V only; the Pico's VBUS and VSYS are on no net
    (it runs from the computer's USB), the LEDs' buffer on the LED rail, nothing between
    +5V and 3V3."""
    board = designed["pico"]
    assert power.budget(board).leds == 32
    budget = power.budget(board, designed["pyramidos"])
    assert budget.leds == 37
    assert budget.full_white == pytest.approx(
        37 * (3 * 0.012 + 0.001) + 6 * (5.0 - 1.0) / 150.0 + 5.0 / 158.0, abs=2e-3
    )
    fuse = next(p for p in board.parts if p.kind.key == "fuse")
    assert budget.full_white <= power.FUSE_HOLD and fuse.kind.value == f"{power.FUSE_HOLD:g}A"
    usb = next(p for p in board.parts if p.kind.key == "usbc")
    for cc in ("A5", "B5"):
        r = next(p for p in board.parts if usb.nets[cc] in p.nets.values() and p is not usb)
        assert r.kind.value == "5k1" and "GND" in r.nets.values()
    pico = next(p for p in board.parts if p.kind.key == "pico")
    names = {pin.name: pad for pad, pin in pico.kind.pins.items()}
    assert pico.nets[names["VBUS"]].startswith("unconnected-")
    assert pico.nets[names["VSYS"]].startswith("unconnected-")
    assert pico.nets[names["3V3"]] == "3V3"
    (buffer,) = [p for p in board.parts if p.kind.key == "buffer"]
    assert buffer.nets["14"] == "+5V"
    # (the module's cable header carries both, each on pins of its own)
    assert not any(
        {"+5V", "3V3"} <= set(p.nets.values()) for p in board.parts if p.kind.key != "idc20smd"
    )
    # the emitters from the LED rail through 150 Ω; the phototransistors from the 3V3
    for tcrt in (p for p in board.parts if p.kind.key == "tcrt"):
        assert tcrt.nets["4"] == "3V3"
        (r,) = [p for p in board.parts if tcrt.nets["1"] in p.nets.values() and p is not tcrt]
        assert r.kind.value == "150" and "+5V" in r.nets.values()


def test_the_led_buffer_runs_on_the_led_rail_so_nothing_back_feeds_it(
    designed: dict[str, Board],
) -> None:
    """By construction: the 74AHCT125 is on the base board, its only supply the LEDs'
    +5V; the HAT has no buffer and nothing of the Pi's 5 V reaches the cable."""
    base, hat = designed["base"], designed["controller"]
    (buffer,) = [p for p in base.parts if p.kind.key == "buffer"]
    assert buffer.nets["14"] == "+5V"
    assert not any(p.kind.key == "buffer" for p in hat.parts)
    cable = next(p for p in hat.parts if p.kind.key == "idc20")
    assert "+5V_PI" not in cable.nets.values() and "3V3" not in cable.nets.values()


# -- the fab's files ------------------------------------------------------------------------


def _rows(name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((FAB / name).read_text())))


@pytest.mark.parametrize("name", ["base", "controller", "pico", "pyramidos"])
def test_every_machine_placed_part_has_an_lcsc_code(name: str) -> None:
    rows = _rows(f"{name}-bom.csv")
    placed = [r for r in rows if r["Assembly"] == "smt"]
    assert placed
    assert [r["Designator"] for r in placed if not re.fullmatch(r"C\d+", r["LCSC"])] == []
    cpl = {r["Designator"] for r in _rows(f"{name}-cpl.csv")}
    assert cpl == {d for r in placed for d in r["Designator"].split(",")}


def _gerber_points(text: str) -> list[tuple[float, float]]:
    """Every coordinate of a Gerber file (format 4.6, mm: KiCad's)."""
    assert "%FSLAX46Y46*%" in text and "%MOMM*%" in text
    out = []
    x = y = 0
    for m in re.finditer(r"^(?:X(-?\d+))?(?:Y(-?\d+))?D0?[123]\*$", text, re.M):
        x = int(m[1]) if m[1] is not None else x
        y = int(m[2]) if m[2] is not None else y
        out.append((x / 1e6, y / 1e6))
    return out


@pytest.mark.parametrize("name", ["base", "controller", "pico", "pyramidos"])
def test_the_placement_file_is_in_the_gerbers_frame(name: str, designed: dict[str, Board]) -> None:
    """Each part the fab places lies inside the outline the Gerbers draw, and on its side's
    paste: the nearest solder-paste opening of its side is under its own courtyard."""
    with zipfile.ZipFile(FAB / f"{name}-gerbers.zip") as zf:
        files = {n: zf.read(n).decode() for n in zf.namelist()}
    edge = _gerber_points(next(t for n, t in files.items() if n.endswith("Edge_Cuts.gm1")))
    xs, ys = [p[0] for p in edge], [p[1] for p in edge]
    board = designed[name]
    assert (min(xs), max(xs)) == pytest.approx((0.0, board.width), abs=0.06)
    assert (min(ys), max(ys)) == pytest.approx((-board.height, 0.0), abs=0.06)
    paste = {
        side: _gerber_points(next(t for n, t in files.items() if n.endswith(ext)))
        for side, ext in (("Top", "F_Paste.gtp"), ("Bottom", "B_Paste.gbp"))
    }
    parts = {p.ref: p for p in board.parts}
    for row in _rows(f"{name}-cpl.csv"):
        x, y = float(row["Mid X"].removesuffix("mm")), float(row["Mid Y"].removesuffix("mm"))
        assert min(xs) < x < max(xs) and min(ys) < y < max(ys), row
        nearest = min(paste[row["Layer"]], key=lambda p: math.hypot(p[0] - x, p[1] - y))
        part = parts[row["Designator"]]
        reach = max(abs(v) for v in load_footprint(part.kind.footprint).courtyard)
        assert math.hypot(nearest[0] - x, nearest[1] - y) <= reach, row


# -- the schematics -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["base", "controller", "pico", "pyramidos"])
def test_the_schematic_is_current_and_passes_erc(name: str, designed: dict[str, Board]) -> None:
    path = HERE / name / f"{name}.kicad_sch"
    board = designed[name]
    text = path.read_text()
    source = re.search(r'\(comment 1 "generated from (.*) by make board', text)
    assert source is not None
    assert text == schematic.text(board, source[1]), "run `make board`: the schematic is stale"
    found = schematic.read(path)
    assert found.unlabelled == []
    pins = {pin: (net, found.pin_types[pin]) for net, members in found.nets.items()
            for pin in members}  # fmt: skip
    pins.update({pin: (f"unconnected-{pin[0]}", found.pin_types[pin])
                 for pin in found.not_connected})  # fmt: skip
    assert checks.erc_pins(pins) == []
    # every part, with what to order, as the board's
    assert set(found.values) == {p.ref for p in board.parts}
    for part in board.parts:
        assert found.fields[part.ref]["Footprint"] == part.kind.footprint
        assert found.fields[part.ref]["LCSC"] == part.kind.lcsc


def test_the_schematics_erc_finds_a_pin_left_alone(
    tmp_path: Path, designed: dict[str, Board]
) -> None:
    """The check over the drawing is not empty by construction: a label renamed by hand
    leaves two nets of one pin each."""
    text = schematic.text(designed["controller"], "test")
    broken = tmp_path / "broken.kicad_sch"
    broken.write_text(text.replace('(label "EEPROM_WP"', '(label "EEPROM_WQ"', 1))
    found = schematic.read(broken)
    pins = {pin: (net, found.pin_types[pin]) for net, members in found.nets.items()
            for pin in members}  # fmt: skip
    problems = checks.erc_pins(pins)
    assert any("EEPROM_WQ has one pin only" in p for p in problems)


@pytest.mark.parametrize("name", ["base", "controller", "pico", "pyramidos"])
def test_kicad_6s_own_format_reads_the_schematic(name: str) -> None:
    """kiutils (an independent parser of KiCad 6's files) reads each schematic."""
    kiutils = pytest.importorskip("kiutils.schematic", reason="pip install kiutils")
    sch = kiutils.Schematic().from_file(str(HERE / name / f"{name}.kicad_sch"))
    assert sch.version == 20211123
    found = schematic.read(HERE / name / f"{name}.kicad_sch")
    assert len(sch.schematicSymbols) == len(found.values)
    assert {s.libId for s in sch.schematicSymbols} == {s.libId for s in sch.libSymbols}


# -- flush under the wood -----------------------------------------------------------------


def test_only_what_sits_in_a_hole_of_the_wood_faces_it(designed: dict[str, Board]) -> None:
    """The base board lies flat against the wood: on its wood side only the LEDs (each
    inside its light hole), the cells' sensors (in their holes) and the buttons' tactile
    switches (each inside its button's hole)."""
    g = load_geometry()
    base = designed["base"]
    front = [p for p in base.parts if p.side == "F"]
    assert {p.kind.key for p in front} == {"led", "sensor", "button"}
    assert sum(p.kind.key == "sensor" for p in front) == len(g.cells)
    for part in front:
        # the part's copper and body (which its pads span) from its centre
        pads = load_footprint(part.kind.footprint).pads
        reach = max(math.hypot(abs(p.x) + p.width / 2, abs(p.y) + p.height / 2) for p in pads)
        if part.kind.key == "led":
            assert reach <= g.leds.light_hole_diameter / 2, part.ref
        elif part.kind.key == "button":
            assert reach <= g.button_hole_diameter / 2, part.ref


def test_on_the_pico_board_only_sensors_leds_and_buttons_face_the_wood(
    designed: dict[str, Board],
) -> None:
    """The same for the pico board: the WS2812B-2020s in their light holes, a TCRT1000 in
    every cell's pocket, right under its centre, and the buttons' switches; the Pico and
    everything else on the other side. The targets are the Pyramidos module's."""
    g = load_geometry()
    board = designed["pico"]
    front = [p for p in board.parts if p.side == "F"]
    assert {p.kind.key for p in front} == {"ws2812", "tcrt", "button"}
    sensors = [p for p in front if p.kind.key == "tcrt"]
    assert len(sensors) == len(g.cells)
    width, height = board.width, board.height
    x0, y1 = min(p.x for p in g.outline), max(p.y for p in g.outline)
    places = {(round(c.x - x0, 3), round(y1 - c.y, 3)) for c in g.cells.values()}
    assert {(p.x, p.y) for p in sensors} == places
    assert width > 0 and height > 0
    for part in front:
        pads = load_footprint(part.kind.footprint).pads
        reach = max(math.hypot(abs(p.x) + p.width / 2, abs(p.y) + p.height / 2) for p in pads)
        if part.kind.key == "ws2812":
            assert reach <= g.leds.light_hole_diameter / 2, part.ref
        elif part.kind.key == "button":
            assert reach <= g.button_hole_diameter / 2, part.ref
    assert next(p for p in board.parts if p.kind.key == "pico").side == "B"


TCRT1000_BODY = (7.0, 4.0)
"""The TCRT1000's body in mm, length × width (Vishay, TCRT1000 data sheet, document 83752,
Rev. 1.8, p. 1: 7 × 4 × 2.5 mm)."""


def test_each_pocket_of_the_pico_board_takes_its_sensor_and_the_board_its_builds_leds(
    designed: dict[str, Board],
) -> None:
    """The drilling template's pocket (the geometry's ``[sensors.cell-ir] hole_diameter``,
    what tools/board_drawing.py draws) takes the TCRT1000's body across its corners, and
    the sensor's pads; the board's LED is the one the build names (``[builds.pico]
    led_part``: the Pico's firmware drives WS2812-type LEDs), each with its LCSC code."""
    g = load_geometry()
    pocket = g.sensor("pico").hole_diameter
    assert g.sensor("pico", "target") == g.sensor("pico")  # the targets' pockets alike
    assert math.hypot(*TCRT1000_BODY) < pocket, "a round pocket must clear the corners"
    board = designed["pico"]
    tcrt = next(p for p in board.parts if p.kind.key == "tcrt")
    pads = load_footprint(tcrt.kind.footprint).pads
    reach = max(math.hypot(abs(p.x) + p.width / 2, abs(p.y) + p.height / 2) for p in pads)
    assert reach < pocket / 2
    leds = {p.kind.mpn for p in board.parts if p.kind.key == "ws2812"}
    assert leds == {g.build("pico").led_part}

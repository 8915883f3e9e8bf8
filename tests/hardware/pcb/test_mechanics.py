"""The pico board meets the wood and its parts their ratings (hardware/pcb/mechanics.py,
hardware/pcb/ratings.py): pockets with room for every error, screws that hold and never
reach the surface, both USB mouths at the edge, plungers for the buttons, what a USB port
sees at attach, every part within its rating, and the speaker on the pin the firmware
drives as flashed."""

from __future__ import annotations

import csv
import io
import runpy
from dataclasses import replace
from pathlib import Path

import pytest

from hardware.geometry import GeometryError, load_geometry
from hardware.pcb import design, mechanics, module, outputs, pico, ratings
from hardware.pcb.design import Board
from hardware.pcb.inputs import FIRMWARE_CONFIG, Inputs, load_inputs, pico_pins
from hardware.pcb.library import PICO_PINS
from hardware.pcb.module import MODULE_NAMES
from hardware.pcb.parts import CATALOGUE
from hardware.physical import Point

pytestmark = pytest.mark.usefixtures("footprints")


@pytest.fixture(scope="module")
def inputs() -> Inputs:
    return load_inputs()


@pytest.fixture(scope="module")
def board(inputs: Inputs) -> Board:
    assert inputs.pico_spec is not None and inputs.pico_pins is not None
    return pico.pico_board(inputs.pico_spec, inputs.pico_pins, MODULE_NAMES)


def test_every_pocket_clears_its_sensor_with_room_for_every_error() -> None:
    """A round pocket clears the TCRT1000's corners by at least the template's, the
    drill's, the wood's and the part's errors added; it is deeper than the body, and the
    sensor's face (where the optical model puts it) is the board's top plus the body."""
    g = load_geometry()
    build = g.build("pico")
    wood = build.wood_thickness
    for sensor in (g.sensor("pico"), g.sensor("pico", "target")):
        clearance = mechanics.pocket_clearance(sensor.hole_diameter)
        assert clearance >= mechanics.pocket_error() == pytest.approx(1.5)
        assert sensor.hole_depth >= mechanics.BODY[2] + mechanics.DEPTH_ROOM
        # wood is left between the pocket and the hollow above it
        assert sensor.hole_depth < wood - g.hollow.depth
        # the optical model's sensor face: on the board, the body's height up
        assert sensor.elements[0].depth == pytest.approx(wood - mechanics.BODY[2])
        # the pocket's floor is above that face: the body never touches the wood
        assert wood - sensor.hole_depth <= sensor.elements[0].depth - mechanics.DEPTH_ROOM
    # the pocket of before (8.5 mm) left 0.22 mm: less than the errors
    assert mechanics.pocket_clearance(8.5) < mechanics.pocket_error()


def test_the_screws_hold_and_never_reach_the_surface(board: Board) -> None:
    """Every mounting hole's screw leaves at least 1 mm of wood over its tip, holds with
    4.9 mm of thread in the wood, passes the board's hole and is in the BOM, one per hole;
    the same screw under a hollow, or a longer one, would not do."""
    g = load_geometry()
    wood = g.build("pico").wood_thickness
    screw = mechanics.SCREW
    assert screw.length - mechanics.PCB_THICKNESS == pytest.approx(4.9)
    assert screw.pilot < screw.thread < g.mounting_hole_diameter
    for hole in g.mounting_holes:
        assert mechanics.screw_cover(g, wood, hole) >= mechanics.SURFACE_COVER, hole
    # under a cell's hollow, or 8 mm long, it would come through
    assert mechanics.screw_cover(g, wood, g.cells["c3"]) < mechanics.SURFACE_COVER
    longer = replace(screw, length=8.0)
    assert mechanics.screw_cover(g, wood, g.mounting_holes[0], longer) < mechanics.SURFACE_COVER
    # beside a light hole (through the wood), nothing is left
    beside = g.led_position("c3")
    assert mechanics.screw_cover(g, wood, Point(beside.x + 2.5, beside.y)) < 0
    bom = _bom(board)
    assert bom[screw.kind.mpn] == str(len(g.mounting_holes))


def test_both_usb_mouths_reach_the_boards_edge(board: Board) -> None:
    """The Pico's micro-USB and the LED supply's USB-C open at the board's edge (0 to
    1 mm beyond it), so that a plug's overmould clears the board; the Pico as it was
    (1.7 mm further in) does not."""
    mouths = mechanics.usb_mouths(board)
    kinds = {p.ref: p.kind.key for p in board.parts}
    assert sorted(kinds[ref] for ref in mouths) == ["pico", "usbc"]
    for ref, beyond in mouths.items():
        assert 0.0 <= beyond <= 1.0, (ref, beyond)
    the_pico = next(p for p in board.parts if p.kind.key == "pico")
    inside = replace(the_pico, y=the_pico.y - 1.7)
    moved = replace(board, parts=tuple(inside if p is the_pico else p for p in board.parts))
    assert mechanics.usb_mouths(moved)[the_pico.ref] < 0


def test_each_button_has_a_plunger_to_the_surface_in_the_bom(board: Board) -> None:
    """A 6 mm plunger on each button's 1.5 mm switch stands 1 mm above 6.5 mm of wood,
    narrower than its hole; the BOM orders one per button and the cost counts them."""
    g = load_geometry()
    wood = g.build("pico").wood_thickness
    length = mechanics.plunger_length(wood)
    assert length == pytest.approx(6.0)
    assert mechanics.SWITCH_HEIGHT + length - wood == pytest.approx(mechanics.PLUNGER_PROUD)
    buttons = [p for p in board.parts if p.kind.key == "button"]
    assert len(buttons) == len(g.buttons) == 3
    assert _bom(board)[mechanics.PLUNGER.mpn] == str(len(buttons))
    on_board = round(sum(p.kind.price for p in board.parts), 2)
    assert outputs.parts_cost(board) == pytest.approx(
        on_board + 3 * mechanics.PLUNGER.price + 5 * mechanics.SCREW.kind.price, abs=0.011
    )


def test_a_usb_port_sees_at_most_10_uf_at_attach(inputs: Inputs, board: Board) -> None:
    """Every capacitor on the LED rail, the LEDs' 100 nF included (the Pyramidos module's
    too, on the pico board's rail), within USB's 10 µF at attach on both base boards; a
    1000 µF as before would not be."""
    base = design.base_board(inputs.spec, inputs.pins)
    assert inputs.module_spec is not None and inputs.pico_pins is not None
    pyramidos = module.module_board(inputs.module_spec, inputs.pico_pins, load_geometry())
    # the pico board's 32 LEDs and the module's five, each with its 100 nF
    whole = mechanics.attach_capacitance(board, pyramidos)
    assert 0 < mechanics.attach_capacitance(base) <= mechanics.ATTACH_MAX_UF
    assert 0 < whole <= mechanics.ATTACH_MAX_UF
    assert whole == pytest.approx(37 * 0.1 + 0.1 + 2 * 1.0)
    cap = next(p for p in board.parts if p.role == "capacitor at the supply")
    bulk = replace(cap, kind=CATALOGUE["c1000u"])
    before = replace(board, parts=tuple(bulk if p is cap else p for p in board.parts))
    assert mechanics.attach_capacitance(before) > mechanics.ATTACH_MAX_UF


def test_every_part_is_within_its_rating_held_on_without_end(board: Board) -> None:
    """The emitters, their resistors and switches, and the speaker's driver within their
    ratings at 5.25 V with every switch left on; the speaker's resistor of before (47 Ω in
    0603) would take 0.46 W of its 0.1 W."""
    found = ratings.ratings(board)
    assert all(r.within for r in found), [str(r) for r in found if not r.within]
    refs = {r.ref for r in found}
    for key in ("tcrt", "nfet", "npn", "flyback"):
        assert {p.ref for p in board.parts if p.kind.key == key} <= refs, key
    series = next(p for p in board.parts if p.role == "sounder series resistor")
    (watts,) = [r for r in found if r.ref == series.ref and r.unit == "W"]
    assert watts.value == pytest.approx(5.25**2 * 150 / 156**2)
    # the transistor saturates: its forced gain well under its least hFE (30 at 100 mA)
    assert ratings.base_overdrive(board) < 20
    old = replace(series, kind=CATALOGUE["R47"])
    before = replace(board, parts=tuple(old if p is series else p for p in board.parts))
    (too_much,) = [r for r in ratings.ratings(before) if r.ref == series.ref and r.unit == "W"]
    assert not too_much.within and too_much.value == pytest.approx(0.46, abs=0.01)


def test_the_speaker_is_on_the_pin_the_flashed_firmware_drives(
    board: Board, tmp_path: Path
) -> None:
    """firmware/config.py as shipped (what `pyramid flash` copies with no options) is the
    printed pico board's: reflective sensing and BUZZER_PIN on the GPIO the speaker's
    driver is wired to; a config without a buzzer pin makes no board."""
    shipped = runpy.run_path(str(FIRMWARE_CONFIG))
    assert shipped["SENSING"] == "reflective"
    gpio = shipped["BUZZER_PIN"]
    assert isinstance(gpio, int)
    base = next(p for p in board.parts if p.role == "sounder switch base resistor")
    assert base.nets["1"] == pico.gpio_net(gpio)
    the_pico = next(p for p in board.parts if p.kind.key == "pico")
    (pad,) = [pad for pad, name in PICO_PINS.items() if name == f"GP{gpio}"]
    assert the_pico.nets[pad] == base.nets["1"]
    silent = tmp_path / "config.py"
    silent.write_text(
        FIRMWARE_CONFIG.read_text().replace(f"BUZZER_PIN = {gpio}\n", "BUZZER_PIN = None\n")
    )
    with pytest.raises(ValueError, match="BUZZER_PIN is None"):
        pico_pins(silent)


def _bom(board: Board) -> dict[str, str]:
    """MPN → quantity in the board's BOM."""
    rows = csv.DictReader(io.StringIO(outputs.bom_csv(board)))
    return {row["MPN"]: row["Quantity"] for row in rows}


def test_the_pilot_holes_take_the_thread_and_stop_short_of_the_surface() -> None:
    """The drilling template's pilot hole is deeper than the thread reaches into the wood
    and leaves the surface's cover."""
    g = load_geometry()
    wood = g.build("pico").wood_thickness
    screw = mechanics.SCREW
    assert screw.length - mechanics.PCB_THICKNESS <= screw.pilot_depth
    assert screw.pilot_depth <= wood - mechanics.SURFACE_COVER


def test_only_the_usb_c_sends_pins_through_to_the_wood(board: Board) -> None:
    """Of the parts on the side away from the wood, only the USB-C has pins through the
    board (its four shell legs, cut flush before mounting: hardware/README.md); the
    speaker's leads land on a surface-mount header."""
    through = {
        p.kind.key
        for p in board.parts
        if p.side == "B" and any(pad.kind != "smd" for pad in p.footprint.pads)
    }
    assert through == {"usbc"}
    speaker = next(p for p in board.parts if p.role == "sounder leads")
    assert all(pad.kind == "smd" for pad in speaker.footprint.pads)


def test_the_pyramidos_module_looks_up_each_target_hole_and_covers_no_other(
    inputs: Inputs,
) -> None:
    """On the module's side facing the level only the TCRT1000s, each under its target
    hole's centre, and the LEDs, each inside its target's hole beside the sensor's body
    (or, the top's, under its light hole between the far balls); the module stays
    ``finger_room`` clear of every hole around the site."""
    g = load_geometry()
    site = g.pyramidos
    assert inputs.module_spec is not None and inputs.pico_pins is not None
    board = module.module_board(inputs.module_spec, inputs.pico_pins, g)
    half = site.module_size / 2
    assert (board.width, board.height) == (site.module_size, site.module_size)

    def at(part: design.Placed) -> Point:
        return Point(part.x - half, half - part.y)

    front = [p for p in board.parts if p.side == "F"]
    assert {p.kind.key for p in front} == {"tcrt", "ws2812"}
    sensors = {p.role.split()[-1]: at(p) for p in front if p.kind.key == "tcrt"}
    assert sensors == site.targets
    for led in (p for p in front if p.kind.key == "ws2812"):
        name = led.role.split()[-1]
        if name == "top":
            assert all(at(led).distance(c) > site.ball_diameter / 2 for c in site.targets.values())
            continue
        reach = mechanics.footprint_reaches(led.kind)
        centre = site.targets[name]
        assert at(led).distance(centre) + reach <= site.hole_diameter / 2
        assert at(led).distance(centre) - reach > mechanics.BODY[1] / 2  # clear of the body
    for hole in site.neighbour_holes:
        dx, dy = max(abs(hole.x) - half, 0.0), max(abs(hole.y) - half, 0.0)
        assert (dx**2 + dy**2) ** 0.5 - site.hole_diameter / 2 >= site.finger_room


def test_the_hats_speaker_driver_is_within_its_rating_too(inputs: Inputs) -> None:
    """The matrix build's HAT drives the same speaker from the Pi's 5 V: its series
    resistor (150 Ω, 1206) takes 0.17 W held on at 5.25 V, of 0.25 W; its 47 Ω in 0603
    of before took 0.46 W of 0.1 W (0.36 W at 5 V)."""
    hat = design.controller_board(inputs.pins)
    found = ratings.ratings(hat)
    assert found and all(r.within for r in found), [str(r) for r in found if not r.within]
    series = next(p for p in hat.parts if p.role == "sounder series resistor")
    assert series.kind.key == "R150_1206"
    old = replace(series, kind=CATALOGUE["R47"])
    before = replace(hat, parts=tuple(old if p is series else p for p in hat.parts))
    assert not all(r.within for r in ratings.ratings(before))


def test_the_pyramidos_module_stands_its_sensors_near_their_peak_and_its_screws_inside() -> None:
    """The module stands on the stock spacer nearest what puts each TCRT1000's face 1 mm
    under a resting ball, which leaves the face within the sensor's 0.2–4 mm; the longest
    stock screw keeps its tip 1 mm under the top face; a thinner level leaves no thread
    and says so by its key."""
    site = load_geometry().pyramidos
    standoff = mechanics.site_standoff(site, 1.0)
    assert standoff == pytest.approx(site.rest_depth - 4.0 + 1.0 + 2.5)
    spacer, gap = mechanics.site_spacer(site, 1.0, (0.2, 4.0))
    assert spacer == 3.0
    assert gap == pytest.approx(1.0 - (standoff - 3.0), abs=0.01)
    assert 0.2 <= gap <= 4.0
    screw, bite = mechanics.site_screw(site, spacer)
    assert screw == 6.5 and bite == pytest.approx(6.5 - 1.6 - 3.0)
    assert 1.6 + spacer + 4.0 - screw >= 1.0  # the tip's cover under the top face
    with pytest.raises(GeometryError) as caught:
        mechanics.site_screw(replace(site, board_thickness=1.5), spacer)
    assert caught.value.key == "pyramidos.board_thickness"

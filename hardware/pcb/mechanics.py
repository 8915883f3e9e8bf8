"""How the pico board meets the wood: pockets, screws, plungers, the USB mouths, attach.

The board lies flat under the wood, screwed to it, with a TCRT1000 standing in a pocket
under every cell and target. What may go wrong is computed here from stated tolerances,
and ``tests/hardware/pcb/test_mechanics.py`` holds the geometry file and the board to it:

- **Pockets.** Each pocket is drilled from a printed 1:1 template into solid wood; the
  sensor sits where the board's copper puts it. Between the two lie the template's scale
  error, the drill's wander, the wood's seasonal movement across the board and the leaded
  part's play in its holes, all taken at their worst and added (:func:`pocket_error`).
  A round pocket clears the 7 × 4 mm body's corners by :func:`pocket_clearance`, which
  must be at least that. Its depth clears the 2.5 mm body by at least
  :data:`DEPTH_ROOM`, so that the board, not a sensor, rests on the wood.
- **Screws.** Pan-head tapping screws into pilot holes from below (:data:`SCREW`): the
  thread's tip stays at least :data:`SURFACE_COVER` under the playing surface, or under
  the bottom of any hollow, light hole or button hole within the screw's reach.
- **Plungers.** A button's 1.5 mm switch sits at the bottom of its hole in the wood: a
  dowel plunger (:func:`plunger_length`) brings it 1 mm above the surface.
- **USB.** Both USB mouths (the LED supply's USB-C and the Pico's micro-USB) reach the
  board's edge, so that a plug's overmould clears the board and the wood.
- **Attach.** A USB port may see at most 10 µF when a device is plugged in (USB 2.0
  specification, §7.2.4.1: 10 µF at most across VBUS); :func:`attach_capacitance` sums
  every capacitor on the LED rail (VBUS and +5V, the PTC between them conducts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hardware.geometry import Geometry, GeometryError, PyramidosSite
from hardware.pcb.design import Board, Placed
from hardware.pcb.footprints import load_footprint
from hardware.pcb.parts import PartKind
from hardware.physical import Point

__all__ = [
    "ATTACH_MAX_UF",
    "BODY",
    "DEPTH_ROOM",
    "PCB_THICKNESS",
    "PLUNGER",
    "SCREW",
    "SITE_SCREWS",
    "STANDOFFS",
    "SURFACE_COVER",
    "Screw",
    "attach_capacitance",
    "footprint_reaches",
    "loose_parts",
    "plunger_length",
    "pocket_clearance",
    "pocket_error",
    "screw_cover",
    "site_screw",
    "site_spacer",
    "site_standoff",
    "usb_mouths",
]

BODY = (7.0, 4.0, 2.5)
"""mm: the TCRT1000's body, length × width × height (Vishay, doc. 83752 Rev. 1.8, p. 1)."""
TEMPLATE_ERROR = 0.6
"""mm: a 1:1 template printed on paper is off by 0.25–0.6 mm across the board (a
printer's scale and the paper's stretch); the worst is taken."""
DRILL_WANDER = 0.3
"""mm: a Forstner bit started on a centre punched through the template, in a drill stand
(a design assumption: check the first pocket against the template)."""
WOOD_MOVEMENT = 0.4
"""mm: solid beech moves ±0.4 mm across a 175 mm board between a dry winter and a humid
summer (a design assumption for quarter-sawn to flat-sawn beech at 6–12 % moisture)."""
PART_PLAY = 0.2
"""mm: a leaded TCRT1000 offset or leaning in its 1.0 mm holes when soldered."""
DEPTH_ROOM = 0.5
"""mm: a pocket deeper than the body by at least this (a drill stop's error, the body's
tolerance and a lead soldered a little proud)."""
PCB_THICKNESS = 1.6
"""mm: the board as ordered (KiCad 6's default and JLCPCB's)."""
SURFACE_COVER = 1.0
"""mm of wood left over a screw's tip at least, so that it never shows or lifts the
surface."""
SWITCH_HEIGHT = 1.5
"""mm: the XKB TS-1187A tactile switch's height (its data sheet: 5.1 × 5.1 × 1.5 mm)."""
PLUNGER_PROUD = 1.0
"""mm: a plunger stands this far above the playing surface, for a fingertip."""
ATTACH_MAX_UF = 10.0
"""µF: the most a device may show a USB port at attach (USB 2.0 specification,
§7.2.4.1: 10 µF in parallel with 44 Ω at a cable's downstream end)."""


@dataclass(frozen=True)
class Screw:
    thread: float
    """mm: the thread's outer diameter."""
    length: float
    """mm: under the head."""
    pilot: float
    """mm: the pilot hole's diameter in beech."""
    pilot_depth: float
    """mm: the pilot hole's depth (a drill stop): beyond the thread's reach into the wood,
    short of the surface."""
    kind: PartKind


SCREW = Screw(
    2.9, 6.5, 2.0, 5.0,
    PartKind(
        "screw", "", "ST2.9x6.5", "", {}, "pan-head tapping screw ST2.9 × 6.5 mm, "
        "ISO 7049 (DIN 7981 C), stainless A2: holds the board to the wood from below, "
        "into a Ø2.0 mm pilot hole", "any", "ISO 7049 ST2.9x6.5 A2", "", "hand", 0.03,
        "estimate (a box of 100 for about $3)",
    ),
)  # fmt: skip
"""The screws that hold the pico board to its 6.5 mm of wood: through the board's Ø3.2 mm
holes, 4.9 mm into the wood."""
STANDOFFS = (2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0)
"""mm: the stock lengths of M3 nylon spacers (round, Ø3.2 bore) the Pyramidos module
stands on under the site (``[pyramidos]`` of the geometry file)."""
SITE_SCREWS = (6.5, 9.5, 13.0, 16.0, 19.0, 22.0)
"""mm: ISO 7049 ST2.9 pan-head tapping screws' stock lengths, for the module."""


def site_standoff(site: PyramidosSite, gap: float) -> float:
    """mm from the level's underside to the module's face for a TCRT1000 (:data:`BODY`)
    whose face lies ``gap`` under a resting ball (0: flat on the wood)."""
    return max(0.0, site.rest_depth - site.board_thickness + gap + BODY[2])


def site_spacer(site: PyramidosSite, gap: float, span: tuple[float, float]) -> tuple[float, float]:
    """(stock spacer length, the sensor's resulting gap to the ball): the stock length
    nearest :func:`site_standoff` that leaves the gap within ``span``; 0 when none is
    needed (the module flat against the level)."""
    want = site_standoff(site, gap)
    if want == 0.0:
        return 0.0, site.board_thickness - site.rest_depth - BODY[2]
    fits = [s for s in STANDOFFS if span[0] <= gap - (want - s) <= span[1]]
    if not fits:
        within = f"{span[0]:g}–{span[1]:g} mm under the balls"
        raise GeometryError("pyramidos", f"no stock spacer near {want:.1f} mm: {within}")
    best = min(fits, key=lambda s: abs(want - s))
    return best, round(gap - (want - best), 2)


def site_screw(site: PyramidosSite, spacer: float) -> tuple[float, float]:
    """(ISO 7049 ST2.9 length, its thread's bite into the level): the longest stock screw
    through the module (:data:`PCB_THICKNESS`) and its ``spacer`` whose tip stays
    :data:`SURFACE_COVER` under the level's top face."""
    room = PCB_THICKNESS + spacer + site.board_thickness - SURFACE_COVER
    fits = [s for s in SITE_SCREWS if s <= room]
    if not fits or fits[-1] - PCB_THICKNESS - spacer < 1.5:
        little = f"{site.board_thickness:g} mm leaves a screw under 1.5 mm of thread"
        raise GeometryError("pyramidos.board_thickness", little)
    return fits[-1], round(fits[-1] - PCB_THICKNESS - spacer, 2)


PLUNGER = PartKind(
    "plunger", "", "plunger", "", {}, "button plunger: a Ø10 mm beech dowel cut to length "
    "(plunger_length), its ends sanded round; it stands on the switch in the Ø12 mm hole",
    "any", "beech dowel Ø10 mm", "", "hand", 0.02, "estimate (a 1 m dowel for about $2)",
)  # fmt: skip
"""What brings a button's switch to the surface."""


def pocket_error() -> float:
    """mm: the most a pocket's centre may lie off its sensor's, every error at its worst."""
    return TEMPLATE_ERROR + DRILL_WANDER + WOOD_MOVEMENT + PART_PLAY


def pocket_clearance(diameter: float) -> float:
    """mm: how far a round pocket of ``diameter`` clears the body's corners, centred."""
    return (diameter - math.hypot(BODY[0], BODY[1])) / 2


def plunger_length(wood: float) -> float:
    """mm: from the switch's top to :data:`PLUNGER_PROUD` above the surface."""
    return round(wood - SWITCH_HEIGHT + PLUNGER_PROUD, 2)


def screw_cover(geo: Geometry, wood: float, at: Point, screw: Screw = SCREW) -> float:
    """mm of wood over the screw's tip at ``at`` (the geometry's frame): the wood less the
    thread's reach, less the depth of any hollow, light hole or button hole whose edge is
    within the thread's radius (a light hole or button hole goes through: nothing left)."""
    reach = screw.length - PCB_THICKNESS
    cover = wood - reach
    r = screw.thread / 2
    for name in (*geo.cells, *geo.targets, "top"):
        centre = geo.place(name)
        if math.dist((at.x, at.y), (centre.x, centre.y)) < geo.hollow.diameter / 2 + r:
            cover = min(cover, wood - geo.hollow.depth - reach)
    through = [(geo.led_position(n), geo.leds.light_hole_diameter) for n in geo.led_names]
    through += [(c, geo.button_hole_diameter) for c in geo.buttons.values()]
    for centre, diameter in through:
        if math.dist((at.x, at.y), (centre.x, centre.y)) < diameter / 2 + r:
            cover = -reach
    return cover


def usb_mouths(board: Board) -> dict[str, float]:
    """Each USB connector's mouth: how far it stands beyond the board's edge (mm;
    negative: inside). The Pico's micro-USB is its footprint's socket outline (F.Fab)
    at its far end; the USB-C's is its footprint's body outline (F.Fab) on the side away
    from its pads."""
    out: dict[str, float] = {}
    for part in board.parts:
        if part.kind.key == "pico":
            out[part.ref] = _beyond(board, part, [(0.0, -26.8)])
        elif part.kind.key == "usbc":
            out[part.ref] = _beyond(board, part, [(-4.47, 3.65), (4.47, 3.65)])
    return out


def _beyond(board: Board, part: Placed, points: list[tuple[float, float]]) -> float:
    edges = []
    for x, y in points:
        bx, by = part.local(x, y)
        edges.append(max(-bx, -by, bx - board.width, by - board.height))
    return round(min(edges), 3)


def attach_capacitance(board: Board, *fed: Board) -> float:
    """µF on the LED rail (VBUS and +5V) that a USB port charges at attach, with that of
    the boards it ``fed`` through a cable (the Pyramidos module's)."""
    units = {"nF": 1e-3, "uF": 1.0, "pF": 1e-6}
    total = 0.0
    for part in (*board.parts, *(p for b in fed for p in b.parts)):
        if part.kind.prefix != "C" or not {"VBUS", "+5V"} & set(part.nets.values()):
            continue
        value = part.kind.value
        total += float(value[:-2]) * units[value[-2:]]
    return round(total, 3)


def loose_parts(board_buttons: int, holes: int) -> tuple[tuple[PartKind, int, str], ...]:
    """The pico board's loose parts: a plunger per button, a screw per mounting hole."""
    return (
        (PLUNGER, board_buttons, "a plunger on each button's switch"),
        (SCREW.kind, holes, "the board to the wood"),
    )


def footprint_reaches(kind: PartKind) -> float:
    """mm: how far a part's pads reach from its origin (for a pocket it stands in)."""
    pads = load_footprint(kind.footprint).pads
    return max(math.hypot(abs(p.x) + p.width / 2, abs(p.y) + p.height / 2) for p in pads)

"""What the boards are made from: the geometry file and the shipped config, read, never copied.

``hardware/geometry.toml`` (through :mod:`hardware.geometry`) says where every
cell, target, button, seat, LED and mounting hole is and which sensor each place gets;
``configs/matrix.toml`` (through :mod:`controller.config`) says which GPIO each matrix row
and column is on, which channel each cell is, the LEDs' order, and the SPI and buzzer
pins. Both loaders use only the standard library, so this runs in the venv and under
KiCad's Python alike.

The geometry's frame is seen from above with y away from player 1; the PCB lies under
the wood with its parts facing up, so KiCad's top view is the same picture with y
turned downwards, origin at the outline's far-left corner.
"""

from __future__ import annotations

import runpy
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from controller.config import load_config
from controller.hardware.wiring import DEFAULT_BUZZER_PIN
from hardware.geometry import Geometry, GeometryError, load_geometry
from hardware.pcb.design import BaseSpec, Hole, PinMap, SensorPart, Site
from hardware.pcb.footprints import PROJECT_LIBRARY
from hardware.pcb.library import TCRT1000, reed_upright
from hardware.pcb.pico import PicoPins
from hardware.physical import Ir, Point, Sensor

__all__ = [
    "BUILD",
    "CONFIG",
    "FIRMWARE_CONFIG",
    "IR_SOCKET_OFFSET",
    "PICO_BUILD",
    "PICO_HOST_CONFIG",
    "Inputs",
    "base_spec",
    "load_inputs",
    "module_spec",
    "pico_pins",
    "pico_spec",
    "pin_map",
]

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "matrix.toml"
"""The printed boards are the matrix build on a Pi: its shipped config is their pin map."""
BUILD = "matrix"
"""The geometry file's build the base board is for."""
IR_SOCKET_OFFSET = Point(0.0, -9.0)
"""An IR module's socket sits this far from its target or the top (towards player 1),
beside the hole the module looks through."""


PICO_BUILD = "pico"
"""The geometry file's build the pico board is for (the chosen one)."""
FIRMWARE_CONFIG = ROOT / "firmware" / "config.py"
"""The Pico's pin map: which GPIO each emitter group, select line, ADC, switch, the LED
data and the buzzer are on, and each sensor's multiplexer and input."""
PICO_HOST_CONFIG = ROOT / "configs" / "serial.toml"
"""The computer's config for the Pico: which channel is which place, the LEDs' order."""


@dataclass(frozen=True)
class Inputs:
    spec: BaseSpec
    pins: PinMap
    pico_spec: BaseSpec | None = field(default=None)
    pico_pins: PicoPins | None = field(default=None)
    module_spec: BaseSpec | None = field(default=None)
    """The Pyramidos module's places (the pico build's targets and top)."""


def load_inputs(geometry: Path | None = None, config: Path = CONFIG) -> Inputs:
    geo = load_geometry(geometry)
    return Inputs(base_spec(geo), pin_map(config), pico_spec(geo), pico_pins(), module_spec(geo))


def pico_pins(firmware: Path = FIRMWARE_CONFIG, host: Path = PICO_HOST_CONFIG) -> PicoPins:
    """The firmware's pin map (``firmware/config.py``, run as the plain module it is) with
    the host config's channel names and LED order."""
    fw = runpy.run_path(str(firmware))
    cmap = load_config(host).board.channel_map
    name_of = {channel: name for name, channel in cmap.channel_by_name.items()}
    sensors = {}
    for channel, mux, channel_in, group in fw["SENSORS"]:
        if channel not in name_of:
            raise ValueError(f"{_relative(firmware)}: sensor channel {channel} has no name")
        sensors[name_of[channel]] = (int(mux), int(channel_in), int(group))
    buzzer = fw.get("BUZZER_PIN")
    if buzzer is None:
        raise ValueError(
            f"{_relative(firmware)}: BUZZER_PIN is None, but the pico board wires its "
            "speaker's driver to a GPIO: set it (15, as hardware/README.md says), or the "
            "board is silent as flashed"
        )
    return PicoPins(
        emitters=tuple(int(p) for p in fw["EMITTER_PINS"]),
        select=tuple(int(p) for p in fw["MUX_SELECT_PINS"]),
        adc=tuple(int(p) for p in fw["MUX_ADC_PINS"]),
        sensors=sensors,
        switches={name_of[int(ch)]: int(gpio) for ch, gpio in fw["SWITCHES"]},
        led_gpio=int(fw["LED_PIN"]),
        buzzer_gpio=int(buzzer),
        leds=dict(cmap.led_by_name),
        source=f"{_relative(firmware)}, {_relative(host)}",
        cc_inputs=tuple((int(m), int(i)) for m, i in fw.get("USB_CC_INPUTS", ())),
    )


def pico_spec(geo: Geometry) -> BaseSpec:
    """The pico board's places: a reflective sensor at every cell (the pico build's), the
    buttons, the LEDs; the base board's outline and mounting holes. The targets and the
    top are the Pyramidos module's (:func:`module_spec`)."""
    xs = [p.x for p in geo.outline]
    ys = [p.y for p in geo.outline]
    x0, y1 = min(xs), max(ys)

    def board(p: Point) -> tuple[float, float]:
        return (round(p.x - x0, 3), round(y1 - p.y, 3))

    build = geo.build(PICO_BUILD)
    cell = geo.sensor(PICO_BUILD, "cell")
    if cell.kind != "reflective" or cell.part != "TCRT1000":
        raise GeometryError(
            f"builds.{PICO_BUILD}.cell_sensor",
            f"the pico board carries Vishay TCRT1000s, not {cell.name!r}",
        )
    offset = cell.offset or Point(0.0, 0.0)
    sites = [
        Site(name, "reflective", board(centre + offset), board(geo.led_position(name)))
        for name, centre in geo.cells.items()
    ]
    for name in ("target", "top"):
        sensor = build.sensor(name)
        if sensor is not None and (sensor.kind != "reflective" or sensor.part != cell.part):
            raise GeometryError(
                f"builds.{PICO_BUILD}.{name}_sensor",
                f"the Pyramidos module reads {name}s as the cells, not by {sensor.name!r}",
            )  # fmt: skip
    sites += _panel_sites(geo, board)
    return BaseSpec(
        width=round(max(xs) - x0, 3),
        height=round(y1 - min(ys), 3),
        sites=tuple(sites),
        holes=tuple(Hole(*board(h), geo.mounting_hole_diameter) for h in geo.mounting_holes),
        sensor=_tcrt1000(cell),
    )


def _tcrt1000(cell: Sensor) -> SensorPart:
    """The reflective sensor the pico build's boards carry (the geometry's cell sensor)."""
    footprint = f"{PROJECT_LIBRARY}:{TCRT1000.name}"
    return SensorPart(
        footprint, f"reflective sensor {cell.part}", cell.manufacturer, cell.part, TCRT1000.text
    )


MODULE_LED_OFFSET = 5.5
"""mm from a target's centre to its LED on the module, outwards (towards the module's
near or far edge): inside the target's hole beside the sensor, lighting the ball."""
TOP_LED_AT = Point(0.0, 12.5)
"""The top's LED on the module (the site's frame), under a Ø4 light hole through the
level: between the far base balls, under the top ball."""
TOP_LEAD_AT = Point(0.0, -12.0)
"""The top's sensor's lead header on the module's back (the site's frame)."""


def module_spec(geo: Geometry) -> BaseSpec:
    """The Pyramidos module's places, in its own board frame (its square's far-left
    corner at the origin, y down): a TCRT1000 under each target hole with its LED beside
    it in the hole, the top's sensor's lead header and the top's LED, and the four
    mounting holes halfway between neighbouring targets."""
    site = geo.pyramidos
    half = site.module_size / 2

    def board(p: Point) -> tuple[float, float]:
        return (round(p.x + half, 3), round(half - p.y, 3))

    cell = geo.sensor(PICO_BUILD, "cell")
    offset = cell.offset or Point(0.0, 0.0)
    sites = []
    for name, centre in site.targets.items():
        led = centre + Point(0.0, MODULE_LED_OFFSET if centre.y > 0 else -MODULE_LED_OFFSET)
        sites.append(Site(name, "reflective", board(centre + offset), board(led)))
    sites.append(Site("top", "reflective", board(TOP_LEAD_AT), board(TOP_LED_AT)))
    h = site.hole_spacing / 2
    holes = [Point(0.0, -h - 6.0), Point(h + 6.0, 0.0), Point(0.0, h + 6.0), Point(-h - 6.0, 0.0)]
    return BaseSpec(
        width=site.module_size,
        height=site.module_size,
        sites=tuple(sites),
        holes=tuple(Hole(*board(p), geo.mounting_hole_diameter) for p in holes),
        sensor=_tcrt1000(cell),
    )


def pin_map(path: Path = CONFIG) -> PinMap:
    cfg = load_config(path)
    gpio = cfg.board.gpio
    if gpio.topology != "matrix" or cfg.board.adapter != "gpio":
        raise ValueError(f"{path}: the printed boards are a gpio matrix build")
    spi = cfg.leds.spi
    if spi is None:
        raise ValueError(f"{path}: [leds] spi: the HAT drives the LEDs over SPI0")
    cmap = cfg.board.channel_map
    return PinMap(
        rows=gpio.rows,
        cols=gpio.cols,
        clock_gpio=spi.clock,
        data_gpio=spi.mosi,
        buzzer_gpio=cfg.buzzer.pin if cfg.buzzer is not None else DEFAULT_BUZZER_PIN,
        channels=dict(cmap.channel_by_name),
        leds=dict(cmap.led_by_name),
        source=_relative(path),
    )


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def _named(group: str, name: str) -> str:
    """The config's name of a button or seat (``button:undo``, ``seat:0``)."""
    return name if name.startswith(f"{group}:") else f"{group}:{name}"


Frame = Callable[[Point], tuple[float, float]]
"""The geometry's millimetres (y up, its own origin) to the board's (KiCad: y down, from
the outline's top left corner)."""


def _ir_site(geo: Geometry, board: Frame, name: str, sensor: Sensor) -> Site:
    """An IR module's place: its socket beside the target (or the top); a module looking
    up from under its target sends its lead down through a hole in the board."""
    below = isinstance(sensor, Ir) and sensor.height < 0 and sensor.hole_diameter > 0
    hole = Hole(*board(geo.place(name)), sensor.hole_diameter) if below else None
    at = board(geo.place(name) + IR_SOCKET_OFFSET)
    return Site(name, "ir", at, board(geo.led_position(name)), hole)


def _panel_sites(geo: Geometry, board: Frame) -> list[Site]:
    """The buttons (each switch in its hole, under its LED) and the seats (an LED only)."""
    sites = [
        Site(_named("button", name), "button", board(centre), board(geo.led_position(name)))
        for name, centre in geo.buttons.items()
    ]
    sites += [Site(_named("seat", n), "none", None, board(geo.led_position(n))) for n in geo.seats]
    return sites


def base_spec(geo: Geometry) -> BaseSpec:
    xs = [p.x for p in geo.outline]
    ys = [p.y for p in geo.outline]
    x0, y1 = min(xs), max(ys)

    def board(p: Point) -> tuple[float, float]:
        return (round(p.x - x0, 3), round(y1 - p.y, 3))

    cell = geo.sensor(BUILD, "cell")
    if cell.kind != "reed" or cell.orientation != "upright":
        raise GeometryError(
            f"builds.{BUILD}.cell_sensor",
            f"the printed base board carries upright reed switches, not {cell.name!r}",
        )
    offset = cell.offset or Point(0.0, 0.0)
    # The bent upper lead's pad sits where the geometry's lead budget puts it; the glass
    # drawn 0.25 mm short of it on either side, as before the budget (issue 29, item 2).
    pitch = cell.lead_offset
    footprint = reed_upright(pitch, max(2 * pitch - 0.5, 1.0))
    sites: list[Site] = []
    for name, centre in geo.cells.items():
        sites.append(Site(name, "reed", board(centre + offset), board(geo.led_position(name))))
    build = geo.build(BUILD)
    for name in (*geo.targets, "top"):
        sensor = build.sensor("top" if name == "top" else "target")
        if sensor is None:
            continue
        if sensor.kind != "ir":
            raise GeometryError(
                f"builds.{BUILD}",
                f"the printed base board senses {name} by IR, not {sensor.name!r}",
            )
        sites.append(_ir_site(geo, board, name, sensor))
    sites += _panel_sites(geo, board)
    return BaseSpec(
        width=round(max(xs) - x0, 3),
        height=round(y1 - min(ys), 3),
        sites=tuple(sites),
        holes=tuple(Hole(*board(h), geo.mounting_hole_diameter) for h in geo.mounting_holes),
        sensor=SensorPart(
            f"{PROJECT_LIBRARY}:{footprint.name}",
            f"reed switch {cell.part}, standing upright, pull-in "
            f"{cell.pull_in[0]:g}–{cell.pull_in[1]:g} AT"
            if cell.pull_in
            else cell.part,
            cell.manufacturer,
            cell.part,
            footprint.text,
        ),
    )

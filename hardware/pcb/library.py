"""The project's own footprint library, ``hardware/pcb/pyramid.pretty``, written by code.

KiCad 6's libraries have no socket laid out as a Raspberry Pi HAT needs it and no reed
switch standing in a blind hole, so these footprints are made here from the figures
below and written by ``make board`` (the test of the committed outputs sees them change).

- ``RaspberryPi_GPIO_Socket_2x20``: the 2 × 20 socket that takes the Pi's header, as seen
  from above the HAT: pin 1 at the origin on the inner row, pin 2 beside it towards the
  board's edge (−y), odd pins along +x (Raspberry Pi's "Add-on boards and HATs"
  mechanical drawing: header centred between the mounting holes, 3.5 mm from the edge).
- ``Reed_Upright_P{pitch}``: a reed switch standing on lead 1 (the glass over it, up into
  its hole in the wood), lead 2 bent down beside the glass ``pitch`` mm away.
- ``SW_Push_1P1T_XKB_TS-1187A``: the 5.1 × 5.1 mm SMD tactile switch under each button's
  dowel (KiCad 6's library has none; its land pattern as KiCad 7's library and XKB's
  TS-1187A drawing give it: four 1.0 × 0.75 mm pads at x ±3.0, y ±1.875, pads 1 and 2
  each a pair joined inside the switch).
- ``Vishay_TCRT1000``: the reflective sensor standing on the side facing the wood, its
  7 × 4 mm body (Vishay, TCRT1000 data sheet, doc. 83752, p. 1: 7 × 4 × 2.5 mm) over four
  through-hole pads on a 2.54 mm square, emitter (A, K) on −x, phototransistor (E, C) on
  +x, in the data sheet's "A C E C" order (p. 1, pinning) going round. The lead
  positions are this project's reading of the data sheet's dimension drawing: compare
  them with a part in hand before ordering (hardware/README.md says so).
- ``RaspberryPi_Pico_SMD``: a Raspberry Pi Pico soldered flat by its castellated edge
  (Raspberry Pi Ltd, Raspberry Pi Pico Datasheet, "Mechanical specification": 21 × 51
  mm, the 2 × 20 edge pads 2.54 mm apart and 17.78 mm across), seen from the Pico's top,
  pin 1 at the micro-USB end; on a board's back KiCad mirrors it as the module hangs
  there, its top outwards.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "PICO",
    "PICO_PINS",
    "PI_HEADER",
    "PI_SOCKET",
    "TACTILE",
    "TCRT1000",
    "LibraryFootprint",
    "reed_upright",
]

PI_HEADER: dict[str, str] = {
    "1": "3V3", "2": "5V", "3": "GPIO2", "4": "5V", "5": "GPIO3", "6": "GND", "7": "GPIO4",
    "8": "GPIO14", "9": "GND", "10": "GPIO15", "11": "GPIO17", "12": "GPIO18", "13": "GPIO27",
    "14": "GND", "15": "GPIO22", "16": "GPIO23", "17": "3V3", "18": "GPIO24", "19": "GPIO10",
    "20": "GND", "21": "GPIO9", "22": "GPIO25", "23": "GPIO11", "24": "GPIO8", "25": "GND",
    "26": "GPIO7", "27": "GPIO0", "28": "GPIO1", "29": "GPIO5", "30": "GND", "31": "GPIO6",
    "32": "GPIO12", "33": "GPIO13", "34": "GND", "35": "GPIO19", "36": "GPIO16",
    "37": "GPIO26", "38": "GPIO20", "39": "GND", "40": "GPIO21",
}  # fmt: skip
"""The 40-pin header by physical pin (the same on every Pi with it; GPIO 0 and 1 are the
HAT EEPROM's I²C)."""


@dataclass(frozen=True)
class LibraryFootprint:
    name: str
    text: str


def _pad(name: str, x: float, y: float, size: float, drill: float, square: bool) -> str:
    shape = "rect" if square else "circle"
    return (
        f'  (pad "{name}" thru_hole {shape} (at {x:g} {y:g}) (size {size:g} {size:g}) '
        f'(drill {drill:g}) (layers "*.Cu" "*.Mask"))\n'
    )


def _rect(layer: str, x0: float, y0: float, x1: float, y1: float, width: float) -> str:
    return (
        f"  (fp_rect (start {x0:g} {y0:g}) (end {x1:g} {y1:g}) "
        f'(layer "{layer}") (width {width:g}) (fill none))\n'
    )


def _text(kind: str, value: str, y: float, layer: str) -> str:
    hide = " hide" if kind == "value" else ""
    return (
        f'  (fp_text {kind} "{value}" (at 0 {y:g}) (layer "{layer}"){hide}\n'
        "    (effects (font (size 1 1) (thickness 0.15))))\n"
    )


def _module(name: str, descr: str, body: str, text_y: float, attr: str = "through_hole") -> str:
    return (
        f'(footprint "{name}" (version 20211014) (generator pyramid_board)\n'
        '  (layer "F.Cu")\n'
        f'  (descr "{descr}")\n'
        f"  (attr {attr})\n"
        + _text("reference", "REF**", text_y, "F.SilkS")
        + _text("value", name, -text_y, "F.Fab")
        + body
        + ")\n"
    )


def _pi_socket() -> LibraryFootprint:
    pitch = 2.54
    body = ""
    for n in range(1, 41):
        x = pitch * ((n - 1) // 2)
        y = 0.0 if n % 2 else -pitch
        body += _pad(str(n), x, y, 1.7, 1.0, n == 1)
    body += _rect("F.SilkS", -1.4, -3.94, 49.66, 1.4, 0.12)
    body += _rect("F.Fab", -1.27, -3.81, 49.53, 1.27, 0.1)
    body += _rect("F.CrtYd", -1.8, -4.35, 50.06, 1.8, 0.05)
    name = "RaspberryPi_GPIO_Socket_2x20"
    descr = "2 x 20 socket, 2.54 mm, onto a Raspberry Pi's 40-pin header, seen from above"
    return LibraryFootprint(name, _module(name, descr, body, 2.8))


PI_SOCKET = _pi_socket()


def reed_upright(pitch: float, glass_diameter: float) -> LibraryFootprint:
    """A reed standing on lead 1 (the glass over it), lead 2 bent down ``pitch`` away."""
    name = f"Reed_Upright_P{pitch:g}mm"
    r = glass_diameter / 2
    body = _pad("1", 0, 0, 1.2, 0.7, True) + _pad("2", pitch, 0, 1.2, 0.7, False)
    body += (
        f'  (fp_circle (center 0 0) (end {r + 0.2:g} 0) (layer "F.Fab") (width 0.1) (fill none))\n'
    )
    body += _rect("F.CrtYd", -max(r, 0.6) - 0.25, -max(r, 0.6) - 0.25, pitch + 0.85,
                  max(r, 0.6) + 0.25, 0.05)  # fmt: skip
    descr = f"Reed switch standing upright on pad 1, glass diameter {glass_diameter:g} mm"
    return LibraryFootprint(name, _module(name, descr, body, -r - 1.5))


def _tactile() -> LibraryFootprint:
    name = "SW_Push_1P1T_XKB_TS-1187A"
    body = ""
    for pad, y in (("1", -1.875), ("2", 1.875)):
        for x in (-3.0, 3.0):
            body += (
                f'  (pad "{pad}" smd rect (at {x:g} {y:g}) (size 1 0.75) '
                '(layers "F.Cu" "F.Paste" "F.Mask"))\n'
            )
    body += _rect("F.Fab", -2.55, -2.55, 2.55, 2.55, 0.1)
    body += '  (fp_circle (center 0 0) (end 1 0) (layer "F.Fab") (width 0.1) (fill none))\n'
    body += _rect("F.CrtYd", -3.75, -2.8, 3.75, 2.8, 0.05)
    descr = "SMD tactile switch 5.1 x 5.1 mm, XKB TS-1187A"
    return LibraryFootprint(name, _module(name, descr, body, -3.75, attr="smd"))


TACTILE = _tactile()


def _tcrt1000() -> LibraryFootprint:
    name = "Vishay_TCRT1000"
    half = 2.54 / 2
    body = ""
    # A, K (the emitter) on −x, E, C (the phototransistor) on +x, numbered round
    for pad, x, y in (("1", -half, -half), ("2", -half, half), ("3", half, half),
                      ("4", half, -half)):  # fmt: skip
        body += _pad(pad, x, y, 1.4, 0.8, pad == "1")
    body += _rect("F.Fab", -3.5, -2.0, 3.5, 2.0, 0.1)
    body += _rect("F.SilkS", -3.62, -2.12, 3.62, 2.12, 0.12)
    body += _rect("F.CrtYd", -3.75, -2.25, 3.75, 2.25, 0.05)
    descr = "Vishay TCRT1000 reflective sensor, 7 x 4 mm, 4 leads on 2.54 mm (A K E C)"
    return LibraryFootprint(name, _module(name, descr, body, -3.2))


TCRT1000 = _tcrt1000()

PICO_PINS: dict[str, str] = {
    "1": "GP0", "2": "GP1", "3": "GND", "4": "GP2", "5": "GP3", "6": "GP4", "7": "GP5",
    "8": "GND", "9": "GP6", "10": "GP7", "11": "GP8", "12": "GP9", "13": "GND", "14": "GP10",
    "15": "GP11", "16": "GP12", "17": "GP13", "18": "GND", "19": "GP14", "20": "GP15",
    "21": "GP16", "22": "GP17", "23": "GND", "24": "GP18", "25": "GP19", "26": "GP20",
    "27": "GP21", "28": "GND", "29": "GP22", "30": "RUN", "31": "GP26", "32": "GP27",
    "33": "AGND", "34": "GP28", "35": "ADC_VREF", "36": "3V3", "37": "3V3_EN", "38": "GND",
    "39": "VSYS", "40": "VBUS",
}  # fmt: skip
"""The Pico's 40 pins by physical pin (Raspberry Pi Pico Datasheet, "Pinout": GP26–GP28
are ADC0–ADC2, 3V3 is the on-board regulator's output)."""

PICO_ROW = 17.78
"""From one row of the Pico's edge pads to the other (the datasheet's drawing)."""


def _pico() -> LibraryFootprint:
    name = "RaspberryPi_Pico_SMD"
    body = ""
    for n in range(1, 41):
        left = n <= 20
        x = -PICO_ROW / 2 - 0.3 if left else PICO_ROW / 2 + 0.3
        y = -24.13 + 2.54 * ((n - 1) if left else (40 - n))
        body += (
            f'  (pad "{n}" smd rect (at {x:g} {round(y, 3):g}) (size 3.2 1.6) '
            '(layers "F.Cu" "F.Mask"))\n'
        )
    body += _rect("F.Fab", -10.5, -25.5, 10.5, 25.5, 0.1)
    body += _rect("F.Fab", -4.0, -26.8, 4.0, -24.0, 0.1)  # the micro-USB socket
    # the outline's two ends only (its long sides run over the edge pads), and pin 1's mark
    for y in (-25.62, 25.62):
        body += f'  (fp_line (start -7.2 {y:g}) (end 7.2 {y:g}) (layer "F.SilkS") (width 0.12))\n'
    body += '  (fp_circle (center -6.4 -24.13) (end -6.0 -24.13) (layer "F.SilkS") (width 0.12))\n'
    body += _rect("F.CrtYd", -11.0, -27.1, 11.0, 25.9, 0.05)
    descr = "Raspberry Pi Pico, castellated edge soldered flat, seen from its top"
    return LibraryFootprint(name, _module(name, descr, body, 27.5, attr="smd"))


PICO = _pico()

"""The parts the two boards are made of: footprint, pins, and what to order.

Each pin has KiCad's electrical type (``input``, ``output``, ``passive``, ``power_in``,
``power_out``, ``open_collector``, …), which the electrical check (:mod:`checks`) uses
as KiCad's ERC does. Every part the assembly service places (``smt``) has its LCSC
number (the fab's parts library; ``tests/hardware/pcb`` fails on one without); a part
the maker solders (``hand``) is ordered by its manufacturer part number.

Prices are LCSC's unit prices at 100 pieces as public JLCPCB bills of materials quoted
them in 2025–2026 where one did (``price_note`` says which), else an estimate for that
kind of part (``price_note`` says so): the cost per board in hardware/README.md is
their sum, to be checked against the fab's quote.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from hardware.pcb.library import PI_HEADER, PICO_PINS

__all__ = ["CATALOGUE", "MUX_INPUT_PAD", "RESISTOR_WATTS", "PartKind", "Pin", "resistor_size"]

PinType = Literal[
    "input", "output", "bidirectional", "passive", "power_in", "power_out", "open_collector"
]


@dataclass(frozen=True)
class Pin:
    name: str
    type: PinType


@dataclass(frozen=True)
class PartKind:
    key: str
    prefix: str
    value: str
    footprint: str
    pins: Mapping[str, Pin]
    """Pad number → pin."""
    description: str
    manufacturer: str
    mpn: str
    lcsc: str
    assembly: Literal["smt", "hand"]
    """``smt``: the assembly service places it; ``hand``: the maker solders it."""
    price: float = 0.0
    """USD per piece (see the module's doc)."""
    price_note: str = "estimate"


def _two(a: str, b: str, t: PinType = "passive") -> dict[str, Pin]:
    return {"1": Pin(a, t), "2": Pin(b, t)}


RESISTOR_WATTS = {"0603": 0.1, "0805": 0.125, "1206": 0.25}
"""The UNI-ROYAL thick-film chip resistors' rated power at 70 °C by size (UNI-ROYAL, Thick
Film Chip Resistors data sheet, 0603WAF / 0805W8F / 1206W4F series, "Ratings": 1/10,
1/8 and 1/4 W): what :mod:`hardware.pcb.ratings` holds each resistor to."""

_METRIC = {"0603": "1608", "0805": "2012", "1206": "3216"}


def _resistor(ohms: str, mpn: str, lcsc: str, size: str = "0603", price: float = 0.002) -> PartKind:
    return PartKind(
        f"R{ohms}" if size == "0603" else f"R{ohms}_{size}", "R", ohms,
        f"Resistor_SMD:R_{size}_{_METRIC[size]}Metric", _two("~", "~"),
        f"resistor {ohms}, 1 %, {size}, {RESISTOR_WATTS[size]:g} W", "UNI-ROYAL", mpn, lcsc,
        "smt", price, f"LCSC basic part, about ${price:g} at 100",
    )  # fmt: skip


def resistor_size(kind: PartKind) -> str:
    """A resistor's size code (``0603``, ``0805``, ``1206``) from its footprint."""
    return kind.footprint.split("_")[2]


def _pico_pins() -> dict[str, Pin]:
    types: dict[str, PinType] = {"GND": "power_in", "AGND": "power_in", "3V3": "power_out"}
    return {
        pad: Pin(name, types.get(name, "bidirectional" if name.startswith("GP") else "passive"))
        for pad, name in PICO_PINS.items()
    }


def _mux_pins() -> dict[str, Pin]:
    """CD74HC4067 (TI, CD74HC4067 data sheet SCHS209, pin functions): 1 COM, 2–9 I7–I0,
    10 S0, 11 S1, 12 GND, 13 S3, 14 S2, 15 ~E, 16–23 I15–I8, 24 VCC."""
    pins: dict[str, Pin] = {"1": Pin("COM", "passive")}
    pins |= {str(2 + k): Pin(f"I{7 - k}", "passive") for k in range(8)}
    pins |= {"10": Pin("S0", "input"), "11": Pin("S1", "input"),
             "12": Pin("GND", "power_in"), "13": Pin("S3", "input"),
             "14": Pin("S2", "input"), "15": Pin("~E", "input")}  # fmt: skip
    pins |= {str(16 + k): Pin(f"I{15 - k}", "passive") for k in range(8)}
    pins["24"] = Pin("VCC", "power_in")
    return pins


MUX_INPUT_PAD = {int(pin.name[1:]): pad for pad, pin in _mux_pins().items()
                 if pin.name[0] == "I"}  # fmt: skip
"""A CD74HC4067's input number → its pad."""


def _pi_pins() -> dict[str, Pin]:
    types: dict[str, PinType] = {"GND": "power_in", "3V3": "power_out", "5V": "power_out"}
    return {pad: Pin(name, types.get(name, "bidirectional")) for pad, name in PI_HEADER.items()}


CATALOGUE: dict[str, PartKind] = {
    kind.key: kind
    for kind in (
        PartKind(
            # Not stocked by LCSC as APA102-2020: its pin-compatible twin in the same 2 × 2 mm
            # package (same protocol, the program drives both: hardware/README.md)
            "led", "D", "SK9822-EC20", "LED_SMD:LED-APA102-2020",
            {"1": Pin("VDD", "power_in"), "2": Pin("CKO", "output"), "3": Pin("SDO", "output"),
             "4": Pin("SDI", "input"), "5": Pin("CKI", "input"), "6": Pin("GND", "power_in")},
            "addressable RGB LED with clock and data, 2 × 2 mm, 5 V (APA102-2020 compatible)",
            "OPSCO Optoelectronics", "SK9822-EC20", "C2909059", "smt", 0.10,
        ),
        PartKind(
            "diode", "D", "BAT43W", "Diode_SMD:D_SOD-123", _two("K", "A"),
            "Schottky diode 30 V 200 mA, SOD-123 (the BAT43 of the hand-wired builds)",
            "Changjiang Electronics (CJ)", "BAT43W", "C19167", "smt", 0.01,
        ),
        PartKind(
            "tvs", "D", "PESD5V0S1BA", "Diode_SMD:D_SOD-323", _two("~", "~"),
            "ESD/TVS diode 5 V bidirectional, SOD-323", "HXY MOSFET", "PESD5V0S1BA",
            "C5261083", "smt", 0.02,
        ),
        PartKind(
            "c100n", "C", "100nF", "Capacitor_SMD:C_0603_1608Metric", _two("~", "~"),
            "ceramic capacitor 100 nF 50 V X7R, 0603", "YAGEO", "CC0603KRX7R9BB104", "C14663",
            "smt", 0.003, "LCSC basic part",
        ),
        PartKind(
            "c1u", "C", "1uF", "Capacitor_SMD:C_0603_1608Metric", _two("~", "~"),
            "ceramic capacitor 1 µF 25 V X5R, 0603", "Samsung", "CL10A105KB8NNNC", "C15849",
            "smt", 0.004, "LCSC basic part",
        ),
        PartKind(
            "c1000u", "C", "1000uF", "Capacitor_SMD:CP_Elec_10x10.5",
            {"1": Pin("+", "passive"), "2": Pin("-", "passive")},
            "aluminium electrolytic capacitor 1000 µF 10 V, SMD can 10 × 10.2 mm",
            "Panasonic", "EEE-FK1A102P", "", "hand", 0.60,
        ),
        PartKind(
            # Littelfuse-style 1812 PTC: 2.6 A hold, 5 A trip, 30 V (the budget: README.md)
            "fuse", "F", "2.6A", "Fuse:Fuse_1812_4532Metric", _two("~", "~"),
            "resettable fuse (PTC), 2.6 A hold, 5 A trip, 30 V, 1812", "LUTE",
            "1812L260/30GR", "C20617446", "smt", 0.10,
        ),
        PartKind(
            "usbc", "J", "USB-C 5V", "Connector_USB:USB_C_Receptacle_HRO_TYPE-C-31-M-12",
            {**{p: Pin("VBUS", "power_out") for p in ("A4", "A9", "B4", "B9")},
             **{p: Pin("GND", "power_out") for p in ("A1", "A12", "B1", "B12")},
             "A5": Pin("CC1", "passive"), "B5": Pin("CC2", "passive"),
             "A6": Pin("D+", "passive"), "B6": Pin("D+", "passive"),
             "A7": Pin("D-", "passive"), "B7": Pin("D-", "passive"),
             "A8": Pin("SBU1", "passive"), "B8": Pin("SBU2", "passive"),
             "S1": Pin("SHIELD", "passive")},
            "USB-C receptacle, 16 pins: the LED supply's 5 V input (power only)",
            "Korean Hroparts Elec", "TYPE-C-31-M-12", "C165948", "smt", 0.20,
        ),
        PartKind(
            "idc20", "J", "2x10 IDC", "Connector_IDC:IDC-Header_2x10_P2.54mm_Vertical",
            {str(n): Pin(str(n), "passive") for n in range(1, 21)},
            "box header 2 × 10, 2.54 mm, keyed (the ribbon cable between the boards)",
            "Amphenol ICC", "T821120A1S100CEU", "", "hand", 0.50,
        ),
        PartKind(
            "idc20smd", "J", "2x10 IDC", "Connector_IDC:IDC-Header_2x10_P2.54mm_Vertical_SMD",
            {str(n): Pin(str(n), "passive") for n in range(1, 21)},
            "box header 2 × 10, 2.54 mm, keyed, surface mount (the ribbon cable's end on the "
            "base board)",
            "JXTCONN", "JXT-IDC2.54-2X10P-A2", "C54803514", "smt", 0.30,
        ),
        PartKind(
            "ir", "J", "IR module", "Connector_PinHeader_2.54mm:"
            "PinHeader_1x03_P2.54mm_Vertical_SMD_Pin1Left",
            {"1": Pin("3V3", "passive"), "2": Pin("GND", "passive"), "3": Pin("OUT", "passive")},
            "pin header 1 × 3, 2.54 mm, surface mount: an IR module's jumper lead (3.3 V, GND, "
            "OUT)", "any", "1x03 2.54 mm SMD pin header", "", "hand", 0.05,
        ),
        PartKind(
            "opto", "U", "EL817S", "Package_DIP:SMDIP-4_W9.53mm",
            {"1": Pin("A", "passive"), "2": Pin("K", "passive"), "3": Pin("E", "passive"),
             "4": Pin("C", "passive")},
            "optocoupler (PC817 class, gull wing): the IR module's output as a switch in its "
            "matrix crossing", "Everlight", "EL817S1(C)(TU)-F", "C106900", "smt", 0.06,
        ),
        PartKind(
            "ldo", "U", "AP2112K-3.3", "Package_TO_SOT_SMD:SOT-23-5",
            {"1": Pin("VIN", "power_in"), "2": Pin("GND", "power_in"), "3": Pin("EN", "input"),
             "4": Pin("NC", "passive"), "5": Pin("VOUT", "power_out")},
            "3.3 V 600 mA regulator for the IR modules", "Diodes Incorporated",
            "AP2112K-3.3TRG1", "C51118", "smt", 0.08,
        ),
        PartKind(
            "button", "SW", "button", "pyramid:SW_Push_1P1T_XKB_TS-1187A",
            {"1": Pin("A", "passive"), "2": Pin("B", "passive")},
            "tactile switch 5.1 × 5.1 × 1.5 mm, SMD: sits inside the button's hole in the wood, "
            "pressed by its dowel", "XKB Connectivity", "TS-1187A-B-A-B", "C318884", "smt",
            0.02,
        ),
        PartKind(
            "buffer", "U", "74AHCT125", "Package_SO:SOIC-14_3.9x8.7mm_P1.27mm",
            {"1": Pin("1~OE", "input"), "2": Pin("1A", "input"), "3": Pin("1Y", "output"),
             "4": Pin("2~OE", "input"), "5": Pin("2A", "input"), "6": Pin("2Y", "output"),
             "7": Pin("GND", "power_in"), "8": Pin("3Y", "output"), "9": Pin("3A", "input"),
             "10": Pin("3~OE", "input"), "11": Pin("4Y", "output"), "12": Pin("4A", "input"),
             "13": Pin("4~OE", "input"), "14": Pin("VCC", "power_in")},
            "quad buffer, TTL inputs, 5 V: lifts the LEDs' clock and data from 3.3 V",
            "Texas Instruments", "SN74AHCT125DR", "C155176", "smt", 0.35,
        ),
        PartKind(
            "eeprom", "U", "CAT24C32", "Package_SO:SOIC-8_3.9x4.9mm_P1.27mm",
            {"1": Pin("A0", "input"), "2": Pin("A1", "input"), "3": Pin("A2", "input"),
             "4": Pin("GND", "power_in"), "5": Pin("SDA", "bidirectional"),
             "6": Pin("SCL", "input"), "7": Pin("WP", "input"), "8": Pin("VCC", "power_in")},
            "I²C EEPROM 32 kbit, 16-bit addressed: the HAT's ID EEPROM", "onsemi",
            "CAT24C32WI-GT3", "C81193", "smt", 0.12,
        ),
        PartKind(
            "npn", "Q", "MMBT3904", "Package_TO_SOT_SMD:SOT-23",
            {"1": Pin("B", "input"), "2": Pin("E", "passive"), "3": Pin("C", "passive")},
            "NPN transistor 40 V 200 mA, SOT-23: switches the sounder from 5 V",
            "Changjiang Electronics (CJ)", "MMBT3904", "C20526", "smt", 0.01,
        ),
        PartKind(
            "flyback", "D", "1N4148W", "Diode_SMD:D_SOD-123", _two("K", "A"),
            "switching diode 75 V 150 mA, SOD-123: the sounder coil's flyback diode",
            "Changjiang Electronics (CJ)", "1N4148W", "C81598", "smt", 0.01,
        ),
        PartKind(
            "sounder", "LS", "speaker", "Connector_PinHeader_2.54mm:"
            "PinHeader_1x02_P2.54mm_Vertical",
            _two("+", "-"),
            "the sounder's two leads: a dynamic speaker, 8 Ω (hardware/README.md, The buzzer)",
            "Visaton", "K 28 WP 8 Ohm", "", "hand", 3.0,
        ),
        PartKind(
            # the pico board's: surface mount, so that no pin comes through to the wood
            "sounder_smd", "LS", "speaker", "Connector_PinHeader_2.54mm:"
            "PinHeader_1x02_P2.54mm_Vertical_SMD_Pin1Left",
            _two("+", "-"),
            "the sounder's two leads on a 1 × 2 SMD header: a dynamic speaker, 8 Ω "
            "(hardware/README.md, The buzzer)",
            "Visaton", "K 28 WP 8 Ohm", "", "hand", 3.0,
        ),
        PartKind(
            "testpoint", "TP", "WP", "TestPoint:TestPoint_Pad_D1.5mm",
            {"1": Pin("1", "passive")},
            "test point: ground it to write the ID EEPROM", "-", "copper pad", "", "hand", 0.0,
            "a pad of the board itself",
        ),
        PartKind(
            "pi", "J", "Raspberry Pi GPIO", "pyramid:RaspberryPi_GPIO_Socket_2x20",
            _pi_pins(),
            "2 × 20 socket, 2.54 mm, 8.5 mm high: onto the Pi's 40-pin header", "Samtec",
            "SSW-120-01-T-D", "", "hand", 3.50,
        ),
        PartKind(
            # the pico board's LEDs: WS2812-type, 2 × 2 mm, one data line (the Pico's
            # neopixel); pins as KiCad's LED_WS2812B-2020 footprint and Worldsemi's data
            # sheet number them
            "ws2812", "D", "WS2812B-2020", "LED_SMD:LED_WS2812B-2020_PLCC4_2.0x2.0mm",
            {"1": Pin("DOUT", "output"), "2": Pin("GND", "power_in"), "3": Pin("DIN", "input"),
             "4": Pin("VDD", "power_in")},
            "addressable RGB LED, one-wire (WS2812), 2 × 2 mm, 5 V", "Worldsemi",
            "WS2812B-2020", "C965555", "smt", 0.12,
        ),
        PartKind(
            "tcrt", "S", "TCRT1000", "pyramid:Vishay_TCRT1000",
            {"1": Pin("A", "passive"), "2": Pin("K", "passive"), "3": Pin("E", "passive"),
             "4": Pin("C", "passive")},
            "reflective optical sensor, phototransistor output, 7 × 4 × 2.5 mm, leaded: stands "
            "in its cell's or target's pocket, looking up through the window",
            "Vishay", "TCRT1000", "", "hand", 0.90,
            "estimate (hardware/README.md: about EUR 0.9)",
        ),
        PartKind(
            # the Pyramidos module's: the top's TCRT1000 hangs over the top ball on its bridge,
            # its four leads on a jumper lead to this header (pads as the TCRT1000's: A K E C)
            "tcrt_lead", "J", "TCRT1000 lead", "Connector_PinHeader_2.54mm:"
            "PinHeader_1x04_P2.54mm_Vertical_SMD_Pin1Left",
            {"1": Pin("A", "passive"), "2": Pin("K", "passive"), "3": Pin("E", "passive"),
             "4": Pin("C", "passive")},
            "pin header 1 × 4, 2.54 mm, surface mount: the top's TCRT1000's lead (A, K, E, C)",
            "any", "1x04 2.54 mm SMD pin header", "", "hand", 0.05,
        ),
        PartKind(
            # the SOIC-24W (1.27 mm pitch) rather than the SSOP-24 (0.65 mm, C98457): the
            # router's 0.5 mm grid gets out of 1.27 mm pins, not of 0.65 mm ones
            "mux", "U", "CD74HC4067", "Package_SO:SOIC-24W_7.5x15.4mm_P1.27mm", _mux_pins(),
            "16-channel analogue multiplexer, SOIC-24W: 16 sensors into one ADC input",
            "Texas Instruments", "CD74HC4067M96", "C496123", "smt", 0.45,
        ),
        PartKind(
            "nfet", "Q", "AO3400A", "Package_TO_SOT_SMD:SOT-23",
            {"1": Pin("G", "input"), "2": Pin("S", "passive"), "3": Pin("D", "passive")},
            "N-MOSFET 30 V 5.7 A, SOT-23, logic level: switches one emitter group",
            "Alpha & Omega Semiconductor", "AO3400A", "C20917", "smt", 0.03,
            "LCSC basic part",
        ),
        PartKind(
            "pico", "U", "Raspberry Pi Pico", "pyramid:RaspberryPi_Pico_SMD", _pico_pins(),
            "Raspberry Pi Pico (RP2040), soldered flat by its castellated edge: scans the "
            "sensors, drives the LEDs, talks to the computer over its own USB",
            "Raspberry Pi Ltd", "SC0915", "", "hand", 4.0, "Raspberry Pi's list price",
        ),
        _resistor("47", "0603WAF470JT5E", "C23182"),
        _resistor("150", "0603WAF1500T5E", "C22808"),
        # the TCRT1000 emitters' (the pico board): 0.12 W lit without end (ratings.py)
        _resistor("150", "0805W8F1500T5E", "C17471", "0805", 0.003),
        # the speaker's series resistor (the pico board): 0.17 W sounding without end
        _resistor("150", "1206W4F1500T5E", "C17917", "1206", 0.005),
        _resistor("100", "0603WAF1000T5E", "C22775"),
        _resistor("330", "0603WAF3300T5E", "C23138"),
        _resistor("1k", "0603WAF1001T5E", "C21190"),
        _resistor("3k9", "0603WAF3901T5E", "C23018"),
        _resistor("5k1", "0603WAF5101T5E", "C23186"),
        _resistor("10k", "0603WAF1002T5E", "C25804"),
    )
}  # fmt: skip
"""Every part either board uses, by key."""


def sensor_kind(footprint: str, description: str, manufacturer: str, mpn: str) -> PartKind:
    """The cells' sensor, whose footprint and part come from the geometry file."""
    return PartKind(
        "sensor",
        "S",
        "reed",
        footprint,
        _two("1", "2"),
        description,
        manufacturer,
        mpn,
        "",
        "hand",
        0.5,
        "estimate (the geometry file's sensor)",
    )

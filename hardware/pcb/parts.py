"""The parts the two boards are made of: footprint, pins, and what to order.

Each pin has KiCad's electrical type (``input``, ``output``, ``passive``, ``power_in``,
``power_out``, ``open_collector``, …), which the electrical check (:mod:`checks`) uses
as KiCad's ERC does. LCSC numbers are given where the part is in JLCPCB's assembly
library under that number; an empty one means: order it by manufacturer part number.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = ["CATALOGUE", "PartKind", "Pin"]

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


def _two(a: str, b: str, t: PinType = "passive") -> dict[str, Pin]:
    return {"1": Pin(a, t), "2": Pin(b, t)}


def _resistor(ohms: str, mpn: str, lcsc: str) -> PartKind:
    return PartKind(
        f"R{ohms}", "R", ohms, "Resistor_SMD:R_0603_1608Metric", _two("~", "~"),
        f"resistor {ohms}, 1 %, 0603", "UNI-ROYAL", mpn, lcsc, "smt",
    )  # fmt: skip


def _pi_pins() -> dict[str, Pin]:
    from hardware.pcb.library import PI_HEADER

    types: dict[str, PinType] = {"GND": "power_in", "3V3": "power_out", "5V": "power_out"}
    return {pad: Pin(name, types.get(name, "bidirectional")) for pad, name in PI_HEADER.items()}


CATALOGUE: dict[str, PartKind] = {
    kind.key: kind
    for kind in (
        PartKind(
            "led", "D", "APA102-2020", "LED_SMD:LED-APA102-2020",
            {"1": Pin("VDD", "power_in"), "2": Pin("CKO", "output"), "3": Pin("SDO", "output"),
             "4": Pin("SDI", "input"), "5": Pin("CKI", "input"), "6": Pin("GND", "power_in")},
            "addressable RGB LED with clock and data, 2 × 2 mm, 5 V", "Shiji Lighting (APA)",
            "APA102-2020", "", "smt",
        ),
        PartKind(
            "diode", "D", "BAT43W", "Diode_SMD:D_SOD-123", _two("K", "A"),
            "Schottky diode 30 V 200 mA, SOD-123 (the BAT43 of the hand-wired builds)",
            "Diodes Incorporated", "BAT43W-7-F", "", "smt",
        ),
        PartKind(
            "tvs", "D", "PESD5V0S1BA", "Diode_SMD:D_SOD-323", _two("~", "~"),
            "TVS diode 5 V bidirectional, SOD-323: ESD on a button", "Nexperia",
            "PESD5V0S1BA,115", "", "smt",
        ),
        PartKind(
            "c100n", "C", "100nF", "Capacitor_SMD:C_0603_1608Metric", _two("~", "~"),
            "ceramic capacitor 100 nF 50 V X7R, 0603", "YAGEO", "CC0603KRX7R9BB104", "C14663",
            "smt",
        ),
        PartKind(
            "c1u", "C", "1uF", "Capacitor_SMD:C_0603_1608Metric", _two("~", "~"),
            "ceramic capacitor 1 µF 25 V X5R, 0603", "Samsung", "CL10A105KB8NNNC", "C15849",
            "smt",
        ),
        PartKind(
            "c1000u", "C", "1000uF", "Capacitor_THT:CP_Radial_D10.0mm_P5.00mm",
            {"1": Pin("+", "passive"), "2": Pin("-", "passive")},
            "electrolytic capacitor 1000 µF 10 V, 10 mm, 5 mm pitch", "Nichicon", "UVR1A102MPD",
            "", "hand",
        ),
        PartKind(
            "fuse", "F", "2A", "Fuse:Fuse_1812_4532Metric", _two("~", "~"),
            "resettable fuse (PTC), 2 A hold, 1812", "Bourns", "MF-MSMF200-2", "", "smt",
        ),
        PartKind(
            "jack", "J", "5V 2A", "Connector_BarrelJack:BarrelJack_CUI_PJ-102AH_Horizontal",
            {"1": Pin("+5V", "power_out"), "2": Pin("GND", "power_out"),
             "3": Pin("GND", "passive")},
            "DC jack 5.5 × 2.1 mm, centre positive: the LED supply", "CUI Devices", "PJ-102AH",
            "", "hand",
        ),
        PartKind(
            "idc20", "J", "2x10 IDC", "Connector_IDC:IDC-Header_2x10_P2.54mm_Vertical",
            {str(n): Pin(str(n), "passive") for n in range(1, 21)},
            "box header 2 × 10, 2.54 mm, keyed (the ribbon cable between the boards)",
            "Amphenol ICC", "T821120A1S100CEU", "", "hand",
        ),
        PartKind(
            "ir", "J", "IR module", "Connector_JST:JST_XH_B3B-XH-A_1x03_P2.50mm_Vertical",
            {"1": Pin("3V3", "passive"), "2": Pin("GND", "passive"), "3": Pin("OUT", "passive")},
            "JST XH 3-pin header: an IR module's lead (3.3 V, GND, OUT)", "JST", "B3B-XH-A",
            "", "hand",
        ),
        PartKind(
            "opto", "U", "PC817", "Package_DIP:DIP-4_W7.62mm",
            {"1": Pin("A", "passive"), "2": Pin("K", "passive"), "3": Pin("E", "passive"),
             "4": Pin("C", "passive")},
            "optocoupler: the IR module's output as a switch in its matrix crossing", "Sharp",
            "PC817X1NSZ9F", "", "hand",
        ),
        PartKind(
            "ldo", "U", "AP2112K-3.3", "Package_TO_SOT_SMD:SOT-23-5",
            {"1": Pin("VIN", "power_in"), "2": Pin("GND", "power_in"), "3": Pin("EN", "input"),
             "4": Pin("NC", "passive"), "5": Pin("VOUT", "power_out")},
            "3.3 V 600 mA regulator for the IR modules", "Diodes Incorporated",
            "AP2112K-3.3TRG1", "C51118", "smt",
        ),
        PartKind(
            "button", "SW", "button", "Button_Switch_THT:SW_PUSH-12mm", _two("A", "B"),
            "tactile switch 12 × 12 mm, through hole, with a round cap", "Omron", "B3F-4055", "",
            "hand",
        ),
        PartKind(
            "buffer", "U", "74AHCT125", "Package_SO:SOIC-14_3.9x8.7mm_P1.27mm",
            {"1": Pin("1~OE", "input"), "2": Pin("1A", "input"), "3": Pin("1Y", "output"),
             "4": Pin("2~OE", "input"), "5": Pin("2A", "input"), "6": Pin("2Y", "output"),
             "7": Pin("GND", "power_in"), "8": Pin("3Y", "output"), "9": Pin("3A", "input"),
             "10": Pin("3~OE", "input"), "11": Pin("4Y", "output"), "12": Pin("4A", "input"),
             "13": Pin("4~OE", "input"), "14": Pin("VCC", "power_in")},
            "quad buffer, TTL inputs, 5 V: lifts the LEDs' clock and data from 3.3 V",
            "Texas Instruments", "SN74AHCT125DR", "", "smt",
        ),
        PartKind(
            "piezo", "BZ", "piezo", "Buzzer_Beeper:Buzzer_12x9.5RM7.6", _two("+", "-"),
            "passive piezo transducer 12 mm, 7.6 mm pitch (no built-in oscillator)",
            "Murata", "PKM13EPYH4000-A0", "", "hand",
        ),
        PartKind(
            "pi", "J", "Raspberry Pi GPIO", "pyramid:RaspberryPi_GPIO_Socket_2x20",
            _pi_pins(),
            "2 × 20 socket, 2.54 mm, 8.5 mm high: onto the Pi's 40-pin header", "Samtec",
            "SSW-120-01-T-D", "", "hand",
        ),
        _resistor("47", "0603WAF470JT5E", "C23182"),
        _resistor("100", "0603WAF1000T5E", "C22775"),
        _resistor("220", "0603WAF2200T5E", "C22962"),
        _resistor("330", "0603WAF3300T5E", "C23138"),
        _resistor("1k", "0603WAF1001T5E", "C21190"),
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
    )

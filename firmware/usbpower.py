"""What the LED supply's USB-C source offers, read on its CC pins, and the LED brightness
that keeps the printed pico board within it (issue 35, point 10).

The board's USB-C socket has a 5.1 kΩ Rd from each CC pin to ground; the source's pull-up
(Rp) on the CC pin the cable connects makes a voltage across that Rd which says how much
current the source offers. The USB Type-C Cable and Connector Specification (the table
"Voltage on Sink CC Pins (Multiple Source Current Advertisements)") gives, at the sink:

- vRd-USB 0.25–0.61 V: default USB power (500 mA on a USB 2.0 port, 900 mA on USB 3.x);
- vRd-1.5 0.70–1.16 V: 1.5 A;
- vRd-3.0 1.31–2.04 V: 3 A;
- under vRd-Connect (0.2 V) on both pins: no source's advertisement at all.

Each CC pin reaches a spare multiplexer input through 10 kΩ (``USB_CC_INPUTS`` in
config.py), so the Pico reads both through its ADC; the pin the cable does not connect
reads about 0 V, so the higher of the two is the source's. A default-power source (or
none that says) is taken at its least, 500 mA, and the LEDs' brightness is capped so that
every LED white at that brightness, with the largest emitter group lit and the speaker on,
stays within it: the figures are ``hardware/pcb/power.py``'s (a test holds them equal).

This file runs on the Pico (MicroPython) and on the host. The reflective firmware calls
:func:`limit` once at boot, before its scan starts, and main.py's ``Leds`` holds every
frame it shows within the cap: a frame whose colours add up to more than every LED white
at the cap is scaled down until it does not (full white at the cap's brightness), and a
frame within it is shown as sent.

>>> offered_amps(0.42, 0.0), offered_amps(0.0, 0.95), offered_amps(1.68, 0.0)
(0.5, 1.5, 3.0)
>>> round(brightness_cap(0.5, 37), 3), round(brightness_cap(1.5, 37), 3), brightness_cap(3.0, 37)
(0.204, 0.954, 1.0)
"""

try:  # noqa: SIM105 - MicroPython has no contextlib
    from typing import Any
except ImportError:  # MicroPython never evaluates annotations, so Any need not exist there
    pass

DEFAULT_AMPS = 0.5
"""A: default USB power taken at its least (a USB 2.0 port's 500 mA)."""
DEFAULT_MAX_VOLTS = 0.655
"""V: above vRd-USB's 0.61 V and below vRd-1.5's 0.70 V: the boundary taken halfway."""
MEDIUM_MAX_VOLTS = 1.235
"""V: between vRd-1.5's 1.16 V and vRd-3.0's 1.31 V, halfway."""
ADC_FULL_VOLTS = 3.3
"""V: the Pico's ADC reference (its 3V3 rail)."""

COLOUR_AMPS = 0.012
"""A per colour of a WS2812B-2020 at full brightness (hardware/pcb/power.py)."""
DARK_AMPS = 0.001
"""A: each LED's controller."""
OTHER_AMPS = 6 * (5.0 - 1.0) / 150.0 + 5.0 / 158.0
"""A: the largest emitter group lit (six TCRT1000s through 150 Ω) and the speaker (8 Ω and
150 Ω from 5 V), on the same rail (hardware/pcb/power.py)."""


def cc_volts(u16: int) -> float:
    """A ``read_u16()`` of the ADC (0–65535) in volts."""
    return u16 * ADC_FULL_VOLTS / 65535


def offered_amps(cc1_volts: float, cc2_volts: float) -> float:
    """The current the source offers (A), from the voltages across the two Rd."""
    volts = max(cc1_volts, cc2_volts)
    if volts <= DEFAULT_MAX_VOLTS:
        return DEFAULT_AMPS
    if volts <= MEDIUM_MAX_VOLTS:
        return 1.5
    return 3.0


def brightness_cap(amps: float, leds: int) -> float:
    """The highest LED brightness (0–1) at which ``leds`` LEDs all white, the largest
    emitter group and the speaker draw at most ``amps``."""
    room = amps - OTHER_AMPS - leds * DARK_AMPS
    if room <= 0 or leds <= 0:
        return 0.0
    return min(1.0, room / (leds * 3 * COLOUR_AMPS))


def limit(scanner: Any, cfg: Any) -> int | None:
    """The greatest sum of a frame's colours (0–255 each, 765 a white LED) at the cap for
    the source read on ``cfg.USB_CC_INPUTS`` (CC1's and CC2's multiplexer and input)
    through main.py's ``Reflective`` ``scanner``'s select pins and ADCs, as its scan reads
    a sensor (the scan sets every select pin again); None (no cap) without them."""
    inputs = getattr(cfg, "USB_CC_INPUTS", ())
    if len(inputs) != 2:
        return None
    volts = []
    for mux, address in inputs:
        for bit, pin in enumerate(scanner.select):
            pin.value((address >> bit) & 1)
        # The first read after a new address settles the multiplexer: a read_u16 takes
        # about 48 µs (measured on the emulated Pico, rigs/room.py), MUX_SETTLE_US is 5.
        scanner.adcs[mux].read_u16()
        volts.append(cc_volts(scanner.adcs[mux].read_u16()))
    cap = brightness_cap(offered_amps(volts[0], volts[1]), cfg.LED_COUNT)
    return int(cap * cfg.LED_COUNT * 765)


def problems(cfg: Any, muxes: int) -> list[str]:
    """What is wrong with config.py's ``USB_CC_INPUTS`` on ``muxes`` multiplexers."""
    return [
        f"USB_CC_INPUTS: {entry!r} is not (mux, input 0..15)"
        for entry in getattr(cfg, "USB_CC_INPUTS", ())
        if not isinstance(entry, (tuple, list))
        or len(entry) != 2
        or entry[0] not in range(muxes)
        or entry[1] not in range(16)
    ]


def scale(colours: tuple[int, ...], limit: int | None) -> int:
    """The scale (/256) that holds a frame's colours (0xRRGGBB each) to a sum of ``limit``;
    256 for a frame within it, or with no limit (None)."""
    total = 0
    for colour in colours:
        total += (colour >> 16) + ((colour >> 8) & 0xFF) + (colour & 0xFF)
    return limit * 256 // total if limit is not None and total > limit else 256

"""firmware/usbpower.py: what a USB-C source offers, from its CC voltage, and the LED
brightness that keeps the printed board within it."""

from __future__ import annotations

import pytest

from firmware import usbpower
from hardware.pcb import generate, power
from hardware.pcb.inputs import load_inputs
from hardware.pcb.parts import MUX_INPUT_PAD


@pytest.mark.parametrize(
    ("volts", "amps"),
    [
        # the USB Type-C specification's vRd ranges at the sink, at both ends
        (0.25, 0.5), (0.61, 0.5), (0.70, 1.5), (1.16, 1.5), (1.31, 3.0), (2.04, 3.0),
        (0.0, 0.5),  # nothing advertised (no source, or a cable without CC): the least
    ],
)  # fmt: skip
def test_each_advertisement_is_told_from_the_other_cc_pin(volts: float, amps: float) -> None:
    assert usbpower.offered_amps(volts, 0.0) == amps
    assert usbpower.offered_amps(0.0, volts) == amps  # the cable turned over


def test_a_default_power_source_caps_the_leds_within_it() -> None:
    """At the cap, the pico board's and the module's LEDs all white, the largest emitter
    group and the speaker (hardware/pcb/power.py's budget, the same figures) draw at most
    what the source offers: about a fifth of full brightness on default USB power, 0.95
    on a 1.5 A source (full white draws 1.56 A), none on a 3 A one."""
    inputs = load_inputs()
    boards = {b.name: b for b in generate.boards(inputs)}
    budget = power.budget(boards["pico"], boards["pyramidos"])
    assert usbpower.COLOUR_AMPS == power.WS2812_COLOUR_AMPS
    assert usbpower.DARK_AMPS == power.DARK_AMPS
    # (power.py rounds its figures to a tenth of a milliampere)
    assert (
        pytest.approx(6 * power.EMITTER_AMPS + power.SPEAKER_AMPS, abs=1e-3) == usbpower.OTHER_AMPS
    )
    cap = usbpower.brightness_cap(usbpower.DEFAULT_AMPS, budget.leds)
    full, dark = budget.full_white, budget.leds * power.DARK_AMPS + usbpower.OTHER_AMPS
    at_cap = dark + (full - dark) * cap  # the budget is linear in the brightness
    assert at_cap == pytest.approx(usbpower.DEFAULT_AMPS, abs=3e-3)
    assert 0.15 < cap < 0.25  # about a fifth of full brightness
    assert usbpower.brightness_cap(1.5, budget.leds) == pytest.approx(0.95, abs=0.01)
    assert usbpower.brightness_cap(3.0, budget.leds) == 1.0
    assert usbpower.brightness_cap(0.1, budget.leds) == 0.0
    assert usbpower.cc_volts(65535) == pytest.approx(3.3)


def test_the_board_reads_both_cc_pins_on_the_inputs_the_firmware_names() -> None:
    """The pico board wires each CC pin through 10 kΩ to the multiplexer input
    ``USB_CC_INPUTS`` names."""
    inputs = load_inputs()
    pins = inputs.pico_pins
    assert pins is not None and pins.cc_inputs == ((1, 14), (1, 15))
    board = next(b for b in generate.boards(inputs) if b.name == "pico")
    for k, (mux, channel_in) in enumerate(pins.cc_inputs):
        chip = next(p for p in board.parts if p.role == f"multiplexer {mux}")
        sense = chip.nets[MUX_INPUT_PAD[channel_in]]
        (r,) = [p for p in board.parts if sense in p.nets.values() and p is not chip]
        assert r.kind.value == "10k" and f"USB_CC{k + 1}" in r.nets.values()

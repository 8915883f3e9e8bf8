"""The boards' design as values, without KiCad's pcbnew (KiCad's footprint library, the
kicad-footprints package, is read as text): the generator reads the config rather than
copying it, and the electrical check finds what it is for."""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

import pytest

from hardware.geometry import load_geometry
from hardware.pcb import checks, design, module, pico, sexpr
from hardware.pcb.inputs import CONFIG, Inputs, load_inputs, pico_pins, pin_map

pytestmark = pytest.mark.usefixtures("footprints")


def test_the_hat_follows_the_configs_pins(tmp_path: Path) -> None:
    text = CONFIG.read_text().replace(
        "rows = [4, 17, 27, 22, 5, 6]", "rows = [6, 5, 22, 27, 17, 4]"
    )
    assert "rows = [6, 5, 22, 27, 17, 4]" in text
    config = tmp_path / "config.toml"
    config.write_text(text)
    pins = pin_map(config)
    hat = design.controller_board(pins)
    row0 = next(p for p in hat.parts if p.role.startswith("row 0 "))
    assert row0.nets == {"1": "ROW0", "2": "GPIO6"}
    header = next(p for p in hat.parts if p.kind.key == "pi")
    assert header.nets["31"] == "GPIO6"  # header pin 31 is GPIO 6


@pytest.fixture(scope="module")
def inputs() -> Inputs:
    return load_inputs()


def test_a_cell_moves_to_the_crossing_its_channel_names(inputs: Inputs) -> None:
    channels = dict(inputs.pins.channels)
    channels["a1"], channels["e5"] = channels["e5"], channels["a1"]
    base = design.base_board(inputs.spec, replace(inputs.pins, channels=channels))
    reed = next(p for p in base.parts if p.role == "reed a1")
    diode = next(p for p in base.parts if p.role == "diode a1")
    row, col = divmod(channels["a1"], 6)
    assert reed.nets["1"] == f"COL{col}"
    assert diode.nets == {"1": f"ROW{row}", "2": reed.nets["2"]}


def test_every_led_of_the_config_is_placed_in_its_order(inputs: Inputs) -> None:
    base = design.base_board(inputs.spec, inputs.pins)
    leds = [p for p in base.parts if p.kind.key == "led"]
    assert len(leds) == len(inputs.pins.leds)
    # LED n takes its data from LED n-1's output, the first from the cable through the
    # buffer (on the LED rail) and its 47 Ω
    order = sorted(leds, key=lambda p: inputs.pins.leds[p.role.removeprefix("LED ")])
    buffer = next(p for p in base.parts if p.kind.key == "buffer")
    assert buffer.nets["5"] == "LED_DATA" and buffer.nets["14"] == "+5V"
    series = next(
        p for p in base.parts if p.kind.key == "R47" and order[0].nets["4"] in p.nets.values()
    )
    assert set(series.nets.values()) == {buffer.nets["6"], order[0].nets["4"]}
    for before, after in itertools.pairwise(order):
        assert before.nets["3"] == after.nets["4"]
        assert before.nets["2"] == after.nets["5"]


def test_erc_finds_a_lone_pin_and_two_outputs(inputs: Inputs) -> None:
    base = design.base_board(inputs.spec, inputs.pins)
    assert checks.erc(base) == []
    parts = list(base.parts)
    leds = [i for i, p in enumerate(parts) if p.kind.key == "led"]
    first, second = leds[0], leds[1]
    # the second LED's data output put on the first one's: two outputs on one net, and
    # the net it drove left with an input alone
    parts[second] = replace(parts[second], nets={**parts[second].nets, "3": parts[first].nets["3"]})
    problems = checks.erc(replace(base, parts=tuple(parts)))
    assert any("more than one output" in p for p in problems)
    assert any("one pin only" in p for p in problems)


def test_sexpr_reads_what_it_writes() -> None:
    expr: sexpr.Expr = ["net", ["code", "1"], ["name", 'say "hi"'], ["node", ["ref", "R1"]]]
    assert sexpr.parse(sexpr.dump(expr)) == expr
    assert sexpr.parse(sexpr.dump(expr, indent=2)) == expr
    with pytest.raises(sexpr.SexprError):
        sexpr.parse("(net (code 1)")


def test_the_pico_board_follows_the_firmwares_pins(tmp_path: Path) -> None:
    """The pico board reads firmware/config.py: other emitter pins move the MOSFETs'
    gates to those Pico pins, and a sensor moves to the multiplexer input SENSORS gives."""
    from hardware.pcb import pico
    from hardware.pcb.inputs import FIRMWARE_CONFIG, pico_pins
    from hardware.pcb.library import PICO_PINS
    from hardware.pcb.module import MODULE_NAMES
    from hardware.pcb.parts import MUX_INPUT_PAD

    text = FIRMWARE_CONFIG.read_text().replace(
        "EMITTER_PINS = (2, 3, 4, 5, 6)", "EMITTER_PINS = (6, 5, 4, 3, 2)"
    )
    assert "EMITTER_PINS = (6, 5, 4, 3, 2)" in text
    firmware = tmp_path / "config.py"
    firmware.write_text(text)
    pins = pico_pins(firmware)
    spec = load_inputs().pico_spec
    assert spec is not None
    board = pico.pico_board(spec, pins, MODULE_NAMES)
    by_gpio = {int(name[2:]): pad for pad, name in PICO_PINS.items() if name.startswith("GP")}
    the_pico = next(p for p in board.parts if p.kind.key == "pico")
    gate = next(p for p in board.parts if p.role.startswith("emitter group 0 switch"))
    assert gate.nets["1"] == the_pico.nets[by_gpio[6]]
    # a1 on e5's multiplexer input and e5 on a1's
    sensors = dict(pins.sensors)
    sensors["a1"], sensors["e5"] = sensors["e5"], sensors["a1"]
    board = pico.pico_board(spec, replace(pins, sensors=sensors), MODULE_NAMES)
    mux, channel_in, _ = sensors["a1"]
    chip = next(p for p in board.parts if p.role == f"multiplexer {mux}")
    assert chip.nets[MUX_INPUT_PAD[channel_in]] == "SNS_a1"
    tcrt = next(p for p in board.parts if p.role == "TCRT1000 a1")
    assert tcrt.nets["3"] == "SNS_a1"


def test_the_module_follows_the_firmwares_groups_and_the_chain(tmp_path: Path) -> None:
    """The Pyramidos module's cable carries each of its sensors' emitter group as
    firmware/config.py gives it, and its LEDs are the config's stretch of the chain: a
    target in another group moves its cathode's line; the pico board without the module
    refuses the targets' sensors."""
    inputs = load_inputs()
    pins = inputs.pico_pins
    assert pins is not None and inputs.module_spec is not None and inputs.pico_spec
    board = module.module_board(inputs.module_spec, pins, load_geometry())
    t1 = next(p for p in board.parts if p.role == "TCRT1000 t1")
    assert t1.nets["2"] == f"EMIT{pins.sensors['t1'][2]}" == "EMIT0"
    header = next(p for p in board.parts if p.kind.key == "idc20smd")
    assert {header.nets["19"], header.nets["20"]} == {"LED_D25", "LED_D30"}
    moved = replace(pins, sensors={**pins.sensors, "t1": (0, 5, 2)})
    t1 = next(p for p in module.module_board(inputs.module_spec, moved, load_geometry()).parts
              if p.role == "TCRT1000 t1")  # fmt: skip
    assert t1.nets["2"] == "EMIT2"
    with pytest.raises(ValueError, match="'t1' has no reflective place"):
        pico.pico_board(inputs.pico_spec, pins)
    assert pico_pins().sensors["top"] == (1, 13, 4)

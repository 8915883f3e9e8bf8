"""The maker's guide agrees with the configs and the code: the parts it names work at
3.3 V, the mux diagram draws every supply and the buttons where the config reads them."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from controller.config import load_config
from rigs import circuits as mock_circuits

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "hardware" / "README.md").read_text()
MUX_CONFIG = ROOT / "configs" / "mux.toml"
SVG = "{http://www.w3.org/2000/svg}"


def texts_in(svg: Path, x_from: float, x_to: float, y_from: float, y_to: float) -> list[str]:
    """The text labels placed inside a rectangle of the drawing (its own coordinates)."""
    found = []
    for text in ET.parse(svg).getroot().iter(f"{SVG}text"):
        x, y = float(text.get("x", "nan")), float(text.get("y", "nan"))
        if x_from <= x <= x_to and y_from <= y <= y_to:
            found.append("".join(text.itertext()))
    return found


def boxes(svg: Path) -> list[tuple[float, float, float, float]]:
    """The multiplexer boxes (grey rectangles) as (x0, x1, y0, y1)."""
    out = []
    for rect in ET.parse(svg).getroot().iter(f"{SVG}rect"):
        if rect.get("fill") == "#f4f6f7":
            x, y = float(rect.get("x", 0)), float(rect.get("y", 0))
            out.append((x, x + float(rect.get("width", 0)), y, y + float(rect.get("height", 0))))
    return out


def test_every_multiplexer_has_its_supply_and_every_signal_drawn() -> None:
    svg = ROOT / "hardware" / "mux.svg"
    muxes = [b for b in boxes(svg) if b[1] - b[0] == 150]
    assert len(muxes) == 2
    for box in muxes:
        labels = texts_in(svg, *box)
        for pin in ("VCC", "GND", "S0", "S1", "S2", "S3", "EN", "SIG"):
            assert pin in labels, (box, labels)


def test_the_buttons_are_drawn_where_the_mux_config_reads_them() -> None:
    config = load_config(MUX_CONFIG)
    svg_text = (ROOT / "hardware" / "mux.svg").read_text()
    for button, label in (("confirm", "confirm"), ("end_turn", "end turn"), ("undo", "undo")):
        channel = config.board.channel_map.channel(f"button:{button}")
        mux, address = divmod(channel, 16)
        assert mux == 1
        assert f">C{address}<" in svg_text
        assert f"{label} (channel {channel})" in svg_text


def test_no_part_is_recommended_that_does_not_work_at_3_3_volts() -> None:
    """The A3144 is specified for 4.5–24 V; the DRV5032 samples only every ~50 ms."""
    for text in (MUX_CONFIG.read_text(), mock_circuits.__doc__ or "", GUIDE):
        for part in ("A3144", "DRV5032"):
            for line in text.splitlines():
                if part in line:
                    assert re.search(r"\bnot\b|avoid", line, re.IGNORECASE), line
    assert "DRV5033" in MUX_CONFIG.read_text() and "DRV5033" in GUIDE


def test_the_matrix_guide_recommends_schottky_diodes() -> None:
    parts = GUIDE.split("### Matrix build", 1)[1].split("###", 1)[0]
    assert "BAT43" in parts and "BAT85" in parts and "1N4148 diode |" not in parts


def test_the_guide_covers_the_traps() -> None:
    for needle in (
        "bend each lead",  # reed switches
        "costs to turn a pearl over",  # pearl magnets small enough not to turn each other
        "Sense the targets by reflected IR",  # no magnets in Pyramidos balls
        "Not sensed: pearls of the upper layers",
        "10 kΩ from each of its inputs 1A and 2A",  # LEDs dark while the Pi boots
        "a pearl keeps the orientation the hand gave it",  # why no magnet build is chosen
        "A reading it cannot trust changes nothing",
        "sudo raspi-config nonint do_spi 0",
        "sudo -u pyramid pyramid pin",
        "[buzzer]",
    ):
        assert needle.lower() in GUIDE.lower(), needle

"""The drilling templates and the guide's geometry numbers are made from
hardware/geometry.toml, and a stale one fails (tools/board_drawing.py)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from hardware.geometry import load_geometry
from tools import board_drawing

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "hardware" / "README.md"
SVG = "{http://www.w3.org/2000/svg}"


def test_committed_drawings_and_guide_numbers_match_the_geometry_file() -> None:
    assert board_drawing.main(["--check"]) == 0, "run: .venv/bin/python tools/board_drawing.py"


def test_a_change_to_the_geometry_file_makes_them_stale(tmp_path: Path) -> None:
    changed = tmp_path / "geometry.toml"
    text = (ROOT / "hardware" / "geometry.toml").read_text()
    assert "light_hole_diameter = 4.0" in text
    changed.write_text(text.replace("light_hole_diameter = 4.0", "light_hole_diameter = 4.5"))
    assert board_drawing.main(["--check"], geometry=changed) == 1
    fresh, moved = load_geometry(), load_geometry(changed)
    assert board_drawing.outputs(fresh) != board_drawing.outputs(moved)
    assert "Ø4.5 through" in board_drawing.drilling_block(moved)


def test_the_template_is_one_to_one_and_puts_every_hole_where_the_file_says() -> None:
    g = load_geometry()
    root = ET.parse(ROOT / "hardware" / "drilling-matrix.svg").getroot()
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == (
        "297mm",
        "210mm",
        "0 0 297 210",
    )
    radii: dict[float, list[tuple[float, float]]] = {}
    for circle in root.iter(f"{SVG}circle"):
        r = float(circle.get("r", "0"))
        radii.setdefault(r, []).append((float(circle.get("cx", "0")), float(circle.get("cy", "0"))))
    page = board_drawing.Page(g)
    reeds = radii[round(g.sensor("matrix").hole_diameter / 2, 2)]
    for name, centre in g.cells.items():
        x, y = page.at(centre)
        assert any(abs(x - cx) < 0.01 and abs(y - cy) < 0.01 for cx, cy in reeds), name
    # Seen from below: a1 (player 1's near-left from above) is on the right of e1.
    assert page.at(g.cells["a1"])[0] > page.at(g.cells["e1"])[0]
    assert page.at(g.cells["a1"])[0] - page.at(g.cells["b1"])[0] == g.pitch
    cells = {page.at(centre) for centre in g.cells.values()}
    lights = [
        spot
        for spot in radii[g.leds.light_hole_diameter / 2]
        if not any(abs(spot[0] - x) < 0.01 and abs(spot[1] - y) < 0.01 for x, y in cells)
    ]
    assert len(lights) == 37  # the matrix config's LEDs: 25 cells, 4 targets, top, 3, 4


def test_the_pdf_is_one_a4_page_in_millimetres() -> None:
    for board in board_drawing.BOARDS:
        pdf = (ROOT / "hardware" / f"drilling-{board}.pdf").read_bytes()
        assert pdf.startswith(b"%PDF-") and re.search(rb"/Count 1\b", pdf)
        box = re.search(rb"/MediaBox \[ 0 0 ([\d.]+) ([\d.]+) \]", pdf)
        assert box is not None
        points = 72 / 25.4  # per mm
        assert float(box.group(1)) / points == pytest.approx(297, abs=0.01)
        assert float(box.group(2)) / points == pytest.approx(210, abs=0.01)


def test_the_guide_shows_the_drawings_and_drops_the_old_claims() -> None:
    guide = GUIDE.read_text()
    for name in (
        "drilling-pico.svg",
        "drilling-pico.pdf",
        "drilling-matrix.pdf",
        "drilling-mux.pdf",
    ):
        assert name in guide
        assert (ROOT / "hardware" / name).is_file()
    assert not re.search(r"see well under a tenth\.", guide)
    assert "one end** is under the cell's centre, or stand it upright" not in guide


def test_every_link_within_the_guide_finds_its_heading() -> None:
    """GitHub's anchors: lower case, punctuation dropped, spaces to hyphens."""
    guide = GUIDE.read_text()
    anchors = set()
    for heading in re.findall(r"^#+ (.+)$", guide, re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.lower().replace("`", "")).replace(" ", "-")
        anchors.add(slug)
    for target in re.findall(r"\]\(#([^)]+)\)", guide):
        assert target in anchors, target

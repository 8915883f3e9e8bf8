"""What the board design's tests share: KiCad's footprint library (the kicad-footprints
package, read as text) or a skip saying so (a failure in CI)."""

from __future__ import annotations

import os

import pytest

from hardware.pcb.footprints import FootprintError, load_footprint


@pytest.fixture
def footprints() -> None:
    try:
        load_footprint("Resistor_SMD:R_0603_1608Metric")
    except FootprintError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the board design cannot be checked in CI: {exc}")
        pytest.skip(str(exc))

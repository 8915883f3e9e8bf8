"""The user guide's LED pictures are what the LEDs really show (drawn from guidance)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location(
        "guide_pictures", ROOT / "tools" / "guide_pictures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_pictures_match_the_guidance_frames():
    assert _tool().main(["--check"]) == 0, "run: .venv/bin/python tools/guide_pictures.py"


def test_a_stale_picture_is_reported(tmp_path: Path):
    tool = _tool()
    assert tool.main([], out=tmp_path) == 0
    (tmp_path / "leds-bonus.svg").write_text("<svg/>")
    assert tool.main(["--check"], out=tmp_path) == 1


def test_every_picture_is_used_by_the_guide():
    guide = (ROOT / "docs" / "user-guide.md").read_text(encoding="utf-8")
    for name in _tool().pictures():
        assert f"img/{name}" in guide, name

"""The user guide's LED pictures are what the LEDs really show (drawn from guidance)."""

from __future__ import annotations

from pathlib import Path

from tools import guide_pictures

ROOT = Path(__file__).resolve().parents[2]


def test_committed_pictures_match_the_guidance_frames() -> None:
    assert guide_pictures.main(["--check"]) == 0, "run: .venv/bin/python tools/guide_pictures.py"


def test_a_stale_picture_is_reported(tmp_path: Path) -> None:
    assert guide_pictures.main([], out=tmp_path) == 0
    (tmp_path / "leds-bonus.svg").write_text("<svg/>")
    assert guide_pictures.main(["--check"], out=tmp_path) == 1


def test_every_picture_is_used_by_the_guide() -> None:
    guide = (ROOT / "docs" / "user-guide.md").read_text(encoding="utf-8")
    for name in guide_pictures.pictures():
        assert f"img/{name}" in guide, name

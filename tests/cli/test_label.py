"""``pyramid label``: the page's addresses on a label to print, each with its QR code."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyramid_board.cli import main


def test_the_label_has_each_address_and_its_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "label.html"
    urls = ["http://pyramid.local:8080/", "http://192.168.1.23:8080/"]
    assert main(["label", "--out", str(out), *urls]) == 0
    assert "wrote" in capsys.readouterr().out
    page = out.read_text(encoding="utf-8")
    assert page.count("<svg") == 2
    for url in urls:
        assert f"<p>{url}</p>" in page and f"<title>{url}</title>" in page


def test_without_addresses_it_takes_those_the_config_serves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[web]\nhost = "127.0.0.1"\nport = 8123\n')
    assert main(["label", "--config", str(config)]) == 0
    page = capsys.readouterr().out
    assert page.count("<svg") == 1 and "http://127.0.0.1:8123/" in page


def test_an_unwritable_label_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["label", "--out", str(tmp_path / "no" / "such" / "x.html"), "http://a/"])
    assert status == 1
    assert "cannot write" in capsys.readouterr().err

"""``pyramid pin`` sets the admin PIN the web page checks (a real process, a real store)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from controller.store import Store
from web_ui import security


def pyramid(args: list[str], tmp_path: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYRAMID_DATA_DIR": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    env.pop("PYRAMID_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_pin_from_standard_input_replaces_the_hash(tmp_path: Path) -> None:
    done = pyramid(["pin"], tmp_path, stdin="97531\n")
    assert done.returncode == 0, done.stderr
    assert "Admin PIN changed" in done.stdout
    with Store(tmp_path / "data" / "pyramid.sqlite3") as store:
        assert security.check_pin(store, "97531")
        assert "97531" not in (store.get_setting(security.PIN_HASH_KEY) or "")


def test_generate_prints_a_new_pin_and_bad_pins_change_nothing(tmp_path: Path) -> None:
    made = pyramid(["pin", "--generate"], tmp_path)
    assert made.returncode == 0, made.stderr
    pin = made.stdout.strip().rsplit(" ", 1)[1]
    assert len(pin) == 6 and pin.isdigit()
    bad = pyramid(["pin"], tmp_path, stdin="12ab\n")
    assert bad.returncode == 1 and "4 to 12 digits" in bad.stderr
    with Store(tmp_path / "data" / "pyramid.sqlite3") as store:
        assert security.check_pin(store, pin)

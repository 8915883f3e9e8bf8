"""``pyramid pin`` sets the admin PIN the web page checks (a real process, a real store)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from controller.store import Store
from web_ui import security


def pyramid(
    args: list[str],
    tmp_path: Path,
    stdin: str = "",
    env: dict[str, str] | None = None,
    as_user: int | None = None,
) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "PYRAMID_DATA_DIR": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    environment.pop("PYRAMID_CONFIG", None)
    environment.update(env or {})
    prefix: list[str] = []
    if as_user is not None:
        prefix = ["setpriv", f"--reuid={as_user}", f"--regid={as_user}", "--clear-groups"]
        environment["HOME"] = str(tmp_path)
    return subprocess.run(
        [*prefix, sys.executable, "-m", "controller.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
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


def test_data_dir_and_config_name_the_store_as_for_pyramid_run(tmp_path: Path) -> None:
    config = tmp_path / "board.toml"
    config.write_text('[store]\npath = "games.sqlite3"\n')
    done = pyramid(
        ["pin", "--config", str(config), "--data-dir", str(tmp_path / "elsewhere")],
        tmp_path,
        stdin="24680\n",
    )
    assert done.returncode == 0, done.stderr
    with Store(tmp_path / "elsewhere" / "games.sqlite3") as store:
        assert security.check_pin(store, "24680")
    assert not (tmp_path / "data").exists()  # not the default data dir


def test_an_installed_config_names_the_services_store(tmp_path: Path) -> None:
    """As install-pi.sh leaves it: /etc's config names the store in /var/lib."""
    service_store = tmp_path / "var-lib" / "pyramid.sqlite3"
    config = tmp_path / "etc.toml"
    config.write_text(f'[store]\npath = "{service_store}"\n')
    done = pyramid(["pin", "--generate"], tmp_path, env={"PYRAMID_CONFIG": str(config)})
    assert done.returncode == 0, done.stderr
    assert service_store.exists()


NOBODY = 65534


@pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv"),
    reason="needs root to run pyramid pin as another user (setpriv)",
)
def test_a_store_the_user_cannot_write_says_what_to_run() -> None:
    """The maker runs `pyramid pin`; the store is the service user's (here: root's)."""
    # Outside pytest's own (private) temporary folder, so the other user can read it.
    with tempfile.TemporaryDirectory() as folder:
        Path(folder).chmod(0o755)
        _unwritable_store(Path(folder))


def _unwritable_store(tmp_path: Path) -> None:
    service = tmp_path / "var-lib"
    service.mkdir(mode=0o750)
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\npath = "{service / "pyramid.sqlite3"}"\n')
    config.chmod(0o644)
    done = pyramid(
        ["pin", "--config", str(config)],
        tmp_path,
        stdin="13579\n",
        as_user=NOBODY,
    )
    assert done.returncode == 2
    assert f"cannot write the game store {service / 'pyramid.sqlite3'}" in done.stderr
    assert f"sudo -u root pyramid pin --config {config}" in done.stderr
    assert not (service / "pyramid.sqlite3").exists()

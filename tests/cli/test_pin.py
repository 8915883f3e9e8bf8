"""``pyramid pin`` sets the admin PIN the web page checks (a real process, a real store)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from controller.settings import PIN_HASH_KEY, Settings
from controller.store import Store
from pyramid_board.cli import COMMANDS


def pyramid(
    args: list[str],
    tmp_path: Path,
    stdin: str = "",
    env: dict[str, str] | None = None,
    as_user: int | None = None,
    python: list[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``pyramid ARGS`` in a real process; ``python`` replaces this interpreter (with
    its options), ``as_user`` runs it as that user."""
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
        [*prefix, *(python or [sys.executable]), "-m", "pyramid_board.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        cwd=tmp_path if python else Path(__file__).resolve().parents[2],
    )


def test_pin_from_standard_input_replaces_the_hash(tmp_path: Path) -> None:
    done = pyramid(["pin"], tmp_path, stdin="97531\n")
    assert done.returncode == 0, done.stderr
    assert "Admin PIN changed" in done.stdout
    with Store(tmp_path / "data" / "pyramid.sqlite3") as store:
        assert Settings(store).check_pin("97531")
        assert "97531" not in (store.get_setting(PIN_HASH_KEY) or "")


def test_pin_lifts_the_pages_lockout(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir(exist_ok=True)
    with Store(tmp_path / "data" / "pyramid.sqlite3") as store:
        Settings(store).set_wrong_pins(100)  # the page checks no PIN any more
    done = pyramid(["pin"], tmp_path, stdin="97531\n")
    assert done.returncode == 0, done.stderr
    assert "100 wrong PINs" in done.stdout and "checks PINs again" in done.stdout
    with Store(tmp_path / "data" / "pyramid.sqlite3") as store:
        assert Settings(store).wrong_pins() == 0


def test_generate_prints_a_new_pin_and_bad_pins_change_nothing(tmp_path: Path) -> None:
    made = pyramid(["pin", "--generate"], tmp_path)
    assert made.returncode == 0, made.stderr
    pin = made.stdout.strip().rsplit(" ", 1)[1]
    assert len(pin) == 6 and pin.isdigit()
    bad = pyramid(["pin"], tmp_path, stdin="12ab\n")
    assert bad.returncode == 1 and "4 to 12 digits" in bad.stderr
    with Store(tmp_path / "data" / "pyramid.sqlite3") as store:
        assert Settings(store).check_pin(pin)


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
        assert Settings(store).check_pin("24680")
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
PIN_MODULES = (*COMMANDS, "controller.settings", "controller.config_schema")
"""What ``pyramid pin`` imports (the command line loads every command's module, and the
config's schema, with pydantic, once a file is read): their packages are copied for the
other user."""
LIST_IMPORTS = """
import importlib, sys, sysconfig
for name in sys.argv[1:]:
    importlib.import_module(name)
stdlib = sysconfig.get_paths()["stdlib"]
for top in sorted({name.partition(".")[0] for name in sys.modules}):
    path = getattr(sys.modules[top], "__file__", None) or ""
    if path and not path.startswith(stdlib) and not top.startswith(("__", "_distutils")):
        print(path)
"""
"""Prints the file of every top-level module outside the stdlib that the named imports
load (the editable install's finder and setuptools' hook left out)."""


def _copy_for_anyone(folder: Path) -> Path:
    """The packages ``pyramid pin`` needs, copied from the checkout and the venv into
    ``folder/lib``, which every user can read.

    The checkout (and the venv inside it) may sit in a private folder, as a clone in
    /root does: another user could not import ``controller`` from there. The stdlib's
    modules stay where the interpreter has them.
    """
    listed = subprocess.run(
        [sys.executable, "-c", LIST_IMPORTS, *PIN_MODULES],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    lib = folder / "lib"
    lib.mkdir()
    for line in listed.stdout.splitlines():
        source = Path(line)
        if source.name == "__init__.py":
            shutil.copytree(
                source.parent,
                lib / source.parent.name,
                ignore=shutil.ignore_patterns("__pycache__"),
            )
        else:
            shutil.copy2(source, lib / source.name)
    for path in (folder, *lib.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return lib


def _runnable_by_nobody(interpreter: str) -> None:
    """Skip, saying why, when user nobody cannot run the interpreter at all (one
    installed under a private home, say): nothing this test copies can help then."""
    probe = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", interpreter,
         "-c", "pass"],
        capture_output=True,
        text=True,
    )  # fmt: skip
    if probe.returncode != 0:
        pytest.skip(f"user nobody cannot run this Python ({interpreter}): {probe.stderr.strip()}")


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
    # The interpreter itself, not the checkout's venv: its packages come from lib.
    interpreter = os.path.realpath(sys.executable)
    _runnable_by_nobody(interpreter)
    lib = _copy_for_anyone(tmp_path)
    done = pyramid(
        ["pin", "--config", str(config)],
        tmp_path,
        stdin="13579\n",
        env={"PYTHONPATH": str(lib)},
        as_user=NOBODY,
        python=[interpreter, "-s"],
    )
    assert done.returncode == 2, done.stderr
    assert f"cannot write the game store {service / 'pyramid.sqlite3'}" in done.stderr
    assert f"sudo -u root pyramid pin --config {config}" in done.stderr
    assert not (service / "pyramid.sqlite3").exists()

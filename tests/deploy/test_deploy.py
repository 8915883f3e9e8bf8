"""The Pi deployment: the install script's steps (dry run) and the systemd unit."""

from __future__ import annotations

import configparser
import grp
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "install-pi.sh"
UNIT = ROOT / "deploy" / "pyramid-board.service"


class CaseKeeping(configparser.ConfigParser):
    """systemd's keys are case-sensitive (``ExecStart``): kept as written."""

    def optionxform(self, optionstr: str) -> str:
        return optionstr


def unit() -> configparser.ConfigParser:
    parser = CaseKeeping(strict=False, interpolation=None)
    parser.read_string(UNIT.read_text())
    return parser


def dry_run(*args: str, path: str | None = None) -> str:
    env = {**os.environ, "PATH": path} if path else None
    result = subprocess.run(
        ["bash", str(SCRIPT), "--dry-run", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=env,
    )
    return result.stdout


def steps_of(out: str) -> list[str]:
    return [line[2:] for line in out.splitlines() if line.startswith("+ ")]


def fake_apt(tmp_path: Path, packages: set[str]) -> str:
    """A PATH whose apt-cache knows exactly ``packages`` (apt-get only runs in dry runs)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    known = " ".join(sorted(packages))
    (bin_dir / "apt-cache").write_text(
        f'#!/bin/sh\nfor p in {known}; do [ "$2" = "$p" ] && exit 0; done\nexit 100\n'
    )
    (bin_dir / "apt-get").write_text("#!/bin/sh\nexit 0\n")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    return f"{bin_dir}:{os.environ['PATH']}"


def test_script_is_valid_bash() -> None:
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
    if shutil.which("shellcheck"):
        subprocess.run(["shellcheck", str(SCRIPT)], check=True)


def test_dry_run_does_every_step() -> None:
    out = dry_run("--prefix", "/opt/pb", "--user", "pearl")
    steps = [line[2:] for line in out.splitlines() if line.startswith("+ ")]
    assert "python3 -m venv /opt/pb/venv" in " ".join(steps)
    assert any(s.endswith("pip install --quiet " + f"{ROOT}[pi]") for s in steps)
    user_exists = subprocess.run(["id", "pearl"], capture_output=True).returncode == 0
    made = any(s.startswith("useradd --system") and s.endswith(" pearl") for s in steps)
    assert made != user_exists
    assert "install -d -o pearl -g pearl -m 0750 /var/lib/pyramid-board" in steps
    assert "systemctl enable --now pyramid-board.service" in steps
    assert "ln -sf /opt/pb/venv/bin/pyramid /usr/local/bin/pyramid" in steps
    assert "write /etc/systemd/system/pyramid-board.service" in steps
    for group in ("gpio", "spi", "dialout"):
        assert f"usermod -aG {group} pearl" in steps
        missing = not any(g.gr_name == group for g in grp.getgrall())
        # A group the unit names but the system lacks is made (or systemd refuses to start).
        assert (f"groupadd --system {group}" in steps) == missing


def test_debians_lgpio_is_preferred(tmp_path: Path) -> None:
    steps = steps_of(dry_run("--prefix", "/opt/pb", path=fake_apt(tmp_path, {"python3-lgpio"})))
    install = next(s for s in steps if s.startswith("apt-get install"))
    assert "python3-lgpio" in install.split()
    assert "python3 -m venv --system-site-packages /opt/pb/venv" in steps
    assert any(s.endswith(f"pip install --quiet {ROOT}") for s in steps)  # no [pi]: no build


def test_without_debians_lgpio_the_c_library_comes_for_pip(tmp_path: Path) -> None:
    steps = steps_of(dry_run(path=fake_apt(tmp_path, {"liblgpio-dev"})))
    install = next(s for s in steps if s.startswith("apt-get install")).split()
    assert "liblgpio-dev" in install and "swig" in install
    assert any(s.endswith(f"pip install --quiet {ROOT}[pi]") for s in steps)


def test_spi_is_enabled_before_the_service_starts() -> None:
    """A board wired to the header (the matrix build) has its LEDs on SPI0."""
    steps = steps_of(dry_run("--config", str(ROOT / "configs" / "matrix.toml")))
    if os.path.exists("/dev/spidev0.0"):
        pytest.skip("this machine has SPI0 on already")
    enable = steps.index("raspi-config nonint do_spi 0")
    assert enable < steps.index("systemctl enable --now pyramid-board.service")


def test_a_config_without_spi_leds_leaves_spi_alone() -> None:
    """The default config is the printed pico board's (configs/serial.toml): its Pico drives
    the LEDs, so SPI0 stays as it is."""
    out = dry_run()
    assert "configs/serial.toml" in out
    assert "raspi-config nonint do_spi 0" not in steps_of(out)


def test_the_installed_config_names_the_services_store() -> None:
    out = dry_run()
    assert (
        '+ append [store] path = "/var/lib/pyramid-board/pyramid.sqlite3" to '
        "/etc/pyramid-board/config.toml"
    ) in out


def test_script_refuses_unknown_options() -> None:
    result = subprocess.run(
        ["bash", str(SCRIPT), "--frobnicate"], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 2
    assert "unknown option --frobnicate" in result.stderr


def test_unit_runs_the_venv_program_as_the_service_user() -> None:
    service = unit()["Service"]
    assert service["ExecStart"] == "/opt/pyramid-board/venv/bin/pyramid run"
    assert service["User"] == "pyramid"
    assert set(service["SupplementaryGroups"].split()) == {"gpio", "spi", "dialout"}


def test_unit_gives_a_writable_working_directory() -> None:
    service = unit()["Service"]
    state = "/var/lib/pyramid-board"
    assert service["WorkingDirectory"] == state
    assert service["StateDirectory"] == "pyramid-board"
    assert state in service["ReadWritePaths"].split()
    assert service["ProtectSystem"] == "strict"  # so nothing else is writable


def test_unit_points_the_program_at_its_config_and_data() -> None:
    text = UNIT.read_text()
    assert "Environment=PYRAMID_CONFIG=/etc/pyramid-board/config.toml" in text
    assert "Environment=PYRAMID_DATA_DIR=/var/lib/pyramid-board" in text
    assert "Environment=LG_WD=/var/lib/pyramid-board" in text


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="needs systemd-analyze")
def test_unit_passes_systemd_analyze(tmp_path: Path) -> None:
    checked = tmp_path / "pyramid-board.service"
    checked.write_text(
        UNIT.read_text().replace("/opt/pyramid-board/venv/bin/pyramid run", "/bin/true")
    )
    result = subprocess.run(
        ["systemd-analyze", "verify", str(checked)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "pyramid-board.service" not in result.stderr, result.stderr

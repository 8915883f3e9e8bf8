"""The Pi deployment: the install script's steps (dry run) and the systemd unit."""

from __future__ import annotations

import configparser
import grp
import os
import re
import shutil
import subprocess
import sys
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


def checkable_unit(tmp_path: Path) -> Path:
    """The unit with a program that exists here, for systemd-analyze."""
    checked = tmp_path / "pyramid-board.service"
    checked.write_text(
        UNIT.read_text().replace("/opt/pyramid-board/venv/bin/pyramid run", "/bin/true")
    )
    return checked


def with_our_python(path: str) -> str:
    """``path`` with this Python's folder first: a dry run makes no venv, so it reads the
    config with the ``python3`` it finds, which needs the program's packages."""
    return f"{Path(sys.executable).parent}:{path}"


def dry_run(*args: str, path: str | None = None) -> str:
    env = {**os.environ, "PATH": with_our_python(path or os.environ["PATH"])}
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
    """A PATH whose apt-cache knows exactly ``packages`` and whose dpkg-query has none of them
    installed (apt-get only runs in dry runs)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    known = " ".join(sorted(packages))
    (bin_dir / "apt-cache").write_text(
        f'#!/bin/sh\nfor p in {known}; do [ "$2" = "$p" ] && exit 0; done\nexit 100\n'
    )
    (bin_dir / "apt-get").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "dpkg-query").write_text(
        f'#!/bin/sh\nfor p in {known}; do [ "$4" = "$p" ] && exit 1; done\n'
        'exec /usr/bin/dpkg-query "$@"\n'
    )
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    return f"{bin_dir}:{os.environ['PATH']}"


def test_script_is_valid_bash() -> None:
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
    if shutil.which("shellcheck"):
        subprocess.run(["shellcheck", str(SCRIPT)], check=True)


def pip_installs(steps: list[str]) -> list[str]:
    return [s for s in steps if " -m pip " in s and " install " in s]


def test_dry_run_does_every_step() -> None:
    out = dry_run("--prefix", "/opt/pb", "--user", "pearl")
    steps = [line[2:] for line in out.splitlines() if line.startswith("+ ")]
    if not os.path.exists("/opt/pb/venv/bin/python"):
        assert "python3 -m venv /opt/pb/venv" in steps
    # The tested versions: pip and the build's tools first, then the program (a Pico build:
    # no [pi] extra), built with the venv's own setuptools (no download for the build).
    tools, program = pip_installs(steps)
    constraint = f"--constraint {ROOT}/deploy/constraints.txt"
    assert tools.endswith(f"install --quiet {constraint} pip setuptools wheel")
    assert program.endswith(f"install --quiet {constraint} --no-build-isolation {ROOT}")
    user_exists = subprocess.run(["id", "pearl"], capture_output=True).returncode == 0
    made = any(s.startswith("useradd --system") and s.endswith(" pearl") for s in steps)
    assert made != user_exists
    assert "install -d -o pearl -g pearl -m 0750 /var/lib/pyramid-board" in steps
    # restart, not start: a re-run's new program takes effect at once.
    enable = steps.index("systemctl enable pyramid-board.service")
    assert steps.index("systemctl restart pyramid-board.service") > enable
    assert "ln -sf /opt/pb/venv/bin/pyramid /usr/local/bin/pyramid" in steps
    assert "write /etc/systemd/system/pyramid-board.service" in steps
    assert "write cdc_acm to /etc/modules-load.d/pyramid-board.conf" in steps
    for group in ("gpio", "spi", "dialout"):
        assert f"usermod -aG {group} pearl" in steps
        missing = not any(g.gr_name == group for g in grp.getgrall())
        # A group the unit names but the system lacks is made (or systemd refuses to start).
        assert (f"groupadd --system {group}" in steps) == missing
    # The first install makes the PIN and shows it (the service's first start would only
    # print it into a journal that Raspberry Pi OS keeps in memory).
    generate = "runuser -u pearl -- /opt/pb/venv/bin/pyramid pin"
    if not os.path.exists("/var/lib/pyramid-board/pyramid.sqlite3"):
        assert any(s.startswith(generate) and s.endswith("--generate") for s in steps)
    assert any(s.startswith("/opt/pb/venv/bin/pyramid label --out ") for s in steps)
    assert "Installed. The page, on any phone or computer at home:" in out


def test_a_pico_build_needs_no_lgpio_and_no_build_tools(tmp_path: Path) -> None:
    path = fake_apt(tmp_path, {"python3-lgpio", "liblgpio-dev", "swig", "python3-dev"})
    steps = steps_of(dry_run(path=path))  # configs/serial.toml: the Pico on USB
    asked = " ".join(s for s in steps if s.startswith("apt-get install"))
    for package in ("lgpio", "swig", "python3-dev"):
        assert package not in asked
    assert not any("[pi]" in s for s in pip_installs(steps))


def test_debians_lgpio_is_preferred(tmp_path: Path) -> None:
    matrix = str(ROOT / "configs" / "matrix.toml")
    steps = steps_of(
        dry_run(
            "--prefix", "/opt/pb", "--config", matrix, path=fake_apt(tmp_path, {"python3-lgpio"})
        )
    )
    if os.path.exists("/etc/pyramid-board/config.toml"):
        pytest.skip("this machine has a config installed (its build decides)")
    install = next(s for s in steps if s.startswith("apt-get install"))
    assert "python3-lgpio" in install.split()
    assert "python3 -m venv --system-site-packages /opt/pb/venv" in steps
    assert pip_installs(steps)[-1].endswith(f" {ROOT}")  # no [pi]: no build


def test_without_debians_lgpio_pip_takes_its_wheel(tmp_path: Path) -> None:
    """PyPI's lgpio has wheels for CPython 3.9-3.12: no build tools there."""
    if not (3, 9) <= sys.version_info[:2] <= (3, 12):
        pytest.skip("lgpio has no wheel for this Python")
    if os.path.exists("/etc/pyramid-board/config.toml"):
        pytest.skip("this machine has a config installed (its build decides)")
    matrix = str(ROOT / "configs" / "matrix.toml")
    steps = steps_of(dry_run("--config", matrix, path=fake_apt(tmp_path, {"liblgpio-dev"})))
    asked = " ".join(s for s in steps if s.startswith("apt-get install")).split()
    assert "swig" not in asked and "python3-dev" not in asked
    assert pip_installs(steps)[-1].endswith(f"{ROOT}[pi]")


def test_a_bad_host_name_is_refused() -> None:
    result = subprocess.run(
        ["bash", str(SCRIPT), "--dry-run", "--hostname", "My_Pi"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "--hostname My_Pi: use a-z, 0-9 and -" in result.stderr


def test_spi_is_enabled_before_the_service_starts() -> None:
    """A board wired to the header (the matrix build) has its LEDs on SPI0."""
    steps = steps_of(dry_run("--config", str(ROOT / "configs" / "matrix.toml")))
    if os.path.exists("/dev/spidev0.0"):
        pytest.skip("this machine has SPI0 on already")
    enable = steps.index("raspi-config nonint do_spi 0")
    assert enable < steps.index("systemctl restart pyramid-board.service")


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
    checked = checkable_unit(tmp_path)
    result = subprocess.run(
        ["systemd-analyze", "verify", str(checked)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "pyramid-board.service" not in result.stderr, result.stderr


def test_unit_is_hardened() -> None:
    """What a security review asks for (issue 38), and nothing the board needs taken away."""
    service = unit()["Service"]
    assert service["CapabilityBoundingSet"] == ""
    for key in (
        "ProtectKernelModules",
        "ProtectKernelLogs",
        "ProtectClock",
        "ProtectHostname",
        "RestrictNamespaces",
        "RestrictRealtime",
        "NoNewPrivileges",
    ):
        assert service[key] == "yes", key
    assert service["SystemCallArchitectures"] == "native"
    assert service["UMask"] == "0027"
    families = set(service["RestrictAddressFamilies"].split())
    assert families == {"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"}
    assert service["DevicePolicy"] == "closed"
    allowed = [
        line.split("=", 1)[1]
        for line in UNIT.read_text().splitlines()
        if line.startswith("DeviceAllow=")
    ]
    assert sorted(allowed) == ["char-gpiochip rw", "char-spi rw", "char-ttyACM rw"]


def test_a_config_error_fails_the_unit_and_a_crash_is_restarted() -> None:
    parser = unit()
    service = parser["Service"]
    assert service["Restart"] == "on-failure"
    assert service["RestartPreventExitStatus"] == "2"  # pyramid run's config/board/store error
    assert int(parser["Unit"]["StartLimitBurst"]) >= 3
    assert int(parser["Unit"]["StartLimitIntervalSec"]) > 3 * float(service["RestartSec"])


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="needs systemd-analyze")
def test_unit_is_rated_ok_by_systemd_analyze_security(tmp_path: Path) -> None:
    checked = checkable_unit(tmp_path)
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", "--no-pager", str(checked)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if "--offline" in result.stderr:
        pytest.skip("this systemd-analyze has no --offline")
    found = re.search(r"Overall exposure level for \S+: ([\d.]+) (\w+)", result.stdout)
    assert found, result.stdout + result.stderr
    assert float(found.group(1)) <= 2.0 and found.group(2) in ("OK", "SAFE", "PERFECT"), found[0]


def test_a_config_the_program_refuses_stops_the_install_after_the_program(
    tmp_path: Path,
) -> None:
    """The program's own check reads the config (its packages are in the venv, step 1);
    every mistake is named, and nothing after the program is done."""
    bad = tmp_path / "bad.toml"
    bad.write_text('[board]\nadapter = "gpoi"\n[web]\nport = 0\n[leds]\nbrightness = 2\n')
    result = subprocess.run(
        ["bash", str(SCRIPT), "--dry-run", "--config", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PATH": with_our_python(os.environ["PATH"])},
    )
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"install-pi.sh: {bad}: 3 mistakes:",
        "  board.adapter: must be one of 'sim', 'gpio', 'serial', not 'gpoi'",
        "  leds.brightness: must be from 0 to 1, not 2",
        "  web.port: must be from 1 to 65535, not 0",
    ]
    steps = [line.split()[0] for line in result.stdout.splitlines() if line.startswith("== ")]
    assert steps == ["=="]  # the program's step only: not even the host name was touched
    assert "== 1. the program" in result.stdout

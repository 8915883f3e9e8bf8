"""Clean seams: the hardware package never imports the config reader (it imports the
hardware values from beside itself), and importing it loads no adapter it does not use."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HARDWARE = ROOT / "controller" / "hardware"
# serial.py belongs to the Pico side; it still names controller.config for a type only.
NOT_OURS = {"serial.py"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize(
    "path",
    sorted(p for p in HARDWARE.glob("*.py") if p.name not in NOT_OURS),
    ids=lambda p: p.name,
)
def test_no_hardware_module_imports_the_config_reader(path: Path) -> None:
    assert "controller.config" not in imported_modules(path)


def test_importing_the_gpio_adapter_does_not_load_the_config_reader() -> None:
    code = (
        "import sys, controller.hardware.gpio, rigs.circuits; "
        "print('controller.config' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "False"


def test_the_config_still_offers_every_hardware_name() -> None:
    import controller.config as config
    from controller import config_schema
    from controller.hardware import wiring

    for name in ("GpioConfig", "LedConfig", "SpiConfig"):
        assert getattr(config, name) is getattr(config_schema, name)
    assert config.ConfigError is wiring.ConfigError

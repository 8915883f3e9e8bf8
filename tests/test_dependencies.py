"""Every package the code imports is declared in pyproject.toml: the product's in
``[project].dependencies`` (or the Pi's extra), what only tests, bench, tools and the
maker's generators import in the ``test`` extra. A package that comes along with another
one today (werkzeug with Flask, numpy with magpylib) is declared all the same, with the
lower bound the code needs, so that a new release of the other one cannot take it away.

The map from an imported name to its distribution is the installed environment's own
(``importlib.metadata.packages_distributions``).
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RIGS = ("firmware/sim", "firmware/emulator")
"""The test rigs beside the firmware, which the wheel leaves out (pyproject.toml)."""


def files(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py")
                  if "node_modules" not in p.parts)  # fmt: skip


PRODUCT = [
    p for p in files("controller", "web_ui", "firmware")
    if not any(p.is_relative_to(ROOT / rig) for rig in RIGS)
]  # fmt: skip
"""What the wheel holds."""
AROUND = files("tests", "bench", "tools", "hardware", *RIGS)
NOT_FROM_PYPI = {
    "pcbnew": "KiCad 6's Python module, a Debian package (.ci/run installs kicad)",
}
# The firmware's files import each other, and the simulated chip's, by their bare names
# (as MicroPython on the Pico does); tests/serial and tests/firmware are on sys.path
# (pyproject.toml, mypy_path and pytest's rootdir-relative imports).
LOCAL_DIRS = [ROOT / "firmware", ROOT / "firmware" / "sim", ROOT / "tests" / "serial",
              ROOT / "tests" / "firmware"]  # fmt: skip


def canonical(name: str) -> str:
    """A distribution's name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> tuple[set[str], set[str]]:
    """The distributions the product needs, and those the test extra adds."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def names(requirements: list[str]) -> set[str]:
        return {canonical(re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0]) for r in requirements}

    extras = project["optional-dependencies"]
    return names(project["dependencies"]) | names(extras["pi"]), names(extras["test"])


def local(name: str, path: Path) -> bool:
    return any(
        (where / f"{name}.py").exists() or (where / name / "__init__.py").exists()
        for where in [path.parent, *LOCAL_DIRS]
    )


def imported(paths: list[Path]) -> dict[str, set[str]]:
    """Top-level names of the packages the files import, each with the files."""
    found: dict[str, set[str]] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                if top in sys.stdlib_module_names or (ROOT / top).is_dir() or local(top, path):
                    continue
                found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def undeclared(paths: list[Path], allowed: set[str]) -> list[str]:
    """Each imported package whose distribution is not among ``allowed``, with a file."""
    distributions = importlib.metadata.packages_distributions()
    missing = []
    for name, where in sorted(imported(paths).items()):
        if name in NOT_FROM_PYPI:
            continue
        owners = {canonical(d) for d in distributions.get(name, [])}
        if not owners:
            missing.append(f"{name} (imported by {min(where)}) is not installed")
        elif not owners & allowed:
            missing.append(f"{name} (imported by {min(where)}) from {sorted(owners)}")
    return missing


def test_the_product_declares_every_package_it_imports() -> None:
    product, _ = declared()
    assert undeclared(PRODUCT, product) == []


def test_tests_bench_and_tools_declare_every_package_they_import() -> None:
    product, test = declared()
    assert undeclared(AROUND, product | test) == []


def test_the_check_sees_a_package_nobody_declared() -> None:
    """The two checks above can fail: werkzeug, imported by web_ui and the settings, is
    reported when it is not in the product's dependencies."""
    product, _ = declared()
    assert "werkzeug" in product
    missing = undeclared(PRODUCT, product - {"werkzeug"})
    assert missing == ["werkzeug (imported by controller/settings.py) from ['werkzeug']"]

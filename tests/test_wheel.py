"""The wheel a Pi installs holds the product and nothing of its test rigs.

Built here as pip builds it (``pip wheel``, without build isolation so that no download
is needed: the test extra pins ``setuptools>=77``), then opened as a zip.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("controller", "web_ui", "firmware", "pyramid_board")
RIGS = ("tests", "rigs", "hardware", "tools", "bench", "firmware/sim", "firmware/emulator")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    out = tmp_path_factory.mktemp("wheel")
    # setuptools builds in the checkout's build/ (ignored by git) and keeps build/lib from
    # one build to the next: a module since renamed or removed would ship again from there.
    shutil.rmtree(ROOT / "build", ignore_errors=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation",
         "--quiet", "--wheel-dir", str(out)],
        check=True, capture_output=True, cwd=out,
    )  # fmt: skip
    (built,) = out.glob("pyramid_board-*.whl")
    with zipfile.ZipFile(built) as archive:
        return archive.namelist()


def test_the_wheel_holds_the_product_and_no_rig(wheel: list[str]) -> None:
    modules = [name for name in wheel if name.endswith(".py")]
    assert modules, "the wheel holds no module"
    for name in modules:
        assert name.startswith(tuple(f"{p}/" for p in PRODUCT)), name
        assert not name.startswith(tuple(f"{r}/" for r in RIGS)), name
    on_disk = {
        str(p.relative_to(ROOT))
        for package in PRODUCT
        for p in (ROOT / package).rglob("*.py")
        if not str(p.relative_to(ROOT)).startswith(RIGS)
    }
    assert set(modules) == on_disk, "every product module ships"
    # What the page and `pyramid flash` read at run time ships too.
    for needed in ("web_ui/static/app.js", "web_ui/templates/base.html", "firmware/main.py"):
        assert needed in wheel


def test_no_product_module_imports_a_rig() -> None:
    for package in PRODUCT:
        for path in (ROOT / package).rglob("*.py"):
            if str(path.relative_to(ROOT)).startswith(RIGS):
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                names: list[str] = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names = [node.module]
                for name in names:
                    top = name.split(".")[0]
                    assert top not in ("tests", "rigs", "hardware", "tools", "bench"), (path, name)
                    assert not name.startswith(("firmware.sim", "firmware.emulator")), (path, name)

"""The pure cores stay pure: the rules and the referee load no hardware, store, thread or
clock, so they run anywhere, in virtual time."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IO_LIBRARIES = {"gpiozero", "serial", "flask", "waitress", "sqlite3", "werkzeug"}


def loaded_by(module: str) -> list[str]:
    """Every module a fresh interpreter holds after ``import module``."""
    code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return out.stdout.split()


def test_importing_the_rules_loads_no_io_library() -> None:
    loaded = loaded_by("controller.games.perlen.rules, controller.games.pyramidos.rules, "
                       "controller.rules.records")  # fmt: skip
    assert [m for m in loaded if m.split(".")[0] in IO_LIBRARIES] == []


def test_importing_the_referee_loads_no_store_hardware_thread_or_clock() -> None:
    loaded = loaded_by("controller.referee")
    assert "controller.referee.referee" in loaded  # the face brought the reducer along
    bad = [
        m
        for m in loaded
        if m.split(".")[0] in IO_LIBRARIES | {"threading", "logging", "concurrent", "datetime"}
        or m.startswith(("controller.hardware", "controller.store", "controller.table"))
        or m == "controller.clock"
    ]
    assert bad == []


def test_the_referee_reads_no_clock() -> None:
    """``time`` is in every interpreter, so the import test cannot see it: the referee's
    source must not import it (``now`` is passed in)."""
    clocks = {"time", "datetime", "threading", "controller.clock"}
    found = []
    for path in sorted((ROOT / "controller" / "referee").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module is not None:
                names = [node.module]
            found += [
                f"{path.name}: {n}" for n in names if n.split(".")[0] in clocks or n in clocks
            ]
    assert found == []

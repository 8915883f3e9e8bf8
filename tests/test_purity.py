"""The rules core stays pure: importing it loads no hardware, serial or web library."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_rules_loads_no_io_library() -> None:
    code = (
        "import sys, controller.rules, controller.rules.perlen, controller.rules.pyramidos, "
        "controller.rules.records; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'gpiozero', 'serial', 'flask', 'waitress', 'sqlite3', 'werkzeug'}); print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

"""The web page's catalogues: extract the English source texts, update and compile.

    .venv/bin/python tools/translations.py          # extract, update de/da, compile
    .venv/bin/python tools/translations.py --check  # exit 1 if the template is not current

Source texts come from the web page (``web_ui``: ``gettext``, ``lazy_gettext``, the
templates) and from the referee's messages and each game's
(``controller/referee/messages.py``, ``controller/games/*/messages.py``: ``N_`` and ``NP_``)
and the household settings' refusals (``controller/settings.py``: ``N_``).
``tests/web/test_i18n.py`` runs the same extraction and requires every text
translated in German and Danish.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web_ui"
TRANSLATIONS = WEB / "translations"
TEMPLATE = TRANSLATIONS / "messages.pot"
SOURCES = ("web_ui", "controller/referee", "controller/games", "controller/settings.py")
KEYWORDS = ("lazy_gettext", "lazy_pgettext:1c,2", "N_", "NP_:1,2")


def pybabel() -> str:
    return str(Path(sys.executable).with_name("pybabel"))


def extract(output: Path) -> None:
    """Write the template of every source text to ``output``."""
    keywords = [arg for k in KEYWORDS for arg in ("-k", k)]
    subprocess.run(
        [
            pybabel(),
            "-q",
            "extract",
            "-F",
            str(WEB / "babel.cfg"),
            *keywords,
            "--no-location",
            "--sort-output",
            "--width=100",
            "-o",
            str(output),
            *SOURCES,
        ],
        check=True,
        cwd=ROOT,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the template")
    args = parser.parse_args(argv)
    if args.check:
        import tempfile

        from babel.messages.pofile import read_po

        with tempfile.TemporaryDirectory() as folder:
            fresh = Path(folder) / "messages.pot"
            extract(fresh)
            with fresh.open("rb") as f:
                wanted = {m.id for m in read_po(f) if m.id}
        with TEMPLATE.open("rb") as f:
            committed = {m.id for m in read_po(f) if m.id}
        return 0 if wanted == committed else 1
    extract(TEMPLATE)
    subprocess.run(
        [
            pybabel(),
            "-q",
            "update",
            "-N",
            "--ignore-obsolete",  # a text no page shows any more leaves the catalogues
            "-w",
            "100",
            "-i",
            str(TEMPLATE),
            "-d",
            str(TRANSLATIONS),
        ],
        check=True,
    )
    subprocess.run([pybabel(), "-q", "compile", "-d", str(TRANSLATIONS)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Every command the README shows runs as shown, so a newcomer's first try works.

From README.md: each ```console block's ``$`` commands run in a scratch folder (no user
config, data in that folder) with their exit status 0 and the output the README shows
(``...`` stands for anything; a port may differ); each ```sh line that starts with
``pyramid`` runs with exit status 0; each game record of the ```json block replays;
each option in the command table is one its command takes. ``make`` and ``sudo`` lines
are not run (``make test`` runs this), nor lines for a Pi's service.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.M | re.S)


@dataclass(frozen=True)
class Example:
    command: str
    shown: str
    """The output the README shows ('' when it shows none)."""


def blocks(kind: str) -> list[str]:
    return [m.group(2) for m in FENCE.finditer(README) if m.group(1) == kind]


def console_examples() -> list[Example]:
    found = []
    for block in blocks("console"):
        for part in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, shown = part.partition("\n")
            found.append(Example(command, shown.strip()))
    return found


def sh_commands() -> list[str]:
    lines = (line.split("#")[0].strip() for block in blocks("sh") for line in block.splitlines())
    return [line for line in lines if line.split()[:1] == ["pyramid"]]


def records() -> list[str]:
    return [line for block in blocks("json") for line in block.splitlines() if line.strip()]


def environment(scratch: Path) -> dict[str, str]:
    """This checkout's ``pyramid`` first on PATH; no config or data of the user's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYRAMID_")}
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(scratch),
        XDG_CONFIG_HOME=str(scratch / "config"),
        XDG_DATA_HOME=str(scratch / "data"),
    )
    return env


def localised(command: str, scratch: Path) -> str:
    """``.venv/bin/pyramid`` is this checkout's; ``/tmp/...`` folders go to the scratch."""
    command = re.sub(r"/tmp/([\w.-]+)", lambda m: str(scratch / m.group(1)), command)
    return command.replace(".venv/bin/pyramid", str(BIN / "pyramid"))  # after: it may be in /tmp


def pattern(shown: str) -> re.Pattern[str]:
    """The shown output as a pattern: ``...`` is anything, a URL's port any number."""
    parts = [re.escape(piece) for piece in shown.split("...")]
    text = ".*?".join(parts)
    text = re.sub(r"127\\\.0\\\.0\\\.1:\d+", r"127\\.0\\.0\\.1:\\d+", text)
    return re.compile(text, re.S)


def test_the_readme_has_examples_to_run() -> None:
    assert len(console_examples()) >= 2 and sh_commands() and len(records()) >= 2


@pytest.mark.parametrize("example", console_examples(), ids=lambda e: e.command[:50])
def test_each_console_example_runs_as_shown(example: Example, tmp_path: Path) -> None:
    command = localised(example.command, tmp_path)
    if example.command.startswith("pyramid run"):
        # The product runs until stopped: its one line of standard output, then SIGTERM.
        proc = subprocess.Popen(
            "exec " + command, shell=True, cwd=tmp_path, env=environment(tmp_path),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True,
        )  # fmt: skip
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline().strip()
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            code = proc.wait(20)
        assert pattern(example.shown).fullmatch(line), (line, example.shown)
        assert code == 0, proc.stderr.read() if proc.stderr else ""
        return
    done = subprocess.run(
        command, shell=True, cwd=tmp_path, env=environment(tmp_path),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert pattern(example.shown).fullmatch(done.stdout.strip()), (done.stdout, example.shown)


@pytest.mark.parametrize("command", sh_commands())
def test_each_pyramid_line_of_the_sh_blocks_runs(command: str, tmp_path: Path) -> None:
    done = subprocess.run(
        localised(command, tmp_path), shell=True, cwd=tmp_path, env=environment(tmp_path),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout, done.stderr)


@pytest.mark.parametrize("record", records(), ids=lambda r: r[:30])
def test_each_game_record_shown_replays(record: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(BIN / "pyramid"), "replay", "-"], input=record, cwd=tmp_path,
        env=environment(tmp_path), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()  # the pyramid (or the targets) and the scores


def test_a_record_with_an_illegal_move_exits_2_and_says_why(tmp_path: Path) -> None:
    """What the README promises right after its example."""
    bad = '{"game": "perlen-pyramide", "version": 1, "moves": ["c3", "c3"]}'
    done = subprocess.run(
        [str(BIN / "pyramid"), "replay", "-"], input=bad, cwd=tmp_path,
        env=environment(tmp_path), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "c3" in done.stderr and done.stdout == ""


def table_rows() -> list[tuple[str, list[str]]]:
    rows = re.findall(r"^\| `pyramid (\w+)([^`]*)` \|", README, re.M)
    return [(name, re.findall(r"--[\w-]+", rest)) for name, rest in rows]


@pytest.mark.parametrize(("name", "options"), table_rows(), ids=[r[0] for r in table_rows()])
def test_each_option_in_the_command_table_is_taken(
    name: str, options: list[str], tmp_path: Path
) -> None:
    done = subprocess.run(
        [str(BIN / "pyramid"), name, "--help"], cwd=tmp_path, env=environment(tmp_path),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for option in options:
        assert option in done.stdout, (name, option)

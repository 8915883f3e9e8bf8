"""``pyramid replay`` run as a real process, as other programs would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PYRAMID = [sys.executable, "-m", "pyramid_board.cli"]


def replay(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PYRAMID, "replay", *args], input=stdin, capture_output=True, text=True, timeout=30
    )


def test_json_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"game": "perlen-pyramide", "moves": ["c3", "d4", "d3", "c4"]}))
    done = replay(str(path), "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)  # exactly one JSON object
    assert out["game"] == "perlen-pyramide"
    assert out["placements"][-1] == {"pos": "2:c3", "colour": 0, "kind": "bonus"}


def test_json_from_standard_input() -> None:
    record = {"game": "pyramidos", "seats": 2, "events": ["land t1", "land t2"]}
    done = replay("-", "--json", stdin=json.dumps(record))
    assert done.returncode == 0
    assert json.loads(done.stdout)["points"] == [1, 1]


@pytest.mark.parametrize("as_json", [True, False])
def test_an_illegal_move_exits_2_with_nothing_on_stdout(as_json: bool) -> None:
    record = {"game": "perlen-pyramide", "moves": ["c3", "c3"]}
    done = replay("-", *(["--json"] if as_json else []), stdin=json.dumps(record))
    assert done.returncode == 2
    assert done.stdout == ""
    assert "move 2" in done.stderr and "occupied" in done.stderr


def test_missing_file_and_bad_json() -> None:
    assert replay("/nonexistent/game.json").returncode == 2
    done = replay("-", stdin="not json")
    assert done.returncode == 2 and "not JSON" in done.stderr and done.stdout == ""


def test_drawing_of_a_whole_game() -> None:
    from tests.rules.test_perlen import random_game

    _, moves, _ = random_game(5)
    done = replay(
        "-", "--colour", "never", stdin=json.dumps({"game": "perlen-pyramide", "moves": moves})
    )
    assert done.returncode == 0
    text = done.stdout
    for layer in range(1, 6):
        assert f"layer {layer}" in text
    assert "·" not in text  # the pyramid is complete
    assert "winner" in text or "shared win" in text
    assert "\x1b[" not in text


def test_pyramidos_drawing() -> None:
    record = {"game": "pyramidos", "seats": 2, "events": ["land t1"]}
    done = replay("-", "--colour", "always", stdin=json.dumps(record))
    assert "seat 0" in done.stdout and "1 point\n" in done.stdout
    assert "\x1b[" in done.stdout


def test_a_game_of_the_store_is_replayed_through_its_events(tmp_path: Path) -> None:
    import shutil

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "store-0.1.0.sqlite3"
    store = tmp_path / "games.sqlite3"
    shutil.copyfile(fixture, store)
    done = replay("--store", str(store), "--game", "2", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["points"] == [2, 3, 1]  # the result 0.1.0 stored
    newest = replay("--store", str(store), "--colour", "never")
    assert newest.returncode == 0 and "seat 0 (R): 1 point\n" in newest.stdout
    missing = replay("--store", str(store), "--game", "99")
    assert missing.returncode == 2 and "no game 99" in missing.stderr and not missing.stdout
    nothing = replay()
    assert nothing.returncode == 2 and "--store" in nothing.stderr

"""The Table refereeing Pyramidos: landings, knock-offs, ended turns, the top."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from controller.hardware.channels import ChannelMap
from controller.hardware.port import Led, LedMode
from controller.palette import WHITE
from controller.rules.records import parse_record, replay_pyramidos
from controller.table import EndTurn, NewGame, Undo
from tests.table.harness import FAST, Harness, lit, play, pyramidos_script

RED, BLUE, YELLOW = (0xD6, 0x27, 0x28), (0x1F, 0x77, 0xB4), (0xF2, 0xC5, 0x00)


def new_game(h: Harness, seats: int = 3, **kw) -> None:
    names = ("Anna", "Ben", "Cleo", "Dora")[:seats]
    reply = h.submit(NewGame("pyramidos", names, **kw))
    assert reply.ok, reply.message


@pytest.fixture
def h(tmp_path: Path):
    with Harness(tmp_path / "games.sqlite3") as harness:
        new_game(harness)
        yield harness


def kinds(h: Harness) -> list[str]:
    return [
        f"{e.kind} {e.data.get('target', '')}".strip() for e in h.store.game(h.snap.game_id).events
    ]


@pytest.mark.parametrize(("seed", "seats"), [(1, 2), (2, 3), (3, 4), (4, 3)])
def test_whole_games(tmp_path: Path, seed: int, seats: int):
    with Harness(tmp_path / "games.sqlite3") as h:
        new_game(h, seats)
        for step in pyramidos_script(seed, seats):
            play(h, step)
        snap = h.wait(lambda s: s.status == "over")
        stored = h.store.game(snap.game_id)
        state = replay_pyramidos(parse_record(dict(stored.record)))
        assert state.over and dict(snap.targets) == state.targets()
        assert stored.summary.status == "over"
        assert stored.result["points"] == list(snap.scores["points"])
        assert snap.message.startswith("Game over")


def test_a_landing_belongs_to_the_mover_and_passes_the_turn(h: Harness):
    snap = h.put("t2")
    assert snap.targets["t2"] == 0 and snap.to_move == 1 and snap.last_move == "t2"
    assert snap.message == "Anna landed on t2. Ben to move."
    assert lit(h)["t2"] == Led(RED) and lit(h)["seat:1"] == Led(BLUE)
    assert lit(h)["button:end_turn"] == Led(BLUE)


def test_end_turn_by_button_and_by_page(h: Harness):
    snap = h.press("button:end_turn")
    assert snap.to_move == 1 and snap.message == "Anna ended the turn. Ben to move."
    assert h.submit(EndTurn()).ok
    assert h.snap.to_move == 2
    game = h.store.game(h.snap.game_id)
    assert [e.data["by"] for e in game.events] == ["button", "page"]


def test_a_ball_knocked_off_counts_once_it_stays_off(tmp_path: Path):
    settings = dataclasses.replace(FAST, settle_s=0.2)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        new_game(h)
        h.put("t1")
        h.put("t3")
        snap = h.lift("t1")
        assert snap.targets["t1"] == 0 and snap.status == "mismatch"
        assert snap.message.startswith("No ball on t1 any more")
        assert lit(h)["t1"] == Led(RED, LedMode.BLINK)
        snap = h.wait(lambda s: s.targets["t1"] is None)
        assert snap.status == "playing" and snap.to_move == 2  # a knock-off keeps the turn
        assert snap.message == "The ball on t1 was knocked off. Cleo to move."
        assert kinds(h) == ["land t1", "land t3", "leave t1"]


def test_a_ball_that_wobbles_off_and_back_is_not_knocked_off(tmp_path: Path):
    settings = dataclasses.replace(FAST, settle_s=0.6)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        new_game(h)
        h.put("t1")
        for _ in range(5):
            h.lift("t1")
            time.sleep(0.03)
            h.put("t1")
            time.sleep(0.03)
        time.sleep(0.7)
        assert h.snap.targets["t1"] == 0 and kinds(h) == ["land t1"]


def test_a_knocked_ball_landing_on_another_target_is_the_movers(tmp_path: Path):
    settings = dataclasses.replace(FAST, settle_s=0.1)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        new_game(h)
        h.put("t1")  # Anna's
        h.set_names({"t2"})  # Ben's nudge knocks Anna's ball from t1 onto t2
        snap = h.wait(lambda s: s.targets["t1"] is None)
        assert snap.targets["t2"] == 1 and snap.to_move == 2
        assert kinds(h) == ["land t1", "land t2", "leave t1"]


def test_end_turn_counts_balls_that_just_fell_off(tmp_path: Path):
    settings = dataclasses.replace(FAST, settle_s=5.0)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        new_game(h)
        h.put("t1")
        h.lift("t1")  # Ben knocked it off with a ball that went into the net
        snap = h.press("button:end_turn")
        assert snap.targets["t1"] is None and snap.to_move == 2
        assert kinds(h) == ["land t1", "leave t1", "end"]


def test_ball_on_the_closed_top_is_a_mismatch(h: Harness):
    h.put("t1")
    snap = h.put("top")
    assert snap.status == "mismatch" and snap.targets["top"] is None
    assert "The top opens only when all four base targets hold a ball" in snap.message
    assert lit(h)["top"] == Led(WHITE, LedMode.BLINK)
    reply = h.submit(EndTurn())
    assert not reply.ok and "take the ball off top" in reply.message
    snap = h.lift("top")
    assert snap.status == "playing" and snap.to_move == 1


def test_the_top_opens_pulses_and_a_ball_on_it_ends_the_game(tmp_path: Path):
    with Harness(tmp_path / "g.sqlite3") as h:
        new_game(h, seats=2)
        for target in ("t1", "t2", "t3"):
            h.put(target)
        snap = h.put("t4")
        assert snap.top_open and "The top is open!" in snap.message
        assert lit(h)["top"] == Led(RED, LedMode.BLINK)
        snap = h.put("top")
        assert snap.status == "over" and snap.winners == (0,)
        assert snap.scores["points"] == (4, 2)
        assert h.store.game(snap.game_id).summary.status == "over"
        assert not h.submit(Undo()).ok


def test_two_balls_landing_at_once_are_a_mismatch(h: Harness):
    snap = h.set_names({"t1", "t2"})
    assert snap.status == "mismatch" and snap.moves == 0
    h.lift("t2")
    assert h.snap.status == "mismatch"  # the board must match before a landing counts
    h.lift("t1")
    assert h.put("t1").targets["t1"] == 0


def test_undo_a_landing_then_the_ball_must_come_off(h: Harness):
    h.put("t1")
    assert h.submit(Undo()).ok
    snap = h.snap
    assert snap.to_move == 0 and snap.targets["t1"] is None
    assert [(m.cell, m.kind.value) for m in snap.mismatches] == [("t1", "extra")]
    time.sleep(0.1)
    assert h.snap.moves == 0  # not landed again
    assert h.lift("t1").status == "playing"


def test_undo_a_knock_off_then_the_ball_must_go_back(tmp_path: Path):
    with Harness(tmp_path / "g.sqlite3") as h:
        new_game(h)
        h.put("t3")
        h.lift("t3")
        h.wait(lambda s: s.targets["t3"] is None)
        assert h.submit(Undo()).ok
        snap = h.snap
        assert snap.targets["t3"] == 0 and snap.status == "mismatch"
        assert lit(h)["t3"] == Led(RED, LedMode.BLINK)
        assert h.put("t3").status == "playing"


def test_a_pyramidos_only_board(tmp_path: Path):
    cmap = ChannelMap.default(cells=False)
    with Harness(tmp_path / "g.sqlite3", channel_map=cmap) as h:
        reply = h.submit(NewGame("perlen-pyramide", ("a", "b", "c")))
        assert not reply.ok and "only referee Pyramidos" in reply.message
        new_game(h, seats=4)
        assert h.put("t4").targets["t4"] == 0


def test_computer_players_are_for_perlen_only(h: Harness):
    reply = h.submit(NewGame("pyramidos", ("a", "b"), computer={1: "easy"}))
    assert not reply.ok and "Perlen-Pyramide only" in reply.message

"""The Table refereeing Perlen-Pyramide on a SimBoard with a real store."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from controller.hardware.port import Led, LedMode
from controller.palette import WHITE
from controller.rules import perlen
from controller.rules.records import parse_record, replay_perlen
from controller.store import StoredEvent, standing_moves
from controller.table import (
    Abort,
    ConfirmBonus,
    EndTurn,
    Hint,
    LedTest,
    NewGame,
    TableSettings,
    Undo,
)
from tests.table.harness import FAST, Harness, lit, perlen_script, play

RED, BLUE, YELLOW = (0xD6, 0x27, 0x28), (0x1F, 0x77, 0xB4), (0xF2, 0xC5, 0x00)
BONUS_OPENING = ("c3", "d4", "d3", "c4")  # the fourth pearl earns 2:c3 for colour 0


def new_game(h: Harness, **kw) -> None:
    reply = h.submit(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"), **kw))
    assert reply.ok, reply.message


@pytest.fixture
def h(tmp_path: Path):
    with Harness(tmp_path / "games.sqlite3") as harness:
        new_game(harness)
        yield harness


def events(h: Harness) -> list[tuple[str, dict]]:
    game = h.store.game(h.snap.game_id)
    return [(e.kind, dict(e.data)) for e in game.events]


# -- whole games ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_whole_games_end_as_the_rules_say_and_the_store_keeps_them(tmp_path: Path, seed: int):
    with Harness(tmp_path / "games.sqlite3") as h:
        new_game(h)
        script = perlen_script(seed)
        for step in script:
            play(h, step)
        snap = h.wait(lambda s: s.status == "over")
        stored = h.store.game(snap.game_id)
        assert stored.summary.status == "over"
        # The record in the store replays to the same pyramid the Table ended with.
        replay = replay_perlen(parse_record(dict(stored.record)))
        assert replay.state.over
        assert [(str(p), c) for p, c in replay.state.pearls()] == list(snap.pearls)
        result = perlen.outcome(replay.state)
        assert list(snap.winners) == list(result.winners)
        assert stored.result["scores"] == list(result.scores)
        assert snap.message.startswith("Game over")
        # Every acknowledgement way of the script is in the log.
        ways = {e.data.get("by") for e in stored.events if e.kind == "bonus"}
        assert ways <= {"button", "page", "pearl"}
        kinds = [s.action for s in script]
        assert kinds.count("place") == sum(1 for e in stored.events if e.kind == "move")


def test_game_over_sweeps_then_rests_calm(tmp_path: Path):
    settings = dataclasses.replace(FAST, sweep_s=0.4, sweep_step_s=0.05)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        new_game(h)
        for step in perlen_script(4):
            play(h, step)
        h.wait(lambda s: s.status == "over")
        start = len(h.board.shown)
        time.sleep(1.0)
        frames = h.board.shown[start - 1 :]
        assert len(frames) >= 5  # the sweep moved on by itself
        calm = frames[-1]
        time.sleep(0.2)
        assert h.board.shown[-1] == calm  # and then stopped
        winner = h.snap.winners[0]
        colour = h.snap.players[winner].colour.rgb
        assert lit(h)[f"seat:{h.snap.players[winner].seat}"] == Led(colour)


# -- moves and LEDs ------------------------------------------------------------------------


def test_a_move_turns_to_the_next_player_and_lights_their_seat(h: Harness):
    assert lit(h) == {"seat:0": Led(RED)}
    snap = h.put("c3")
    assert snap.status == "playing" and snap.to_move == 1 and snap.moves == 1
    assert snap.message == "Anna played c3. Ben to move."
    assert lit(h) == {"seat:1": Led(BLUE)}
    assert events(h) == [("move", {"cell": "c3", "colour": 0})]


def test_children_help_glows_legal_cells(tmp_path: Path):
    with Harness(tmp_path / "g.sqlite3") as h:
        new_game(h, children_help=True)
        h.put("c3")
        cells = {n for n in lit(h) if len(n) == 2}
        assert cells == {"b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4"}
        assert set(h.snap.legal) == cells


def test_seats_and_colours_follow_first_seat_and_chosen_colours(tmp_path: Path):
    with Harness(tmp_path / "g.sqlite3") as h:
        new_game(h, options={"first_seat": 2}, colours=("green", "orange", "cyan"))
        snap = h.snap
        assert [(p.name, p.seat, p.colour.name) for p in snap.players] == [
            ("Cleo", 2, "cyan"),
            ("Anna", 0, "green"),
            ("Ben", 1, "orange"),
        ]
        assert lit(h) == {"seat:2": Led((0x17, 0xBE, 0xCF))}
        assert h.store.game(snap.game_id).record["players"] == ["Cleo", "Anna", "Ben"]


# -- mismatches ----------------------------------------------------------------------------


def test_pearl_on_an_illegal_cell_is_a_mismatch_until_lifted(h: Harness):
    h.put("c3")
    snap = h.put("a1")  # not touching
    assert snap.status == "mismatch" and snap.moves == 1
    assert [(m.cell, m.kind.value) for m in snap.mismatches] == [("a1", "extra")]
    assert "a1 is not a legal cell" in snap.message and "Take the pearl off a1" in snap.message
    assert lit(h)["a1"] == Led(WHITE, LedMode.BLINK)
    snap = h.lift("a1")
    assert snap.status == "playing" and snap.to_move == 1
    assert lit(h) == {"seat:1": Led(BLUE)}
    assert len(events(h)) == 1


def test_several_new_pearls_at_once_never_become_a_move(h: Harness):
    h.put("c3")
    snap = h.set_names({"c3", "d4", "b2"})
    assert snap.status == "mismatch"
    assert {m.cell for m in snap.mismatches} == {"d4", "b2"}
    # Lifting one leaves a single legal new pearl: still no move, the board must match first.
    snap = h.lift("b2")
    assert snap.status == "mismatch" and snap.moves == 1
    snap = h.lift("d4")
    assert snap.status == "playing"
    snap = h.put("d4")
    assert snap.moves == 2 and snap.pearls[-1] == ("1:d4", 1)


def test_a_missing_pearl_blinks_in_its_colour_until_put_back(h: Harness):
    for cell in ("c3", "d4", "b2"):
        h.put(cell)
    snap = h.lift("c3")  # not the last pearl: no take-back
    assert snap.status == "mismatch"
    assert [(m.cell, m.kind.value, m.colour) for m in snap.mismatches] == [("c3", "missing", 0)]
    assert "put Anna's red pearl back on c3" in snap.message.lower() or (
        "Put Anna's red pearl back on c3" in snap.message
    )
    assert lit(h)["c3"] == Led(RED, LedMode.BLINK)
    time.sleep(0.1)  # longer than settle_s: still nothing taken back
    assert h.snap.moves == 3
    snap = h.put("c3")
    assert snap.status == "playing" and snap.to_move == 0


def test_a_new_pearl_while_another_is_missing_is_no_move(h: Harness):
    h.put("c3")
    h.put("d4")
    snap = h.set_names({"d4", "c4"})  # c3 gone, c4 new
    assert snap.status == "mismatch" and snap.moves == 2


def test_two_pearls_in_quick_succession_are_placed_together(tmp_path: Path):
    settings = dataclasses.replace(FAST, together_s=1.0)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        new_game(h)
        h.put("c3")
        snap = h.put("d4")
        assert snap.status == "mismatch" and snap.moves == 1
        assert "Two pearls at once" in snap.message
        h.lift("d4")
        time.sleep(1.0)
        assert h.put("d4").moves == 2


# -- take-backs ----------------------------------------------------------------------------


def test_lifting_the_last_pearl_takes_the_move_back(h: Harness):
    h.put("c3")
    h.put("d4")
    snap = h.lift("d4")
    assert snap.status == "mismatch" and snap.moves == 2  # waits settle_s first
    assert snap.message == (
        "Keep the pearl off d4 to take back Ben's move, or put it back to keep it."
    )
    assert lit(h)["d4"] == Led(BLUE, LedMode.BLINK)
    snap = h.wait(lambda s: s.moves == 1)
    assert snap.status == "playing" and snap.to_move == 1
    assert snap.message == "Took back Ben's pearl on d4. Ben to move."
    assert events(h)[-1] == ("undo", {"by": "lift", "what": "d4"})
    assert ("1:b2", 1) in h.put("b2").pearls


def test_a_brief_lift_of_the_last_pearl_takes_nothing_back(tmp_path: Path):
    settings = dataclasses.replace(FAST, settle_s=0.6)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        new_game(h)
        h.put("c3")
        h.put("d4")
        h.lift("d4")
        time.sleep(0.05)
        snap = h.put("d4")
        assert snap.status == "playing" and snap.moves == 2
        time.sleep(0.7)
        assert h.snap.moves == 2
        assert [k for k, _ in events(h)] == ["move", "move"]


def test_a_pearl_that_earned_a_bonus_cannot_be_lifted_back(h: Harness):
    for cell in BONUS_OPENING:
        h.put(cell)
    assert h.snap.status == "bonus"
    h.lift("c4")
    time.sleep(0.15)
    snap = h.snap
    assert snap.status == "mismatch" and snap.moves == 4
    assert "undo" not in [k for k, _ in events(h)]


def test_moving_the_last_pearl_to_another_cell_moves_it(h: Harness):
    h.put("c3")
    h.put("d4")
    h.set_names({"c3", "b4"})
    snap = h.wait(lambda s: s.pearls and s.pearls[-1] == ("1:b4", 1))
    assert snap.status == "playing" and snap.moves == 2 and snap.to_move == 2
    assert snap.message.startswith("Ben moved the pearl from d4 to b4.")
    assert events(h)[-2:] == [
        ("undo", {"by": "lift", "what": "d4"}),
        ("move", {"cell": "b4", "colour": 1}),
    ]


def test_undo_button_takes_back_and_the_pearl_blinks_until_lifted(h: Harness):
    h.put("c3")
    h.put("d4")
    snap = h.press("button:undo")
    assert snap.moves == 1 and snap.to_move == 1
    assert snap.status == "mismatch"
    assert [(m.cell, m.kind.value) for m in snap.mismatches] == [("d4", "extra")]
    assert lit(h)["d4"] == Led(WHITE, LedMode.BLINK)
    assert events(h)[-1] == ("undo", {"by": "button", "what": "d4"})
    # The pearl still lying there is not taken as Ben's move again.
    time.sleep(0.1)
    assert h.snap.moves == 1
    snap = h.lift("d4")
    assert snap.status == "playing" and snap.to_move == 1


def test_page_undoes_further_back_including_bonuses(h: Harness):
    for cell in BONUS_OPENING:
        h.put(cell)
    assert h.submit(ConfirmBonus()).ok
    reply = h.submit(Undo())
    assert reply.ok and "2:c3" in reply.message and "take them off" in reply.message
    assert h.submit(Undo()).ok
    snap = h.snap
    assert snap.moves == 2 and snap.to_move == 2 and snap.pending == ()
    assert {m.cell for m in snap.mismatches} == {"c4", "d3"}
    snap = h.lift("c4", "d3")
    assert snap.status == "playing"
    assert h.submit(Undo()).ok and h.submit(Undo()).ok
    reply = h.submit(Undo())
    assert not reply.ok and reply.message == "There is nothing to take back."


# -- bonus pearls --------------------------------------------------------------------------


def _bonus_chain(h: Harness) -> None:
    """Reach a position where one pearl earns two bonus pearls at once."""
    for cell in ("b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4"):
        snap = h.put(cell)
        while snap.pending:
            assert h.submit(ConfirmBonus()).ok
            snap = h.snap


def test_bonus_waits_shows_its_footprint_and_the_confirm_button_acknowledges(h: Harness):
    for cell in BONUS_OPENING:
        snap = h.put(cell)
    assert snap.status == "bonus"
    assert [(b["pos"], b["colour"], b["reason"]) for b in snap.to_dict()["pending"]] == [
        ("2:c3", 0, "majority")
    ]
    assert "Bonus pearl: Anna's red on 2:c3" in snap.message
    leds = lit(h)
    assert {n for n, led in leds.items() if led.mode is LedMode.BLINK} == {"c3", "d3", "c4", "d4"}
    assert leds["button:confirm"] == Led(RED)
    snap = h.press("button:confirm")
    assert snap.status == "playing" and snap.pending == ()
    assert ("2:c3", 0) in snap.pearls
    assert events(h)[-1] == ("bonus", {"pos": "2:c3", "colour": 0, "by": "button"})
    assert lit(h) == {"seat:1": Led(BLUE)}


def test_a_bonus_chain_is_acknowledged_one_by_one_by_button_and_page(h: Harness):
    _bonus_chain(h)
    snap = h.put("c3")  # completes four 2×2 groups
    pending = [b.position for b in snap.pending]
    assert len(pending) >= 2 and pending == sorted(pending, key=lambda p: p.index)
    snap = h.press("button:confirm")
    assert [b.position for b in snap.pending] == pending[1:]
    blinking = {n for n, led in lit(h).items() if led.mode is LedMode.BLINK}
    assert blinking == set(pending[1].footprint)
    while h.snap.pending:
        assert h.submit(ConfirmBonus()).ok
    kinds = [e for e in events(h) if e[0] == "bonus"][-len(pending) :]
    assert [d["by"] for _, d in kinds] == ["button"] + ["page"] * (len(pending) - 1)


def test_the_next_base_pearl_acknowledges_every_waiting_bonus(h: Harness):
    _bonus_chain(h)
    snap = h.put("c3")
    n = len(snap.pending)
    assert n >= 2
    mover = snap.to_move
    cell = next(c for c in snap.legal)
    snap = h.put(cell)
    assert snap.moves == 10 and (f"1:{cell}", mover) in snap.pearls
    log = events(h)
    assert [k for k, _ in log[-n - 1 :]] == ["bonus"] * n + ["move"]
    assert all(d["by"] == "pearl" for _, d in log[-n - 1 : -1])


def test_confirm_without_a_bonus_is_refused(h: Harness):
    reply = h.submit(ConfirmBonus())
    assert not reply.ok and reply.message == "No bonus pearl is waiting."
    snap = h.press("button:confirm")
    assert snap.message == "No bonus pearl is waiting." and snap.moves == 0


# -- noise ---------------------------------------------------------------------------------


def test_a_bumped_board_makes_no_move(tmp_path: Path):
    settings = dataclasses.replace(FAST, settle_s=0.6)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        new_game(h)
        for cell in ("c3", "d4", "d3"):
            h.put(cell)
        board = {"c3", "d4", "d3"}
        # A bump: readings drop and come back, ghosts appear next to pearls, over several
        # frames, and the board settles as it was.
        bumps = [
            {"c3", "d3"},
            {"c3"},
            {"c3", "c4", "d3"},
            {"c3", "c4", "d3", "d4", "e5"},
            {"c4", "d4", "d3"},
            {"d3"},
            {"d3", "d4"},
            board,
            {"c3", "d4"},  # the last pearl flickers off briefly
            board,
        ]
        for reading in bumps:
            h.set_names(reading)
        time.sleep(0.7)
        snap = h.snap
        assert snap.status == "playing" and snap.moves == 3 and snap.to_move == 0
        assert [k for k, _ in events(h)] == ["move"] * 3


def test_a_noisy_last_pearl_is_not_taken_back_by_flicker(tmp_path: Path):
    settings = dataclasses.replace(FAST, settle_s=0.5)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        new_game(h)
        h.put("c3")
        h.put("d4")
        for _ in range(10):  # flickers for a second, never off for long at a time
            h.lift("d4")
            time.sleep(0.03)
            h.put("d4")
            time.sleep(0.07)
        time.sleep(0.6)
        assert h.snap.moves == 2 and h.snap.status == "playing"


# -- computer seats and hints --------------------------------------------------------------


class FakeChooser:
    """Picks the first legal cell in reading order, after ``delay`` seconds."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.calls: list[tuple[int, str, int | None]] = []

    def __call__(self, state: perlen.PerlenState, level: str, seed: int | None) -> str:
        self.calls.append((state.base_pearls, level, seed))
        time.sleep(self.delay)
        return perlen.legal_moves(state)[0].short


def test_computer_seat_chooses_in_a_worker_and_its_cell_blinks(tmp_path: Path):
    chooser = FakeChooser(delay=0.05)
    settings = dataclasses.replace(FAST, chooser=chooser)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        new_game(h, computer={1: "medium"})
        assert h.snap.players[1].computer == "medium"
        snap = h.put("c3")
        assert snap.thinking and snap.computer_move is None
        assert lit(h)["seat:1"] == Led(BLUE, LedMode.BLINK)
        # Placing before it chose is a mismatch, not its move.
        snap = h.wait(lambda s: s.computer_move is not None)
        assert snap.computer_move == "b2" and not snap.thinking
        assert lit(h) == {"seat:1": Led(BLUE), "b2": Led(BLUE, LedMode.BLINK)}
        assert chooser.calls == [(1, "medium", snap.game_id * 1000 + 1)]
        snap = h.put("d4")  # not the computer's cell
        assert snap.status == "mismatch" and "chose b2" in snap.message
        h.lift("d4")
        snap = h.put("b2")
        assert snap.moves == 2 and snap.to_move == 2 and snap.computer_move is None


def test_a_stale_computer_answer_is_dropped(tmp_path: Path):
    chooser = FakeChooser(delay=0.3)
    settings = dataclasses.replace(FAST, chooser=chooser)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        new_game(h, computer={1: "easy"})
        h.put("c3")  # the computer starts thinking about the position after c3
        assert h.submit(Undo()).ok  # ... which is gone at once
        h.lift("c3")
        h.put("e5")
        snap = h.wait(lambda s: s.computer_move is not None, timeout=3)
        # The answer for the old position (b2, next to c3) never showed; this one fits e5.
        assert snap.computer_move == "d4"
        assert all(s != "b2" for s in [h.snap.computer_move])


def test_computer_failure_lets_a_person_place_its_pearl(tmp_path: Path):
    def broken(state, level, seed):
        raise RuntimeError("out of ideas")

    settings = dataclasses.replace(FAST, chooser=broken)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        new_game(h, computer={1: "easy"})
        h.put("c3")
        snap = h.wait(lambda s: "could not choose" in s.message)
        assert not snap.thinking
        assert h.put("d2").moves == 2


def test_hint_is_computed_off_the_table_thread(tmp_path: Path):
    seen: list[str] = []

    def hinter(state):
        seen.append(threading.current_thread().name)
        return perlen.legal_moves(state)[-1]

    settings = dataclasses.replace(FAST, hinter=hinter)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        new_game(h)
        h.put("c3")
        reply = h.submit(Hint())
        assert reply.ok
        snap = h.wait(lambda s: s.hint is not None)
        assert snap.hint == "d4" and lit(h)["d4"] == Led(BLUE, LedMode.BLINK)
        assert seen and seen[0].startswith("pyramid-bot")
        assert h.put("b2").hint is None  # a move clears it


def test_computer_seats_are_checked(tmp_path: Path):
    settings = dataclasses.replace(FAST, chooser=FakeChooser())
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        names = ("A", "", "C")
        bad = [
            ({1: "grandmaster"}, "Computer level"),
            ({5: "easy"}, "not a seat"),
            ({0: "easy", 1: "easy", 2: "easy"}, "must be a person"),
        ]
        for computer, words in bad:
            reply = h.submit(NewGame("perlen-pyramide", names, computer=computer))
            assert not reply.ok and words in reply.message
        assert h.submit(NewGame("perlen-pyramide", names, computer={"1": "easy"})).ok
        assert h.snap.players[1].name == "Computer (easy)"


# -- commands ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (NewGame("chess", ("a", "b", "c")), "Choose a game"),
        (NewGame("perlen-pyramide", ("a", "b")), "exactly three"),
        (NewGame("perlen-pyramide", ("a", "A", "c")), "names must differ"),
        (NewGame("perlen-pyramide", ("a", "", "c")), "1 to 30"),
        (NewGame("perlen-pyramide", ("a", "b", "c"), options={"pools": "many"}), "pools"),
        (NewGame("perlen-pyramide", ("a", "b", "c"), colours=("red", "red", "blue")), "both"),
        (NewGame("perlen-pyramide", ("a", "b", "c"), colours=("red", "mauve", "blue")), "mauve"),
        (NewGame("pyramidos", ("a",)), "2 to 4"),
        (EndTurn(), "Pyramidos"),
        (LedTest("z9", (1, 2, 3)), "no LED named"),
        (LedTest("c3", (1, 2, 300)), "0 to 255"),
    ],
)
def test_bad_commands_are_refused_with_a_reason(h: Harness, command, words):
    before = h.snap.game_id
    reply = h.submit(command)
    assert not reply.ok and words in reply.message
    assert h.snap.game_id == before


def test_a_new_game_aborts_the_unfinished_one(h: Harness):
    h.put("c3")
    first = h.snap.game_id
    h.lift("c3")
    new_game(h)
    assert h.store.game(first).summary.status == "aborted"
    assert h.snap.game_id != first and h.snap.moves == 0


def test_new_game_on_a_board_with_pearls_waits_for_it_to_be_cleared(h: Harness):
    h.put("c3")
    reply = h.submit(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo")))
    assert reply.ok and "Clear the board first" in reply.message
    snap = h.snap
    assert snap.status == "mismatch" and snap.message == "Take the pearl off c3."
    snap = h.lift("c3")
    assert snap.status == "playing" and snap.moves == 0


def test_abort_returns_to_idle_and_dark(h: Harness):
    h.put("c3")
    game_id = h.snap.game_id
    assert h.submit(Abort()).ok
    assert h.snap.status == "idle" and lit(h) == {}
    assert h.store.game(game_id).summary.status == "aborted"
    assert not h.submit(Abort()).ok


def test_led_test_lights_one_led_walks_all_and_stops(h: Harness):
    assert h.submit(LedTest("c3", (1, 2, 3))).ok
    assert lit(h) == {"c3": Led((1, 2, 3))}
    assert h.snap.led_test == {"led": "c3", "colour": "#010203"}
    assert h.submit(LedTest(None, (9, 9, 9))).ok
    first = set(lit(h))
    time.sleep(0.35)
    second = set(lit(h))
    assert len(first) == len(second) == 1 and first != second
    assert h.submit(LedTest()).ok
    assert lit(h) == {"seat:0": Led(RED)} and h.snap.led_test is None


def test_store_failure_shows_and_plays_nothing(h: Harness):
    h.store.close()
    snap = h.put("c3")
    assert snap.status == "mismatch" and snap.moves == 0
    assert "Could not save" in snap.message


# -- snapshots -----------------------------------------------------------------------------


def test_snapshots_are_immutable_json_and_latest_wins(h: Harness):
    sub = h.table.subscribe()
    idle = h.table.subscribe()  # never read: must not hold anything up
    first = sub.get(timeout=1)
    assert first is h.snap
    for cell in ("c3", "d4", "d3"):
        h.put(cell)
    latest = sub.get(timeout=1)
    assert latest.version == h.snap.version and latest.moves == 3  # older ones skipped
    assert sub.get(timeout=0.05) is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        latest.status = "over"  # type: ignore[misc]
    data = latest.to_dict()
    assert json.loads(latest.json) == json.loads(json.dumps(data))
    assert set(data) >= {
        "version", "game", "game_id", "status", "players", "to_move", "pearls", "pending",
        "mismatches", "scores", "pools_left", "targets", "top_open", "over", "winners",
        "legal", "hint", "computer_move", "message", "sensors", "link", "toggles", "moves",
        "options", "children_help",
    }  # fmt: skip
    assert data["link"]["adapter"] == "sim" and data["sensors"] == ["c3", "d3", "d4"]
    assert data["toggles"]["c3"] == 1
    sub.close()
    idle.close()
    assert sub.get(timeout=0.01) is None


def test_stop_blanks_the_leds_and_refuses_commands(tmp_path: Path):
    h = Harness(tmp_path / "g.sqlite3").start()
    new_game(h)
    h.put("c3")
    h.table.stop()
    assert not any(led.lit for led in h.board.led_frame.leds)
    assert not h.submit(Undo()).ok
    h.store.close()


def test_settings_are_checked():
    with pytest.raises(ValueError):
        TableSettings(settle_s=-1)
    with pytest.raises(ValueError):
        TableSettings(sweep_step_s=0)


def test_the_real_computer_player_and_hints(tmp_path: Path):
    settings = dataclasses.replace(FAST, computer_budget_s=0.05, hint_budget_s=0.05)
    with Harness(tmp_path / "g.sqlite3", settings) as h:
        new_game(h, computer={1: "gentle", 2: "strong"})
        while h.snap.status != "over":
            snap = h.snap
            while snap.pending:
                assert h.submit(ConfirmBonus()).ok
                snap = h.snap
            if snap.status == "over":
                break
            if snap.players[snap.to_move].computer:
                snap = h.wait(lambda s: s.computer_move is not None, timeout=10)
                h.put(snap.computer_move)
            else:
                assert h.submit(Hint()).ok
                snap = h.wait(lambda s: s.hint is not None, timeout=10)
                assert snap.hint in snap.legal
                h.put(snap.hint)
        stored = h.store.game(h.snap.game_id)
        assert stored.summary.status == "over" and len(stored.record["moves"]) == 25
        assert [p.computer for p in stored.players] == [None, "gentle", "strong"]


def test_every_event_is_in_the_store_before_the_leds_or_the_page_show_it(tmp_path: Path):
    path = tmp_path / "g.sqlite3"
    with Harness(path) as h:
        other = sqlite3.connect(path, check_same_thread=False)  # another reader, like a page

        def stored_moves() -> int:
            rows = other.execute("SELECT seq, kind, data FROM events WHERE game_id = ("
                                 "SELECT max(id) FROM games) ORDER BY seq").fetchall()  # fmt: skip
            events = [StoredEvent(seq, 0, kind, json.loads(data)) for seq, kind, data in rows]
            return len(standing_moves("perlen-pyramide", events))

        checked: list[tuple[int, int]] = []
        show = h.board.show

        def checking_show(frame):
            session = h.table._session  # the owner thread is the caller: safe to look
            if session is not None:
                checked.append((len(session.game.steps), stored_moves()))
            show(frame)

        h.board.show = checking_show
        new_game(h)
        sub = h.table.subscribe()
        pages: list[tuple[int, int]] = []
        done = threading.Event()

        def page() -> None:
            while not done.is_set():
                snap = sub.get(timeout=0.05)
                if snap is not None and snap.game_id is not None:
                    pages.append((snap.moves, stored_moves()))

        reader = threading.Thread(target=page)
        reader.start()
        for step in perlen_script(12)[:30]:
            play(h, step)
        done.set()
        reader.join()
        sub.close()
        assert len(checked) > 20 and len(pages) > 5
        assert all(stored >= shown for shown, stored in checked)
        assert all(stored >= shown for shown, stored in pages)

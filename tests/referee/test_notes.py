"""What the page says is always current: the note (what happened) lasts until the next
thing happens on the board; the prompt (what to do) is worked out from the state each
time. Pure: the referee in virtual time."""

from __future__ import annotations

from pathlib import Path

from controller.games.pyramidos.commands import EndTurn
from rigs.referee import Play


def test_a_new_game_is_announced_once_then_the_board_speaks(p: Play) -> None:
    assert p.said() == "Game 1 has started: Anna, Ben and Cleo. Anna to move."
    p.play("a1")
    assert "has started" not in p.said()


def test_a_refused_button_press_is_forgotten_once_the_board_changes(p: Play) -> None:
    p.play("c3")
    p.press("button:end_turn")
    assert p.said() == "The End turn button does nothing in Perlen-Pyramide. Ben to move."
    p.lift("c3")
    p.put("c3")  # lifted and put back: nothing happened, and the old words are gone
    assert p.said() == "Ben to move."


def test_a_resumed_game_stops_saying_it_waits_once_the_board_matches(tmp_path: Path) -> None:
    from controller.referee.resume import resume
    from controller.store import Store

    first = Play().new()
    first.play("c3", "d4")
    store = Store(tmp_path / "g.sqlite3")
    number = store.create_game(
        "perlen-pyramide", first.ledger.games[1]["players"], {}, children_help=False
    )
    store.append(number, first.ledger.games[1]["events"])
    p = Play()
    p.state = resume(p.state, store.unfinished(), p.now).state
    store.close()
    p.set(set())  # the Table's first look at the board, as it is after the restart
    assert p.said() == (
        "Game 1 resumed after 2 moves. Put Anna's red pearl back on c3 and put Ben's blue "
        "pearl back on d4."
    )
    p.set({"c3", "d4"})
    assert p.said() == "Cleo to move."


def test_a_pyramidos_end_turn_refusal_names_the_fix_once() -> None:
    p = Play().new("pyramidos", ("Anna", "Ben"))
    p.play("t1", "top")
    reply = p.do(EndTurn())
    assert not reply.ok
    # "The top opens only …" and "take off the ball with the red ✕ (the top)"
    assert p.said().count("top") == 2

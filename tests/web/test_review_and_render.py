"""The computer's review on the replay page, the lost-link banner, and the docstring examples."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from controller.referee.snapshot import LinkView
from rigs.poll import wait_until
from rigs.web import Rig, build_rig, close_rig
from web_ui import render
from web_ui.app import WebSettings
from web_ui.games.perlen.view import PERLEN_VIEW
from web_ui.games.view import MoveLoss
from web_ui.reviews import Review


def test_a_finished_game_is_reviewed_move_by_move(tmp_path: Path) -> None:
    rig = build_rig(tmp_path, web=WebSettings(heartbeat=0.3, review_budget=0.01))
    try:
        rig.new_perlen(("Anna", "Ben", "Cleo"))
        game_id = rig.play_perlen_to_end()["game_id"]
        client = rig.app.test_client()
        first = client.get(f"/history/{game_id}").get_data(as_text=True)
        assert "The computer is reviewing the moves" in first
        reviewer = rig.app.extensions["pyramid"].reviewer
        review = wait_until(
            lambda: (r := reviewer.get(game_id, {}, PERLEN_VIEW)).state != "working" and r,
            timeout=60,
        )
        assert review.state == "ready" and len(review.moves) == 25
        assert all(m.loss >= 0 for m in review.moves)
        page = client.get(f"/history/{game_id}").get_data(as_text=True)
        assert page.count('class="loss') == 25  # costly, about as good, or the best
    finally:
        close_rig(rig)


def test_the_review_says_best_about_as_good_or_cost_and_what_cost_means(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig.new_perlen(("Anna", "Ben", "Cleo"))
    game_id = rig.play_perlen_to_end()["game_id"]
    moves = (
        MoveLoss(1, 0, "a1", "a1", 0.0),  # the best (or a move alike to it)
        MoveLoss(2, 1, "b1", "c3", 0.0),  # about as good: not surely worse
        MoveLoss(3, 2, "c1", "b2", 1.3),  # surely worse
    )
    reviewer = rig.app.extensions["pyramid"].reviewer
    monkeypatch.setattr(reviewer, "get", lambda *args: Review("ready", moves))
    client = rig.app.test_client()
    page = client.get(f"/history/{game_id}").get_data(as_text=True)
    # The list says it as the step does: the better cell is the one with the ring.
    assert "✓ The best move." in page
    assert "≈ About as good as the cell with the ring (c3)." in page
    assert "Better: the cell with the ring (b2). This move cost about 1.3 visible pearls." in page
    assert "best was" not in page
    assert "names a cost only when it is sure of it (99 times in 100)" in page
    german = client.get(f"/history/{game_id}", headers={"Accept-Language": "de"})
    text = german.get_data(as_text=True)
    assert "≈ Etwa so gut wie das Feld mit dem Ring (c3)." in text
    assert "in 99 von 100 Fällen" in text


def test_a_game_is_reviewed_as_soon_as_it_ends_and_its_moves_show_it(tmp_path: Path) -> None:
    """With a live page open (the hub runs), the review starts when the game is over and
    stored, before anyone opens its replay; the moves fragment the replay page asks for
    again shows the review once it is there."""
    rig = build_rig(tmp_path, web=WebSettings(heartbeat=0.3, review_budget=0.01))
    try:
        web = rig.app.extensions["pyramid"]
        web.hub.start()
        rig.new_perlen(("Anna", "Ben", "Cleo"))
        game_id = rig.play_perlen_to_end()["game_id"]
        wait_until(lambda: web.reviewer.known(game_id), 10, what="the review never started")
        client = rig.app.test_client()

        def moves() -> str:
            return client.get(f"/history/{game_id}/moves?step=3").get_data(as_text=True)

        ready = wait_until(lambda: m if 'data-review="ready"' in (m := moves()) else None, 60)
        assert ready.count('class="loss') == 25
        assert '<li data-step="3" aria-current="step">' in ready
        assert client.get(f"/history/{game_id}/moves?step=x").status_code == 400
    finally:
        close_rig(rig)


def test_a_lost_board_link_is_said_on_the_live_page(rig: Rig) -> None:
    link = LinkView(
        "serial", "lost", 0.0, "no line from /dev/ttyACM0 for 3 s", {"dropped_lines": 7}
    )
    snapshot = dataclasses.replace(rig.table.snapshot, link=link)
    with rig.app.test_request_context("/", headers={"Accept-Language": "en"}):
        status = render.live_fragments(snapshot)["live-status"]
        diag = render.diagnostics_fragments(snapshot)["diag-link"]
    assert "The board's link is lost." in status
    assert "serial lines dropped</dt><dd>7</dd>" in diag and "link-lost" in diag
    assert "no line from /dev/ttyACM0 for 3 s" in diag  # the maker's detail, on diagnostics

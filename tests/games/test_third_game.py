"""A third game, registered from the tests (``tests/games/toy``), plays through the referee,
the store and the page exactly as the product's two do: the seam a game fills is the
whole of what a game needs, and nothing outside a game's package names it
(``tests/test_layers.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from controller.clock import SystemClock
from controller.games.registry import GAMES
from controller.hardware.channels import ChannelMap
from controller.hardware.sim import SimBoard
from controller.referee.commands import NewGame, Undo
from controller.referee.game import GameKind
from controller.referee.messages import english
from controller.referee.state import RefereeConfig
from controller.settings import Settings
from controller.store import Store
from controller.table import Table, TableSettings
from rigs.poll import wait_until
from rigs.referee import FAST, Play
from rigs.web import PIN, unlocked
from tests.games.toy.game import NAME, THREE_IN_A_ROW, RowParts
from tests.games.toy.view import ROW_VIEW
from web_ui.app import close_app, create_app
from web_ui.games.registry import VIEWS

WITH_THIRD: Mapping[str, GameKind] = {**GAMES, NAME: THREE_IN_A_ROW}
"""The product's games and the third one (mypy checks it fills the GameKind seam)."""


def test_the_referee_plays_it_to_the_end_and_takes_a_move_back() -> None:
    import dataclasses

    p = Play(dataclasses.replace(FAST, games=WITH_THIRD))
    refused = p.do(NewGame(NAME, ("Ann", "Bo", "Cy")))
    assert not refused.ok and refused.message is not None
    assert english(refused.message) == "Three in a row is for two players."
    p.new(NAME, ("Ann", "Bo"))
    snap = p.play("a1", "b1")
    assert snap.game == NAME and snap.to_move == 0 and snap.moves == 2
    assert p.lit["a1"].colour != p.lit["b1"].colour  # each piece in its player's colour
    p.put("e5")  # not on its board: nothing happens
    assert p.snap.moves == 2
    p.lift("e5")
    assert p.do(Undo()).ok and p.snap.moves == 1
    p.lift("b1")
    snap = p.play("b1", "a2", "b2", "a3")
    assert snap.status == "over" and snap.winners == (0,) and snap.points == (1, 0)
    assert p.said() == "Ann played a3. Game over: Ann wins with 1 point!"
    assert [kind for kind, _ in p.events] == ["mark"] * 2 + ["undo"] + ["mark"] * 4


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    cmap = ChannelMap.default()
    board = SimBoard(cmap.channel_count, cmap.led_count)
    store = Store(tmp_path / "games.sqlite3")
    Settings(store).set_pin(PIN)
    rules = RefereeConfig(together_s=0.0, settle_s=0.05)
    settings = TableSettings(rules=rules, games=WITH_THIRD, clock=SystemClock())
    table = Table(board, cmap, store, settings)
    table.start()
    yield table
    table.stop()
    board.close()
    store.close()


def test_the_store_keeps_it_and_a_restart_resumes_it(tmp_path: Path) -> None:
    cmap = ChannelMap.default()
    path = tmp_path / "games.sqlite3"
    settings = TableSettings(games=WITH_THIRD, clock=SystemClock())

    def started(pieces: set[str]) -> tuple[Table, SimBoard, Store]:
        board = SimBoard(cmap.channel_count, cmap.led_count)
        board.set_active(cmap.channel(name) for name in pieces)
        store = Store(path)
        table = Table(board, cmap, store, settings)
        table.start()
        return table, board, store

    table, board, store = started(set())
    try:
        assert table.submit(NewGame(NAME, ("Ann", "Bo"))).ok
        for cell in ("c3", "b2"):
            frame = board.set_channel(cmap.channel(cell), True)
            assert frame is not None and table.handled(frame.seq, timeout=10) is not None
        wait_until(lambda: table.snapshot.moves == 2, timeout=10)
    finally:
        table.stop()
        board.close()
        store.close()
    table, board, store = started({"c3", "b2"})
    try:
        wait_until(lambda: table.snapshot.game == NAME, timeout=10)
        snap = table.snapshot
        assert snap.moves == 2 and snap.to_move == 0
        assert isinstance(snap.parts, RowParts) and snap.parts.cells["b2"] == 1
        kept = table.history.game(snap.game_id or 0)
        assert kept is not None and kept.record["moves"] == ["c3", "b2"]
        assert [e.kind for e in kept.events] == ["mark", "mark"]
    finally:
        table.stop()
        board.close()
        store.close()


@pytest.fixture
def client(table: Table) -> Iterator[FlaskClient]:
    app = create_app(table=table, testing=True, views={**VIEWS, NAME: ROW_VIEW})
    yield app.test_client()
    close_app(app)


def test_the_page_offers_it_starts_it_draws_it_and_replays_it(
    table: Table, client: FlaskClient
) -> None:
    setup = client.get("/setup").get_data(as_text=True)
    assert f'value="{NAME}"' in setup and "two players, three in a row wins" in setup
    headers = {"X-CSRFToken": unlocked(client)}
    players = [{"name": "Ann", "colour": "red"}, {"name": "Bo", "colour": "blue"}]
    started = client.post("/api/game", json={"game": NAME, "players": players}, headers=headers)
    assert started.status_code == 200, started.get_json()
    for cell in ("a1", "b1", "a2", "b2", "a3"):
        answer = client.post("/api/virtual", json={"name": cell, "action": "on"}, headers=headers)
        assert answer.status_code == 200, answer.get_json()
    live = client.get("/").get_data(as_text=True)
    assert "Three in a row" in live and re.search(r'data-cell="a3">a3: Ann<', live)
    assert "Ann wins!" in live and "(red, R)" in live  # the winner line: her pearl and name
    game_id = table.snapshot.game_id
    replay = client.get(f"/history/{game_id}?step=2").get_data(as_text=True)
    assert re.search(r'data-cell="b1">b1: Bo<', replay) and 'data-cell="a2">a2: ·<' in replay
    assert client.get("/leaderboard?game=" + NAME).status_code == 200
    # A game the page has no view for is still shown: its points, no drawing.
    bare = create_app(table=table, testing=True, views=VIEWS)
    try:
        page = bare.test_client().get("/").get_data(as_text=True)
        assert "This game has no drawing on this page" in page
    finally:
        close_app(bare)

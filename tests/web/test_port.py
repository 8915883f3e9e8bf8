"""The page's one way into the program is the Table (web_ui.state.TablePort): the
controller imports no web code (only the composition root above both does), the page
writes no store and names no adapter, and the virtual board is a capability the board
offers, not a class the page knows."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from controller.clock import SystemClock
from controller.games.registry import GAMES
from controller.hardware.channels import ChannelMap
from controller.hardware.sim import SimBoard
from controller.referee.state import RefereeConfig
from controller.store import Store
from controller.table import Table, TableSettings
from rigs.web import PIN, compiled_once, csrf, give_pin
from web_ui.app import close_app, create_app
from web_ui.games.registry import VIEWS

ROOT = Path(__file__).resolve().parents[2]
COMPOSITION_ROOT = ROOT / "pyramid_board" / "run.py"
"""``pyramid run`` builds everything, the web page too: it sits above the controller and
the page, outside both."""


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports (at the top or inside functions)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_the_controller_imports_no_web_code_only_the_composition_root_does() -> None:
    reaching = sorted(
        str(path.relative_to(ROOT))
        for path in (*(ROOT / "controller").rglob("*.py"), *(ROOT / "web_ui").rglob("*.py"))
        if (
            any(name.split(".")[0] in ("web_ui", "pyramid_board") for name in imported(path))
            and path.parts[len(ROOT.parts)] == "controller"
        )
        or any(name.split(".")[0] == "pyramid_board" for name in imported(path))
    )
    assert reaching == []
    # The check above looks at real imports: the root's are found.
    assert {"web_ui.app", "controller.table"} <= imported(COMPOSITION_ROOT)


def test_the_page_names_no_adapter_and_writes_no_store_itself() -> None:
    sources = {p: p.read_text(encoding="utf-8") for p in (ROOT / "web_ui").glob("*.py")}
    adapters = {"controller.hardware.sim", "controller.hardware.gpio", "controller.hardware.serial"}
    assert [p.name for p in sources if imported(p) & adapters] == []
    for word in ("set_setting", "get_setting", "SimBoard", "web.store", "state().store"):
        assert [p.name for p, text in sources.items() if word in text] == [], word


class Wood(SimBoard):
    """Models a board with real sensors (reed switches under wood): the same in-memory
    sensors, set here only as a hand on the wood would, and nothing the page may touch."""

    adapter = "wood"

    def touchable(self) -> None:
        return None


@pytest.fixture
def wood(tmp_path: Path) -> Iterator[tuple[FlaskClient, Wood, Table]]:
    cmap = ChannelMap.default()
    board = Wood(cmap.channel_count, cmap.led_count)
    store = Store(tmp_path / "games.sqlite3")
    give_pin(store)
    settings = TableSettings(rules=RefereeConfig(together_s=0.0), clock=SystemClock(), games=GAMES)
    table = Table(board, cmap, store, settings)
    table.start()
    app = compiled_once(create_app(table=table, testing=True, views=VIEWS))
    try:
        yield app.test_client(), board, table
    finally:
        close_app(app)
        table.stop()
        board.close()
        store.close()


def test_a_board_with_real_sensors_cannot_be_touched_from_the_page(
    wood: tuple[FlaskClient, Wood, Table],
) -> None:
    client, board, table = wood
    session = client.get("/api/session").get_json()
    assert session["virtual"] is False
    headers = {"X-CSRFToken": session["csrf_token"]}
    assert client.post("/api/unlock", json={"pin": PIN}, headers=headers).status_code == 200
    headers = {"X-CSRFToken": client.get("/api/session").get_json()["csrf_token"]}
    before = board.read()
    for action in ("on", "toggle", "clear"):
        name = "board" if action == "clear" else "c3"
        refused = client.post(
            "/api/virtual", json={"name": name, "action": action}, headers=headers
        )
        assert refused.status_code == 409, action
        assert "real sensors" in refused.get_json()["error"]
    assert board.read() == before  # nothing was set on the wood
    assert table.touchable is None and SimBoard(4, 1).touchable() is not None
    assert 'data-sim-board="0"' in client.get("/").get_data(as_text=True)


def test_the_settings_page_reads_and_writes_through_the_tables_settings(
    wood: tuple[FlaskClient, Wood, Table],
) -> None:
    client, _board, table = wood
    token = csrf(client)
    done = client.post(
        "/settings/language", data={"language": "da", "csrf_token": token, "pin": PIN}
    )
    assert done.status_code == 302 and table.household.language == "da"
    german = client.post(
        "/settings/volume",
        data={"volume": "35", "csrf_token": csrf(client)},
        headers={"Accept-Language": "de"},
    )
    assert german.status_code == 400 and table.household.volume == 100
    assert "Die Lautstärke" in german.get_data(as_text=True)

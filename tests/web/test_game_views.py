"""One definition per game on the page (web_ui/games): each game's view names a template
of macros in its own folder, the shared templates ask the view instead of comparing game
names, and the pages of both games use them."""

from __future__ import annotations

import re
from pathlib import Path

from flask.testing import FlaskClient

from controller.games.registry import GAMES as KINDS
from rigs.web import Rig
from web_ui.games.registry import VIEWS as GAME_VIEWS
from web_ui.games.view import plain_view
from web_ui.state import state_of

WEB = Path(__file__).resolve().parents[2] / "web_ui"
MACROS = (
    "board",
    "score_heading",
    "points_heading",
    "record_heading",
    "step_said",
    "tagline",
    "status_note",
    "put_back",
    "buttons",
    "clear_label",
    "todo",
    "bar_todo",
    "command_button",
    "setup_fields",
    "rules_nav",
    "rules",
)
BRANCH = re.compile(
    r"(==|!=|===|!==) *['\"]?(pyramidos|perlen-pyramide|PERLEN|PYRAMIDOS)"
    r"|(pyramidos|perlen-pyramide)['\"]? *(==|!=)"
)
"""A comparison with a game's name: a branch on the kind of game."""


def test_every_game_view_defines_every_part_the_shared_templates_ask_for(rig: Rig) -> None:
    env = rig.app.jinja_env
    state = state_of(rig.app)
    plain = plain_view(KINDS["pyramidos"])
    for view in (*GAME_VIEWS.values(), plain):
        folder = view.folder or WEB / "templates"
        source = (folder / view.template).read_text(encoding="utf-8")
        defined = set(re.findall(r"{%-? macro (\w+)\(", source))
        assert defined == set(MACROS), view.name
        env.get_template(view.template)  # it parses, from the folder the page looks in
    for view in GAME_VIEWS.values():
        assert state.view_of(view.name) is view
    assert set(GAME_VIEWS) == set(KINDS)  # every game the referee knows has its view
    assert state.view_of("chess") is None and state.view_of(None) is None


def test_no_template_script_or_view_compares_game_names() -> None:
    """The page asks a game's view (web_ui/games) what differs."""
    files = [
        *sorted((WEB / "templates").glob("*.html")),
        WEB / "static" / "app.js",
        *sorted(WEB.glob("*.py")),
    ]
    branching = [p.name for p in files if BRANCH.search(p.read_text(encoding="utf-8"))]
    assert branching == []
    assert BRANCH.search('{% if game == "pyramidos" %}')  # the check can fail


def test_the_setup_page_offers_each_game_with_its_seats(rig: Rig, client: FlaskClient) -> None:
    page = client.get("/setup").get_data(as_text=True)
    radios = dict(re.findall(r'<input type="radio" name="game" value="([\w-]+)"([^>]*)>', page))
    assert list(radios) == list(GAME_VIEWS)
    assert 'data-seats="3"' in radios["perlen-pyramide"] and "checked" in radios["perlen-pyramide"]
    assert "data-seats" not in radios["pyramidos"]  # 2 to 4: the seats field says
    assert "three players build a pyramid of pearls" in page
    assert "2 to 4 players nudge balls onto the targets" in page


def test_each_games_own_parts_are_on_its_live_page(rig: Rig, client: FlaskClient) -> None:
    rig.new_perlen()
    perlen = client.get("/").get_data(as_text=True)
    assert "layers-board" in perlen and "Visible pearls" in perlen
    assert 'data-virtual="button:confirm"' in perlen and "button:end_turn" not in perlen
    rig.new_pyramidos()
    rig.wait(lambda s: s["game"] == "pyramidos")
    pyramidos = client.get("/").get_data(as_text=True)
    assert "pyramidos-board" in pyramidos and "layers-board" not in pyramidos
    assert "<h2>Points</h2>" in pyramidos and "The top opens once" in pyramidos
    assert 'data-virtual="button:end_turn"' in pyramidos and "button:confirm" not in pyramidos
    assert "The top opens once" not in perlen

"""Every page, in every state, rendered by the Flask test client from the real Table."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from controller.games.pyramidos.commands import EndTurn
from rigs.web import PIN, Rig, csrf

PAGES = (
    "/",
    "/setup",
    "/setup?game=pyramidos",
    "/history",
    "/leaderboard",
    "/leaderboard?game=pyramidos",
    "/rules",
    "/diagnostics",
    "/settings",
    "/unlock",
)


def text(response: TestResponse) -> str:
    return response.get_data(as_text=True)


def test_every_page_renders_with_no_game(rig: Rig, client: FlaskClient) -> None:
    for path in PAGES:
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.mimetype == "text/html"
        assert "<!doctype html>" in text(response)
    assert "No game is being played" in text(client.get("/"))


def test_live_page_draws_the_pyramid_with_pearls_turn_and_scores(
    rig: Rig, client: FlaskClient
) -> None:
    rig.new_perlen()
    for cell in ("c3", "d4", "d3", "c4"):
        moves = rig.snapshot()["moves"]
        rig.place(cell)

        def moved(s: dict[str, Any], m: int = moves) -> bool:
            return bool(s["moves"] > m)

        rig.wait(moved)
    page = text(client.get("/"))
    # The bonus pearl of the worked example (RULES.md) is waiting on 2:c3 in red: the list
    # of bonus pearls names its place as the family sees it, the notation after it.
    assert "red (R), on top of the four blinking pearls (2:c3)" in page
    assert "red (R) on 2:c3" not in page
    assert 'aria-label="c3: Anna (red, R) pearl, hidden inside, under the next bonus pearl"' in page
    assert "c4: Anna (red, R) pearl, hidden inside, under the next bonus pearl, just placed" in page
    assert "2:c3: empty, hidden inside, bonus pearl due here: Anna (red, R)" in page
    assert 'data-virtual="c3"' in page  # the sim board makes base cells clickable
    assert "Ben (blue, B) to move" in page
    assert "Visible pearls" in page and "/41" in page
    assert 'class="pyramid-side"' in page and 'class="pyramid-layers"' in page


def test_live_page_shows_pyramidos_targets_and_points(rig: Rig, client: FlaskClient) -> None:
    rig.new_pyramidos(("Anna", "Ben", "Cleo"))
    rig.place("t2")
    rig.wait(lambda s: s["targets"].get("t2") == 0)
    page = text(client.get("/"))
    assert 'class="targets"' in page
    assert 'data-virtual="t2"' in page and 'data-virtual="top"' in page
    assert "t2: ball of Anna (red, R)" in page
    assert "Points" in page and "/6" in page
    assert "The top opens once all four base targets hold a ball." in page


def test_mismatch_and_link_are_explained(rig: Rig, client: FlaskClient) -> None:
    rig.new_perlen()
    rig.place("c3")
    rig.wait(lambda s: s["moves"] == 1)
    rig.place("a1")  # does not touch c3: not a legal move, so a mismatch
    rig.wait(lambda s: s["status"] == "mismatch")
    page = text(client.get("/"))
    assert "The board does not match the game" in page
    assert '<li class="take-off">Take off the pearl with the red ✕ (a1).</li>' in page


def test_history_replay_and_leaderboard_after_a_whole_game(rig: Rig, client: FlaskClient) -> None:
    rig.new_perlen(("Anna", "Ben", "Cleo"))
    final = rig.play_perlen_to_end()
    game_id = final["game_id"]
    history = text(client.get("/history"))
    assert f'href="/history/{game_id}"' in history
    replay = client.get(f"/history/{game_id}")
    assert replay.status_code == 200
    body = text(replay)
    assert "data-replay" in body and "25 / 25" in body
    first = client.get(f"/history/{game_id}?step=0")
    assert "Before the first move" in text(first)
    fragment = client.get(f"/history/{game_id}/step/4")
    assert fragment.status_code == 200 and "<html" not in text(fragment)
    assert "Step 4" in text(fragment)
    assert client.get(f"/history/{game_id}/step/26").status_code == 404
    assert client.get(f"/history/{game_id}?step=x").status_code == 400
    board = text(client.get("/leaderboard"))
    for name in ("Anna", "Ben", "Cleo"):
        assert f"<td>{name}</td>" in board


@pytest.mark.parametrize(
    ("lang", "sentences"),
    [
        (
            "en",
            (
                "Oma's ball landed on the front left corner.",
                "Oma's ball on the front left corner was knocked off.",
                "Jonas ended the turn.",
            ),
        ),
        (
            "de",
            (
                "Die Kugel von Oma ist auf der vorderen linken Ecke gelandet.",
                "Die Kugel von Oma auf der vorderen linken Ecke wurde heruntergestoßen.",
                "Jonas hat den Zug beendet.",
            ),
        ),
    ],
)
def test_the_pyramidos_history_speaks_in_sentences(
    rig: Rig, client: FlaskClient, lang: str, sentences: tuple[str, ...]
) -> None:
    rig.new_pyramidos(("Oma", "Jonas"))
    rig.place("t1")  # Oma lands on t1: Jonas to move
    rig.wait(lambda s: s["targets"].get("t1") == 0)
    rig.place("t1", on=False)  # her ball falls off and stays off: knocked off
    rig.wait(lambda s: s["targets"].get("t1") is None)
    assert rig.table.submit(EndTurn()).ok  # Jonas's ball rests on earth: he ends his turn
    game_id = rig.snapshot()["game_id"]
    page = text(client.get(f"/history/{game_id}", headers={"Accept-Language": lang}))
    moves = html.unescape(page.split('class="moves"', 1)[1])
    for sentence in sentences:
        assert sentence in moves
    assert "leave t1" not in moves and ": end" not in moves


def test_missing_things_are_404_not_500(client: FlaskClient) -> None:
    assert client.get("/history/999").status_code == 404
    assert client.get("/history/99999999999999999999999").status_code == 404
    assert client.get("/history?page=0").status_code == 400
    assert client.get("/history?page=5").status_code == 404
    assert client.get("/nowhere").status_code == 404
    assert client.get("/leaderboard?game=chess").status_code == 400
    assert client.post("/rules").status_code in (400, 405)


def test_diagnostics_lists_every_sensor_by_name_live(rig: Rig, client: FlaskClient) -> None:
    rig.place("b4")
    rig.wait(lambda s: "b4" in s["sensors"])
    page = text(client.get("/diagnostics"))
    for name in ("a1", "e5", "t1", "top", "button:confirm", "button:undo"):
        assert f'id="sensor-{name.replace(":", "-")}"' in page
    assert re.search(r'<li class="on" id="sensor-b4">', page)
    assert "sensor frames" in page and "Confirm button" in page
    assert "simulated board (no hardware)" in page


def test_language_follows_the_browser_and_the_cookie(rig: Rig, client: FlaskClient) -> None:
    german = client.get("/rules", headers={"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"})
    assert '<html lang="de">' in text(german)
    danish = client.get("/rules", headers={"Accept-Language": "da"})
    assert '<html lang="da">' in text(danish)
    other = client.get("/rules", headers={"Accept-Language": "fr"})
    assert '<html lang="en">' in text(other)
    client.set_cookie("lang", "da")
    assert '<html lang="da">' in text(client.get("/", headers={"Accept-Language": "de"}))


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ("up to %s s a move", "answers at once")),
        ("de", ("bis zu %s s pro Zug", "antwortet er sofort")),
        ("da", ("op til %s s pr. træk", "svarer den med det samme")),
    ],
)
def test_the_setup_promises_the_computer_s_time_as_it_plans_it(
    client: FlaskClient, lang: str, words: tuple[str, str]
) -> None:
    """Issue 37, point 13: the strongest level thinks up to its budget, less when its
    planned work is done, and not at all once it counts the endgame out: the page says
    "up to", and why it can be at once."""
    from controller.games.perlen.bot.player import LEVEL_SETTINGS

    budget = LEVEL_SETTINGS["strongest"].budget
    page = text(client.get("/setup", headers={"Accept-Language": lang}))
    up_to, at_once = words
    assert up_to % f"{budget:g}" in page and at_once in page


def test_a_setup_mistake_shows_the_form_again_with_what_was_entered(
    rig: Rig, client: FlaskClient
) -> None:
    from rigs.web import PIN, csrf

    token = csrf(client, "/setup")
    form = {
        "csrf_token": token,
        "game": "perlen-pyramide",
        "name_0": "Anna",
        "name_1": "Benjamin Alexander Maximilian",
        "name_2": "Cleo",
        "colour_0": "red",
        "colour_1": "blue",
        "colour_2": "yellow",
        "pin": PIN,
    }
    wrong_pin = client.post("/setup", data={**form, "name_1": "Ben", "pin": "0000"})
    assert wrong_pin.status_code == 403 and "Wrong PIN." in text(wrong_pin)
    assert 'value="Ben"' in text(wrong_pin)
    # The rules of a new game are the referee's: its refusal, in the reader's language.
    response = client.post("/setup", data=form, headers={"Accept-Language": "de"})
    assert response.status_code == 400
    page = text(response)
    said = "Platz 2, Name: Der Name für Platz 2 darf höchstens 24 Zeichen lang sein."
    assert said in page
    assert 'value="Anna"' in page and 'value="Cleo"' in page
    assert rig.snapshot()["game"] is None
    # Three mistakes: all three on the page at once, each by its seat and field.
    three = {**form, "csrf_token": csrf(client, "/setup"), "name_0": "Cleo", "colour_2": "red"}
    page = text(client.post("/setup", data=three))
    banner = page.split('class="banner warn" role="alert"')[1].split("</div>")[0]
    assert banner.count("Please check:") == 3, banner
    found = [banner.index(said) for said in (
        "Seat 2, Name: The name for seat 2 must be at most 24 characters.",
        "Seat 3, Name: Two players are called Cleo",
        "Seat 3, Colour: ",
    )]  # fmt: skip
    assert found == sorted(found)
    assert rig.snapshot()["game"] is None


def test_the_buzzer_volume_is_set_in_settings(rig: Rig, client: FlaskClient) -> None:
    from controller.settings import VOLUME_KEY, Settings

    page = client.get("/settings").get_data(as_text=True)
    assert "This board has no buzzer" in page  # the simulated board has none
    rig.board.__class__ = type("Buzzing", (type(rig.board),), {"has_buzzer": True})
    page = client.get("/settings").get_data(as_text=True)
    assert 'name="volume"' in page
    token = csrf(client, "/settings")
    done = client.post("/settings/volume", data={"volume": "30", "csrf_token": token, "pin": PIN})
    assert done.status_code == 302
    assert rig.store.get_setting(VOLUME_KEY) == "30" and Settings(rig.store).volume == 30
    bad = client.post("/settings/volume", data={"volume": "35", "csrf_token": token})
    assert bad.status_code == 400 and Settings(rig.store).volume == 30

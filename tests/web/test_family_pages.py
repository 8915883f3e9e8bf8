"""The family at the table, third pass (issue 32): what the live page says and draws,
rendered from the pure referee's snapshots as the page renders them."""

from __future__ import annotations

import dataclasses
import html as html_module
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from controller.referee.commands import Abort
from controller.referee.snapshot import Snapshot
from rigs.referee import Play
from rigs.web import Rig
from web_ui.render import live_fragments

CASCADE = ("c3", "d4", "d3", "c4", "b4", "d2", "c2", "b2", "b3")
"""Anna's b3 (the ninth pearl) owes three bonus pearls: 2:b2, 2:b3 and 3:b2."""


def regions(rig: Rig, snap: Snapshot, lang: str = "en") -> dict[str, str]:
    with rig.app.test_request_context("/", headers={"Accept-Language": lang}):
        return live_fragments(snap)


def text(markup: str) -> str:
    return " ".join(html_module.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def three_bonus_pearls() -> Play:
    p = Play().new()
    p.play(*CASCADE)
    assert [b.pos for b in p.snap.parts.pending] == ["2:b2", "2:b3", "3:b2"]  # type: ignore[attr-defined]
    return p


def test_the_big_drawing_stays_on_the_first_bonus_pearl_the_words_name(rig: Rig) -> None:
    """Item 5: while the LEDs go round the three places, the large drawing and the list
    stay on the first one, the one the sentence starts with."""
    p = three_bonus_pearls()
    seen = set()
    for _ in range(4):
        snap = p.wait(1.6)  # the LEDs show the next place every 1.5 s
        seen.add(snap.parts.shown_bonus)  # type: ignore[attr-defined]
        status, board = (regions(rig, snap)[r] for r in ("live-status", "live-board"))
        assert "starting with Anna's red, on top of the four blinking pearls (2:b2)" in text(status)
        assert 'class="pyramid-focus"' not in board  # beside the board, never above it
        focus = status.split('class="pyramid-focus"', 1)[1].split("</svg>", 1)[0]
        assert "Layer 2: the bonus pearl goes here" in focus
        assert 'id="cell-' not in focus and "2:b2: empty" in text(focus)
        assert "bonus pearl due here" in focus.split("2:b2: empty", 1)[1].split("</title>")[0]
        first = status.split('class="next"', 1)[1].split("</li>", 1)[0]
        assert "2:b2" in first
        assert status.count('class="next"') == 1
    assert len(seen) > 1  # the LEDs did go round meanwhile


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_pearl_lifted_to_take_it_back_is_not_also_called_missing(rig: Rig, lang: str) -> None:
    """Item 7: "Ben's last pearl (a2) is off. Leave it off …" and nothing in red that asks for
    the pearl back at the same time; the same while a pearl moves to another cell."""
    p = Play().new()
    p.play("a1", "a2")
    snap = p.lift("a2")
    assert "Ben's last pearl (a2) is off. Leave it off to take the move back" in p.said()
    status = regions(rig, snap, lang)["live-status"]
    assert 'class="todo mismatch"' not in status
    assert "a2:" not in text(status)
    snap = p.put("b2")
    assert "Moving Ben's pearl from a2 to b2" in p.said()
    assert 'class="todo mismatch"' not in regions(rig, snap, lang)["live-status"]
    # A pearl really missing (not the last one, which is held) is still shown in red.
    p.put("a2")
    p.wait(1.0)
    snap = p.lift("b2")
    snap = p.wait(1.0)
    snap = p.lift("a1")
    assert 'class="todo mismatch"' in regions(rig, snap, lang)["live-status"]


ENGLISH_WORDS = {
    "de": {"top", "the", "ball", "balls", "pearl", "pearls", "landed", "move", "moves", "wins",
           "of", "and", "on", "off", "step", "leave", "land", "end", "turn", "knocked"},
    "da": {"the", "ball", "balls", "pearl", "pearls", "landed", "move", "moves", "wins", "of",
           "and", "on", "off", "step", "leave", "land", "end", "turn", "knocked"},
}  # fmt: skip
"""Words of English sentences (and of the records' notation: ``land t1``, ``leave t1``,
``end``) that a German or Danish page never shows: a sentence that has one kept an
English word in a parameter (Pyramidos' ``top``, once) or a caption shows notation."""
WORD = re.compile(r"[^\W\d_]+")


def page_words(markup: str) -> set[str]:
    """The words a reader sees on a page (no markup, scripts or styles), lower case."""
    body = markup.split("<main", 1)[-1]
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    return {w.lower() for w in WORD.findall(text(body))}


@pytest.mark.parametrize("lang", ["de", "da"])
def test_no_english_word_in_the_sentences_of_a_pyramidos_game(
    rig: Rig, client: FlaskClient, lang: str
) -> None:
    """Item 4: in German "Nimm die Kugel von der Spitze", never "von top"; the replay's
    captions are sentences, never the record's notation ("Schritt 9: land top"); and
    item 8: the German says du, never a sentence beginning "Sie …"."""
    headers = {"Accept-Language": lang}
    found: dict[str, set[str]] = {}

    def look(path: str) -> None:
        response = client.get(path, headers=headers)
        assert response.status_code == 200, path
        markup = response.get_data(as_text=True)
        strays = page_words(markup) & ENGLISH_WORDS[lang]
        if lang == "de" and re.search(r"[:.!?] Sie ", text(markup.split("<main", 1)[-1])):
            strays.add("Sie")  # a sentence that begins "Sie …" reads as the formal "you"
        if strays:
            found[path] = strays

    rig.new_pyramidos(("Ida", "Jonas"))
    rig.place("top")  # the closed top: "Take off the ball with the red ✕ (the top)."
    rig.wait(lambda s: s["status"] == "mismatch")
    look("/")
    rig.place("top", False)
    rig.wait(lambda s: s["status"] == "playing")
    for n, target in enumerate(("t1", "t2", "t3", "t4"), start=1):
        rig.place(target)

        def landed(s: dict[str, Any], n: int = n) -> bool:
            return bool(s["moves"] == n)

        rig.wait(landed)
    rig.place("t2", False)  # knocked off, once it stays off
    rig.wait(lambda s: s["targets"]["t2"] is None)
    look("/")
    rig.place("t2")
    rig.wait(lambda s: s["targets"]["t2"] is not None)
    rig.place("top")  # the top is open: the game ends
    over = rig.wait(lambda s: s["status"] == "over")
    look("/")
    game = over["game_id"]
    for step in range(over["moves"] + 1):
        look(f"/history/{game}?step={step}")
    look("/history")

    # A game of pearls: three bonus pearls owed, a pearl missing, the end.
    rig.new_perlen(("Anna", "Ben", "Cleo"))
    for n, cell in enumerate(CASCADE, start=1):
        rig.place(cell)

        def placed(s: dict[str, Any], n: int = n) -> bool:
            return bool(s["moves"] == n)

        rig.wait(placed)
    look("/")
    rig.place("c3", False)  # a pearl gone: put it back
    rig.wait(lambda s: s["status"] == "mismatch")
    look("/")
    rig.place("c3")
    rig.wait(lambda s: s["status"] != "mismatch")
    end = rig.play_perlen_to_end()
    look("/")
    look(f"/history/{end['game_id']}?step=9")
    for path in ("/rules", "/setup", "/leaderboard"):
        look(path)
    assert found == {}


@pytest.mark.parametrize(
    ("split", "words"),
    [
        ("3:1", "three of the four pearls below are this colour"),
        ("2:1:1", "two of the four pearls below are this colour, the other two differ"),
        ("2:2", "two and two below: the third colour gets it"),
        ("4", "four of one colour below: the next colour in turn gets it"),
    ],
)
def test_the_rules_page_gives_each_split_its_own_reason(
    client: FlaskClient, split: str, words: str
) -> None:
    """Item 8: "most of the four pearls below" was said of 2:1:1 too, where the colour
    has two of four; each split has its own words (RULES.md's bonus rule)."""
    page = html_module.unescape(client.get("/rules").get_data(as_text=True))
    caption = page.split(f"<strong>{split}</strong>", 1)[1].split("</figcaption>", 1)[0]
    assert words in caption


def test_the_bonus_pearls_owed_say_why_by_the_split_below(rig: Rig) -> None:
    """Item 8, live: the reason of each bonus pearl owed is worked out from the four
    pearls under it, bonus pearls owed below it included."""
    from web_ui.games.perlen.labels import splits

    p = three_bonus_pearls()
    parts = p.snap.parts
    below = splits(
        [(q.pos, q.colour) for q in parts.pearls]  # type: ignore[attr-defined]
        + [(b.pos, b.colour) for b in parts.pending]  # type: ignore[attr-defined]
    )
    found = {b.pos: below(b.pos) for b in parts.pending}  # type: ignore[attr-defined]
    assert all(found.values()), found
    status = text(regions(rig, p.snap)["live-status"])
    reasons = {
        "3:1": "three of the four pearls below",
        "2:1:1": "two of the four pearls below are this colour, the other two differ",
        "2:2": "two and two below",
        "4": "four of one colour below",
    }
    for split in found.values():
        assert split is not None and reasons[split] in status
    assert "most of the four" not in status


def test_pyramidos_has_one_end_turn_and_draws_a_ball_being_knocked_off(rig: Rig) -> None:
    """Item 8: the page's button and the board's are both "End turn"; item 1: a ball gone
    from its target, not yet counted as knocked off, is drawn as missing, not as there."""
    p = Play().new("pyramidos", ("Ida", "Jonas"))
    p.wait(1.0)
    p.put("t1")
    p.wait(1.0)
    snap = p.lift("t1")
    assert snap.mismatches and snap.mismatches[0].kind == "missing"
    live = regions(rig, snap)
    assert "End the turn" not in live["live-controls"]
    assert text(live["live-controls"]).count("End turn") == 2
    board = live["live-board"]
    target = board.split('id="target-t1"', 1)[1].split("</g>", 1)[0]
    assert 'class="gone"' in target and "ball is missing" in target
    assert 'class="pearl"' not in target


def test_the_setup_says_the_computer_seats_names_only_for_games_with_computer_seats(
    client: FlaskClient,
) -> None:
    """Item 8: Pyramidos' form shows only its own hints (the script hides the fields
    marked for other games)."""
    page = html_module.unescape(client.get("/setup").get_data(as_text=True))
    note = page.split("A computer seat left without a name", 1)[0].rsplit("<p", 1)[1]
    assert 'data-for-game="perlen-pyramide"' in note
    assert "Strongest computer" in page and "computer, strongest" not in page


def test_help_for_children_marks_allowed_cells_in_the_movers_colour(rig: Rig) -> None:
    """Issue 37, 13: "Help for children" marks the allowed cells in the colour of the player
    to move, as the setup promises, not in one grey for everyone."""
    rig.new_perlen(children_help=True)
    rig.place("c3")
    snap = rig.wait(lambda s: s["moves"] == 1)
    mover = snap["players"][snap["to_move"]]["colour"]
    board = regions(rig, rig.table.snapshot)["live-board"]
    fills = set(re.findall(r'class="legal" fill="([^"]+)"', board))
    assert fills == {mover} and len(re.findall(r'class="legal"', board)) == len(snap["legal"])


def test_after_an_abort_the_page_says_what_happened(rig: Rig) -> None:
    """Issue 37, 13: with no game on after an abort, the page says the game ended, not
    only that no game is on."""
    rig.new_perlen()
    rig.place("c3")
    rig.wait(lambda s: s["moves"] == 1)
    assert rig.table.submit(Abort()).ok
    rig.wait(lambda s: s["game"] is None)
    status = text(regions(rig, rig.table.snapshot)["live-status"])
    assert "No game is being played" in status and "ended without a result" in status


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", "Too much light near a3: draw the curtain or turn the lamp away."),
        ("de", "Zu viel Licht bei a3: Zieh den Vorhang zu oder dreh die Lampe weg."),
        ("da", "For meget lys ved a3: træk gardinet for, eller drej lampen væk."),
    ],
)
def test_a_cell_the_board_cannot_read_is_named_with_what_to_do(
    rig: Rig, lang: str, words: str
) -> None:
    """The sun on a3: the family reads which cell and what to do, during a game and
    without one; the cell keeps its state, so nothing asks for a pearl there."""
    p = Play().new()
    p.play("a1")
    for snap in (p.snap, rig.table.snapshot):
        snap = dataclasses.replace(snap, unreadable=("a3",))
        status = text(regions(rig, snap, lang)["live-status"])
        assert words in status, status
    two = dataclasses.replace(p.snap, unreadable=("a3", "b4"))
    said = text(regions(rig, two, "en")["live-status"])
    assert "Too much light near a3, b4:" in said and "those places change nothing" in said
    assert "Too much light" not in text(regions(rig, p.snap, "en")["live-status"])


BONUS_LIST = {
    "en": (
        "red (R), on top of the four blinking pearls (2:b2)",
        "then: the ringed place on layer 2 (2:b3)",
        "then: the ringed place on layer 3 (3:b2)",
    ),
    "de": (
        "rot (R), oben auf die vier blinkenden Perlen (2:b2)",
        "danach: der Platz mit dem Ring auf Schicht 2 (2:b3)",
        "danach: der Platz mit dem Ring auf Schicht 3 (3:b2)",
    ),
    "da": (
        "(R), oven på de fire blinkende perler (2:b2)",
        "derefter: pladsen med ringen på lag 2 (2:b3)",
        "derefter: pladsen med ringen på lag 3 (3:b2)",
    ),
}


@pytest.mark.parametrize("lang", ["en", "de", "da"])
def test_every_bonus_pearl_owed_is_named_by_what_the_family_sees(rig: Rig, lang: str) -> None:
    """Issue 37, 3: each bonus pearl of the list starts with its colour and where to look
    (the blinking pearls, then the ringed place of its layer drawing), its notation only
    after it; none starts with the notation ("red (R) on 2:b3")."""
    p = three_bonus_pearls()
    status = regions(rig, p.snap, lang)["live-status"]
    items = [text(li) for li in re.findall(r"<li[^>]*>(.*?)</li>", status, re.S)]
    bonus = [i for i in items if re.search(r"\([23]:b[23]\)", i)]
    assert len(bonus) == 3, items
    for item, said in zip(bonus, BONUS_LIST[lang], strict=True):
        assert said in item, (item, said)
        assert not re.match(r"\S+ \(\w+\) (on|auf|på) \d:", item), item
    board = regions(rig, p.snap, lang)["live-board"]
    for pos in ("2:b3", "3:b2"):  # the ringed places the words send the family to
        place = board.split(f"<title>{pos}: ", 1)[1].split("</g>", 1)[0]
        assert 'class="due"' in place, pos


STEP_SAID = {
    "en": ("'s pearl, in the dark ring (", "bonus pearl", "played"),
    "de": ("Die Perle von ", "bonusperle", "gesetzt"),
    "da": ("Perlen fra ", "bonusperle", "har lagt"),
}


@pytest.mark.parametrize("lang", ["en", "de", "da"])
def test_a_review_step_names_the_move_by_its_ring(rig: Rig, client: FlaskClient, lang: str) -> None:
    """Issue 37, 3: a review step's caption names the move by the dark ring round its
    pearl on the picture (which is there), the cell's name after it in brackets; the
    bonus pearls it earned are said to have gone on top, their names after that."""
    rig.new_perlen()
    game_id = rig.play_perlen_to_end()["game_id"]
    pearl, bonus, played = STEP_SAID[lang]
    earned = 0
    for step in range(1, 26):
        fragment = client.get(
            f"/history/{game_id}/step/{step}", headers={"Accept-Language": lang}
        ).get_data(as_text=True)
        caption = text(fragment.split('class="step-caption"', 1)[1].split("</p>", 1)[0])
        cell = re.findall(r"\(([a-e][1-5])\)", caption)[0]
        assert pearl in caption and played not in caption, caption
        assert caption.index(pearl) < caption.index(f"({cell})")
        ring = fragment.split(f'class="marks" data-pos="{cell}"', 1)[1].split("</g>", 1)[0]
        assert 'class="last"' in ring, step
        if bonus in caption.lower():
            earned += 1
            assert caption.lower().index(bonus) < caption.index("(2:"), caption
    assert earned > 0

"""The one vocabulary of stored events: JSON in and out, strictness, the fold, and the
files release 0.1.0 wrote (``tests/fixtures/store-0.1.0.sqlite3``, made by that release's
own Table: four games, every event kind)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.games.perlen import rules as perlen
from controller.games.perlen.events import BasePearl, BonusPlaced
from controller.games.perlen.game import PerlenGame
from controller.games.perlen.kind import PERLEN_PYRAMIDE
from controller.games.perlen.record import PerlenRecord
from controller.games.perlen.record import replay as replay_perlen
from controller.games.pyramidos import rules as pyramidos
from controller.games.pyramidos.events import KnockedOff, Landed, TurnEnded
from controller.games.pyramidos.game import PyramidosGame
from controller.games.pyramidos.kind import PYRAMIDOS
from controller.games.pyramidos.record import PyramidosRecord
from controller.games.pyramidos.record import last_state as replay_pyramidos
from controller.games.registry import GAMES, parse_record
from controller.referee.events import COMMON, Aborted, By, Event, EventError, TakeBack
from controller.referee.fold import fold, from_stored, kept_record, kinds_of
from controller.referee.resume import resume
from controller.referee.state import RefereeConfig, RefereeState
from controller.store import Store

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "store-0.1.0.sqlite3"

EVERY: list[Event] = [
    BasePearl("c3", 0),
    BonusPlaced("2:c3", 0, By.NEXT_MOVE),
    TakeBack(By.LIFT, "c3"),
    Landed("t1", 2),
    KnockedOff("top", None),
    TurnEnded(1, By.BUTTON),
    Aborted("a new game was started"),
]


def test_every_kind_has_a_type_and_round_trips_through_json() -> None:
    kinds = {k for game in GAMES.values() for k in kinds_of(game)}
    assert {e.kind for e in EVERY} == kinds
    for event in EVERY:
        game = next(g for g in GAMES.values() if event.kind in kinds_of(g))
        assert from_stored(game, event.kind, event.data()) == event
    # Every game has the take-back and the abort; no two games share an event kind.
    assert all(set(COMMON) <= set(kinds_of(g)) for g in GAMES.values())
    assert not set(PERLEN_PYRAMIDE.events) & set(PYRAMIDOS.events)


@pytest.mark.parametrize(
    ("kind", "data", "said"),
    [
        ("jump", {}, "is not an event kind"),
        ("move", {"cell": "c3"}, "needs cell, colour"),
        ("move", {"cell": "c3", "colour": 0, "extra": 1}, "needs cell, colour"),
        ("move", {"cell": "z9", "colour": 0}, "z9"),
        ("move", {"cell": "c3", "colour": True}, "colour must be a whole number, not True"),
        ("move", {"cell": "c3", "colour": "1"}, "colour must be a whole number, not '1'"),
        ("move", {"cell": "c3", "colour": 1.0}, "colour must be a whole number, not 1.0"),
        ("move", {"cell": "c3", "colour": 7}, "colour must be at most 3, not 7"),
        ("land", {"target": "t1", "seat": -1}, "seat must be at least 0, not -1"),
        ("leave", {"target": "t1", "seat": "0"}, "seat must be a whole number"),
        ("end", {"seat": None, "by": "page"}, "seat must be a whole number, not None"),
        ("move", {"cell": 3, "colour": 0}, "cell must be text, not 3"),
        ("abort", {"reason": "x" * 201}, "reason must be text of at most 200 characters"),
        ("bonus", {"pos": "6:a1", "colour": 0, "by": "page"}, "6:a1"),
        ("bonus", {"pos": "2:a1", "colour": 0, "by": "telepathy"}, "by must be one of"),
        ("land", {"target": "t9", "seat": 0}, "t9"),
        ("land", {"target": "t9", "seat": 0}, r"target is not a place \('t9' is not a target"),
        ("land", {"target": "c3", "seat": 0}, "'c3' is not a target"),
        ("undo", {"by": "page", "what": "c3", "seat": 0}, r"needs by, what \(it has by, seat"),
        ("move", {"cell": "c3", "colour": 0, "kind": "bonus"}, "it has cell, colour, kind"),
        ("mark", {"cell": "c3", "seat": 0}, "'mark' is not an event kind"),
        ("undo", {"by": "page", "what": ""}, "must be text"),
        ("move", ["c3", 0], "needs cell, colour"),
    ],
)
def test_a_stored_event_that_is_not_ours_is_a_clear_error(
    kind: str, data: object, said: str
) -> None:
    game = PYRAMIDOS if kind in PYRAMIDOS.events else PERLEN_PYRAMIDE
    with pytest.raises(EventError, match=said):
        from_stored(game, kind, data)  # type: ignore[arg-type]


def test_a_stored_event_with_several_mistakes_names_each_field() -> None:
    with pytest.raises(EventError) as caught:
        from_stored(PERLEN_PYRAMIDE, "bonus", {"pos": "", "colour": 4, "by": "telepathy"})
    assert str(caught.value).split("; ") == [
        "a 'bonus' event's pos must be text (not empty)",
        "a 'bonus' event's colour must be at most 3, not 4",
        "a 'bonus' event's by must be one of 'pearl', 'button', 'page' or 'lift', not 'telepathy'",
    ]
    # A missing field and one too many are one sentence: what the kind needs.
    with pytest.raises(EventError) as caught:
        from_stored(PYRAMIDOS, "land", {"seat": 9, "where": "t1"})
    assert str(caught.value).split("; ") == [
        "a 'land' event needs target, seat (it has seat, where)",
        "a 'land' event's seat must be at most 3, not 9",
    ]


def test_each_game_reads_only_its_own_events_and_the_common_ones() -> None:
    """The union is the game's: another game's kind is unknown to it."""
    with pytest.raises(EventError, match=r"'land' is not an event kind.*known: move, bonus, undo"):
        from_stored(PERLEN_PYRAMIDE, "land", {"target": "t1", "seat": 0})
    assert from_stored(PYRAMIDOS, "leave", {"target": "top", "seat": None}) == KnockedOff(
        "top", None
    )
    assert from_stored(PYRAMIDOS, "undo", {"by": "lift", "what": "t1"}) == TakeBack(By.LIFT, "t1")
    read = from_stored(PERLEN_PYRAMIDE, "bonus", {"pos": "2:c3", "colour": 1, "by": "button"})
    assert read == BonusPlaced("2:c3", 1, By.BUTTON) and isinstance(read.by, By)


def test_the_fold_names_the_event_that_does_not_fit() -> None:
    game = PERLEN_PYRAMIDE.new_game(perlen.PerlenOptions())
    with pytest.raises(EventError, match=r"event 2 \(move .*expected 1"):
        fold(PERLEN_PYRAMIDE, game, [BasePearl("c3", 0), BasePearl("d4", 0)])
    with pytest.raises(EventError, match="not a Pyramidos event"):
        board = PYRAMIDOS.new_game(pyramidos.PyramidosOptions(seats=2))
        fold(PYRAMIDOS, board, [BasePearl("c3", 0)])


def test_folding_a_game_gives_its_record() -> None:
    game = fold(
        PERLEN_PYRAMIDE,
        PERLEN_PYRAMIDE.new_game(perlen.PerlenOptions()),
        [BasePearl("c3", 0), BasePearl("d4", 1), TakeBack(By.PAGE, "d4"), BasePearl("b2", 1)],
    )
    assert isinstance(game, PerlenGame) and game.standing == ("c3", "b2")


@pytest.fixture
def old_store(tmp_path: Path) -> Iterator[Store]:
    copy = tmp_path / "games.sqlite3"
    shutil.copyfile(FIXTURE, copy)
    store = Store(copy)
    yield store
    store.close()


def test_the_files_of_release_0_1_0_still_load(old_store: Store) -> None:
    history = old_store.history.with_records(lambda game: kept_record(GAMES, game))
    games = {g.id: g for g in (history.game(s.id) for s in old_store.games()) if g}
    assert sorted(games) == [1, 2, 3, 4]
    for stored in games.values():
        kind = GAMES[stored.game]
        events = [from_stored(kind, e.kind, e.data) for e in stored.events]
        options = kind.read_options(len(stored.players), dict(stored.options))
        game = fold(kind, kind.new_game(options), events)
        recorded = stored.record.get("moves") or stored.record.get("events")
        assert recorded is not None
        assert list(game.standing) == list(recorded)
    # The finished games replay to the results release 0.1.0 stored with them.
    perlen_record = parse_record(dict(games[1].record))
    assert isinstance(perlen_record, PerlenRecord) and games[1].result is not None
    perlen_game = replay_perlen(perlen_record)
    assert list(perlen.outcome(perlen_game.state).scores) == games[1].result["scores"]
    pyramidos_record = parse_record(dict(games[2].record))
    assert isinstance(pyramidos_record, PyramidosRecord) and games[2].result is not None
    pyramidos_state = replay_pyramidos(pyramidos_record)
    assert list(pyramidos.outcome(pyramidos_state).points) == games[2].result["points"]
    assert games[3].summary.status == "aborted" and games[3].record["moves"] == [
        "c3",
        "d4",
        "d3",
        "c4",
    ]
    # Every way of acknowledging and taking back of that release is in it.
    bys = {e.data.get("by") for g in games.values() for e in g.events}
    assert bys >= {"pearl", "button", "page", "lift"}


def test_the_unfinished_game_of_release_0_1_0_resumes(old_store: Store) -> None:
    step = resume(RefereeState(RefereeConfig(games=GAMES)), old_store.unfinished(), 0.0)
    session = step.state.session
    assert session is not None and session.game_id == 4 and session.game.moves == 4
    assert isinstance(session.game, PyramidosGame)
    assert dict(session.game.state.targets()) == {
        "t1": None,
        "t2": 0,
        "t3": None,
        "t4": None,
        "top": None,
    }
    assert [p.name for p in session.players] == ["Dora", "Emil"]

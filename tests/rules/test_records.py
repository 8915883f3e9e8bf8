from __future__ import annotations

import json

import pytest

from controller.games.perlen.record import PerlenRecord
from controller.games.pyramidos.record import PyramidosRecord
from controller.games.registry import parse_record
from controller.rules.records import Record, RecordError, ReplayError


def summary(record: Record) -> dict[str, object]:
    return record.summary()


def test_perlen_summary_of_the_worked_example() -> None:
    out = summary(parse_record({"game": "perlen-pyramide", "moves": ["c3", "d4", "d3", "c4"]}))
    assert out["placements"] == [
        {"pos": "1:c3", "colour": 0, "kind": "base"},
        {"pos": "1:d4", "colour": 1, "kind": "base"},
        {"pos": "1:d3", "colour": 2, "kind": "base"},
        {"pos": "1:c4", "colour": 0, "kind": "base"},
        {"pos": "2:c3", "colour": 0, "kind": "bonus"},
    ]
    assert out["to_move"] == 1
    assert out["over"] is False
    assert out["winners"] == []
    assert out["pools_left"] == [22, 24, 24]
    assert out["totals"] == [3, 1, 1]
    # c3, d4, d3 and c4 are inner base cells, and 2:c3 is inside layer 2's ring too
    assert out["visible"] == [0, 0, 0]


def test_pyramidos_summary() -> None:
    record = parse_record(
        {"game": "pyramidos", "seats": 3, "events": ["land t1", "end", "leave t1", "land top"]}
        | {"events": ["land t1", "end", "land t2", "land t3", "land t4", "land top"]}
    )
    out = summary(record)
    assert out["targets"] == {"t1": 0, "t2": 2, "t3": 0, "t4": 1, "top": 2}
    assert out["points"] == [2, 1, 3]
    assert out["over"] is True
    assert out["to_move"] is None
    assert out["winners"] == [2]


def test_round_trip() -> None:
    for raw in (
        {"game": "perlen-pyramide", "moves": ["c3"], "options": {"pools": "unlimited"}},
        {"game": "pyramidos", "seats": 4, "events": ["end"], "players": ["A", "B", "C", "D"]},
    ):
        record = parse_record(raw)
        assert parse_record(json.dumps(record.to_dict())) == record
    assert isinstance(parse_record('{"game": "perlen-pyramide"}'), PerlenRecord)
    assert isinstance(parse_record('{"game": "pyramidos", "seats": 2}'), PyramidosRecord)


@pytest.mark.parametrize(
    ("raw", "match"),
    [
        ("{", "not JSON"),
        ("[]", "JSON object"),
        ({"game": "chess"}, "'game'"),
        ({"game": "perlen-pyramide", "version": 2}, "version"),
        ({"game": "perlen-pyramide", "moves": "c3"}, "list"),
        ({"game": "perlen-pyramide", "moves": [3]}, "item 1"),
        ({"game": "perlen-pyramide", "colour": 1}, "unknown key 'colour'"),
        ({"game": "perlen-pyramide", "options": {"pools": "x"}}, "pools"),
        ({"game": "pyramidos", "events": []}, "seats"),
        ({"game": "pyramidos", "seats": 5}, "2 to 4"),
        ({"game": "perlen-pyramide", "moves": ["c3"] * 1001}, "far fewer"),
    ],
)
def test_bad_records(raw: str | dict[str, object], match: str) -> None:
    with pytest.raises(RecordError, match=match):
        parse_record(raw)


def test_replay_error_names_the_move() -> None:
    record = parse_record({"game": "perlen-pyramide", "moves": ["c3", "d4", "a1"]})
    with pytest.raises(ReplayError) as info:
        summary(record)
    assert info.value.number == 3
    assert "move 3" in str(info.value) and "not touching" in str(info.value)
    bad = parse_record({"game": "pyramidos", "seats": 2, "events": ["land t1", "land t1"]})
    with pytest.raises(ReplayError, match="event 2"):
        summary(bad)

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules.notation import (
    APEX,
    BASE,
    POSITIONS,
    NotationError,
    Position,
    Target,
    parse_cell,
    parse_position,
    parse_target,
    position,
)


def test_there_are_55_positions_in_reading_order() -> None:
    assert len(POSITIONS) == 55
    assert [p.index for p in POSITIONS] == list(range(55))
    keys = [(p.layer, p.rank, p.file) for p in POSITIONS]
    assert keys == sorted(keys)
    assert [p.short for p in BASE[:6]] == ["a1", "b1", "c1", "d1", "e1", "a2"]
    assert str(APEX) == "5:a1"


@pytest.mark.parametrize("pos", POSITIONS, ids=str)
def test_round_trip(pos: Position) -> None:
    assert parse_position(str(pos)) is pos
    assert parse_position(pos.short) is pos


def test_the_rule_book_examples() -> None:
    assert parse_position("c3") is parse_position("1:c3")
    assert [s.short for s in parse_position("2:b3").supports] == ["b3", "c3", "b4", "c4"]
    three = parse_position("3:a1")
    assert [str(s) for s in three.supports] == ["2:a1", "2:b1", "2:a2", "2:b2"]
    assert three.footprint_name == "a1–c3"
    assert len(three.footprint) == 9
    assert APEX.footprint == tuple(p.short for p in BASE)


def test_visible_ring() -> None:
    assert sum(p.visible for p in POSITIONS) == 41
    assert not parse_position("c3").visible
    assert parse_position("3:b2").visible is False
    assert parse_position("2:a3").visible


@pytest.mark.parametrize(
    "text",
    [
        "",
        "c",
        "f1",
        "a6",
        "a0",
        "C3",
        " c3",
        "c3 ",
        "6:a1",
        "0:a1",
        "2:e1",
        "2:a5",
        "5:b1",
        "3:d1",
        "1:",
        ":c3",
        "c33",
        "2-b3",
        "1:c3:1",
    ],
)
def test_rejections(text: str) -> None:
    with pytest.raises(NotationError):
        parse_position(text)


def test_rejects_non_text() -> None:
    with pytest.raises(NotationError):
        parse_position(3)  # type: ignore[arg-type]


@given(st.text(max_size=6))
def test_any_text_parses_or_raises_notation_error(text: str) -> None:
    try:
        pos = parse_position(text)
    except NotationError:
        return
    assert pos.short == text or str(pos) == text


def test_parse_cell_only_takes_the_base() -> None:
    assert parse_cell("1:e5").short == "e5"
    with pytest.raises(NotationError, match="not a base cell"):
        parse_cell("2:a1")


def test_position_constructor_refuses_places_that_do_not_exist() -> None:
    assert position(4, 1, 1) is parse_position("4:b2")
    with pytest.raises(NotationError):
        position(4, 2, 0)


def test_targets() -> None:
    assert [str(t) for t in Target] == ["t1", "t2", "t3", "t4", "top"]
    assert parse_target("top") is Target.TOP
    for bad in ("t0", "t5", "TOP", "", "t 1"):
        with pytest.raises(NotationError):
            parse_target(bad)

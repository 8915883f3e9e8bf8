"""The pictures of Perlen-Pyramide's rules, made by the rules engine itself.

Each picture is a snapshot played out with :mod:`controller.games.perlen.rules`, drawn by
the same code as the live game, so the rules page can never show a bonus rule the
referee does not apply.

>>> from controller.games.perlen.snapshot import parts_of
>>> pics = rule_pictures()
>>> [g.bonus.letter for g in pics.groups]            # 3:1, 2:1:1, 2:2, four of a kind
['R', 'B', 'Y', 'B']
>>> [p.pos for p in parts_of(pics.example).pearls]
['1:c3', '1:d3', '1:c4', '1:d4', '2:c3']
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.games.perlen import rules as perlen
from controller.games.perlen.kind import PERLEN_PYRAMIDE
from controller.referee.showing import position
from controller.referee.snapshot import PlayerView, Snapshot
from controller.rules.notation import BASE
from web_ui.drawing import PICTURE_PLAYERS, ScoreBar, Swatch, swatches
from web_ui.games.perlen import drawing

Players = tuple[PlayerView, ...]


def _snapshot(
    players: Players, state: perlen.PerlenState, last_move: str | None = None
) -> Snapshot:
    return position(players, PERLEN_PYRAMIDE, state, state.options, last_move=last_move)


@dataclass(frozen=True, slots=True)
class GroupPicture:
    """Four pearls of a 2×2 group and the bonus pearl the rules put on top of them."""

    rule: str
    """``majority``, ``two-two`` or ``four-of-a-kind``."""
    counts: str
    """How the four split: ``3:1``, ``2:1:1``, ``2:2``, ``4``."""
    pearls: tuple[tuple[float, float, Swatch], ...]
    bonus: Swatch
    size: float = 100.0


def _group(players: Players, order_colours: tuple[int, int, int, int], counts: str) -> GroupPicture:
    """Play the four pearls as a real game would and read the bonus the engine gives."""
    cells = ("b2", "c2", "b3", "c3")  # near left, near right, far left, far right
    state = perlen.new_game(perlen.PerlenOptions(placement=perlen.Placement.FREE))
    order = sorted(range(4), key=lambda i: order_colours[i])
    # The engine decides who moves; steer it by placing each colour's pearls on its turn,
    # passing with pearls on far cells (a5, e5, a1 ...) that never touch the group.
    fillers = iter(c for c in ("a5", "e5", "e1", "a1", "a4", "e4") if c not in cells)
    bonus: perlen.Bonus | None = None
    for index in order:
        while state.to_move != order_colours[index]:
            state, _ = perlen.play(state, next(fillers))
        state, earned = perlen.play(state, cells[index])
        if earned:
            bonus = earned[0]
    assert bonus is not None
    colours = swatches(Snapshot(players=players))
    spots = ((30.0, 70.0), (70.0, 70.0), (30.0, 30.0), (70.0, 30.0))
    return GroupPicture(
        rule=bonus.rule.value,
        counts=counts,
        pearls=tuple((x, y, colours[c]) for (x, y), c in zip(spots, order_colours, strict=True)),
        bonus=colours[bonus.colour],
    )


@dataclass(frozen=True, slots=True)
class RulePictures:
    groups: tuple[GroupPicture, ...]
    notation: drawing.LayersView
    example: Snapshot
    """The worked example of RULES.md: c3 d4 d3 c4."""
    example_view: drawing.LayersView
    full_layers: drawing.LayersView
    """A finished pyramid: the band marks the visible ring, the pearls that score."""
    full_side: drawing.SideView
    full_scores: tuple[ScoreBar, ...]


def rule_pictures(players: Players = PICTURE_PLAYERS[:3]) -> RulePictures:
    groups = (
        _group(players, (0, 0, 0, 1), "3:1"),
        _group(players, (1, 1, 0, 2), "2:1:1"),
        _group(players, (0, 1, 1, 0), "2:2"),
        _group(players, (0, 0, 0, 0), "4"),
    )
    state = perlen.new_game()
    for move in ("c3", "d4", "d3", "c4"):
        state, _ = perlen.play(state, move)
    example = _snapshot(players, state, last_move="c4")
    full = perlen.new_game()
    for cell in BASE:  # reading order always touches: a1, b1, … e5
        full, _ = perlen.play(full, cell)
    full_snap = _snapshot(players, full)
    return RulePictures(
        groups=groups,
        notation=drawing.layers_view(_snapshot(players, perlen.new_game())),
        example=example,
        example_view=drawing.layers_view(example),
        full_layers=drawing.layers_view(full_snap),
        full_side=drawing.side_view(full_snap),
        full_scores=drawing.score_bars(full_snap),
    )

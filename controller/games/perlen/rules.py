"""Perlen-Pyramide (Pearl Pyramid, Peter Pallat 1978), exactly as RULES.md states it.

A game is an immutable :class:`PerlenState`; :func:`play` returns the next state and the
bonus pearls the move earned, in the order they are placed:

>>> state = new_game()
>>> for cell in ("c3", "d4", "d3"):
...     state, bonuses = play(state, cell)
>>> state, bonuses = play(state, "c4")
>>> [(str(b.position), b.colour, b.reason.value) for b in bonuses]
[('2:c3', 0, 'majority')]
>>> state.to_move
1

A state is a thin typed face over the integers of :mod:`controller.games.perlen.pyramid`
(bit ``i`` of a mask is ``POSITIONS[i]``), which holds the one implementation of the
pyramid's geometry and of the bonus cascade; a whole random game takes a few dozen
microseconds (``bench/engine.py``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from controller.games.perlen.options import (
    COLOURS,
    NAME,
    OptionError,
    PerlenOptions,
    Placement,
    Pools,
    Score,
    Start,
    Ties,
)
from controller.games.perlen.pyramid import (
    BASE_CELLS,
    BASE_MASK,
    CENTRE,
    FREE_OPENS,
    LOW,
    NEIGHBOURS,
    PEARLS,
    POOL,
    VISIBLE,
    Bonus,
    BonusRule,
    Rules,
    bonus_rule,
    colour_mask,
    colour_of,
    place,
    scores,
)
from controller.rules.notation import (
    BASE,
    POSITIONS,
    NotationError,
    Position,
    parse_position,
)

__all__ = [
    "BASE_CELLS",
    "COLOURS",
    "NAME",
    "PEARLS",
    "POOL",
    "Bonus",
    "BonusRule",
    "IllegalMoveError",
    "IllegalReason",
    "OptionError",
    "PerlenOptions",
    "PerlenOutcome",
    "PerlenState",
    "Placement",
    "Pools",
    "Score",
    "Start",
    "Ties",
    "bonus_rule",
    "legal_moves",
    "new_game",
    "outcome",
    "passes",
    "play",
    "rules_for",
]


# -- errors ------------------------------------------------------------------------------


class IllegalReason(enum.Enum):
    OFF_BOARD = "off the board"
    NOT_BASE = "not a base cell"
    OCCUPIED = "occupied"
    NOT_TOUCHING = "not touching"
    NOT_CENTRE = "not the centre"
    GAME_OVER = "game over"


class IllegalMoveError(ValueError):
    """A move the rules forbid; :attr:`reason` says which rule."""

    def __init__(self, reason: IllegalReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason


# -- the game ----------------------------------------------------------------------------


class PerlenState(NamedTuple):
    """A position of the game: which pearl of which colour is where, and whose turn.

    An immutable value: a typed, named :data:`controller.games.perlen.pyramid.Pyramid` (so that
    :func:`play` makes one in a few dozen nanoseconds). Two states are equal when their
    options, pearls and mover are. Make states with :func:`new_game` and :func:`play`.

    >>> state, _ = play(new_game(), "c3")
    >>> state.to_move, state.base_pearls, state.colour_at("c3"), state.colour_at("d4")
    (1, 1, 0, None)
    >>> state == play(new_game(), "c3")[0], state == new_game()
    (True, False)
    """

    rules: Rules
    """The options and what they change (see :func:`rules_for`)."""
    occupied: int
    """Bitmask of occupied positions (bit ``i`` is ``POSITIONS[i]``)."""
    board: int
    """Two bits per position: bits ``2i``, ``2i + 1`` hold the colour of the pearl at
    ``POSITIONS[i]`` plus one, 0 where it is empty (see :mod:`controller.games.perlen.pyramid`)."""
    to_move: int | None
    """Colour to move, or None when the pyramid is complete."""
    legal: int
    """Bitmask of the base cells the mover may take (0 once the pyramid is complete)."""

    # A state equals only a state (not a tuple that happens to hold the same numbers).
    def __eq__(self, other: object) -> bool:
        return type(other) is PerlenState and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return tuple.__hash__(self)

    def __repr__(self) -> str:
        pearls = " ".join(f"{p.short}={colour}" for p, colour in self.pearls())
        return f"PerlenState({self.options!r}, to_move={self.to_move}, pearls=[{pearls}])"

    @property
    def options(self) -> PerlenOptions:
        return self.rules.options

    @property
    def over(self) -> bool:
        return self.to_move is None

    @property
    def colours(self) -> tuple[int, int, int]:
        """Bitmasks of the pearls of each colour (bit ``i`` is ``POSITIONS[i]``)."""
        board = self.board
        return colour_mask(board, 0), colour_mask(board, 1), colour_mask(board, 2)

    @property
    def base_pearls(self) -> int:
        return (self.occupied & BASE_MASK).bit_count()

    def colour_at(self, pos: Position | str) -> int | None:
        """The colour of the pearl at ``pos``, or None when it is empty."""
        p = pos if isinstance(pos, Position) else parse_position(pos)
        return colour_of(self.board, p.index)

    def pearls(self) -> tuple[tuple[Position, int], ...]:
        """Every pearl as (position, colour), in reading order."""
        board = self.board
        return tuple(
            (p, (board >> 2 * p.index & 3) - 1) for p in POSITIONS if board >> 2 * p.index & 3
        )

    def pools_left(self) -> tuple[int | None, int | None, int | None]:
        """Pearls left in each colour's pool (None for each with ``pools = unlimited``)."""
        if self.options.pools is Pools.UNLIMITED:
            return (None, None, None)
        a, b, c = scores(self.board, LOW)
        return (POOL - a, POOL - b, POOL - c)


_new_state = tuple.__new__


def rules_for(options: PerlenOptions) -> Rules:
    """What ``options`` change in how pearls are placed, for :mod:`controller.games.perlen.pyramid`.

    >>> rules_for(PerlenOptions(start=Start.CENTRE)).first == 1 << parse_position("c3").index
    True
    """
    return Rules(
        options,
        strict=options.pools is Pools.STRICT,
        opens=FREE_OPENS if options.placement is Placement.FREE else NEIGHBOURS,
        first=1 << CENTRE if options.start is Start.CENTRE else BASE_MASK,
        score=LOW if options.score is Score.ALL else VISIBLE,
    )


_DEFAULT_RULES = rules_for(PerlenOptions())


def new_game(options: PerlenOptions | None = None) -> PerlenState:
    """An empty base; colour 0 to move."""
    rules = _DEFAULT_RULES if options is None else rules_for(options)
    return _new_state(PerlenState, (rules, 0, 0, 0, rules.first))


# The base cells of every pattern of bits 0-12 and 13-24 of a legal-move mask, so that
# legal_moves() is two look-ups (12,288 small tuples made at import, about 10 ms).
_LOW, _HIGH = (
    tuple(
        tuple(BASE[first + i] for i in range(width) if bits >> i & 1) for bits in range(1 << width)
    )
    for first, width in ((0, 13), (13, 12))
)


def legal_moves(state: PerlenState) -> tuple[Position, ...]:
    """The base cells the player to move may take, in reading order."""
    legal = state.legal
    return _LOW[legal & 0x1FFF] + _HIGH[legal >> 13]


# id() of each shared base cell value -> its index: play() knows a cell from
# legal_moves() with one look-up (the values live as long as the module, so an id is
# never reused by anything else).
_BASE_INDEX: dict[int, int] = {id(cell): cell.index for cell in BASE}


def _as_position(move: Position | str) -> Position:
    if isinstance(move, Position):
        if 0 <= move.index < PEARLS and POSITIONS[move.index] == move:  # interned or equal
            return POSITIONS[move.index]
        try:
            return parse_position(str(move))
        except (NotationError, IndexError):
            raise IllegalMoveError(IllegalReason.OFF_BOARD, f"{move!r} is off the board") from None
    try:
        return parse_position(move)
    except NotationError as exc:
        raise IllegalMoveError(IllegalReason.OFF_BOARD, f"off the board: {exc}") from None


def _base_index(move: Position | str) -> int:
    pos = _as_position(move)
    if pos.index >= BASE_CELLS:
        raise IllegalMoveError(
            IllegalReason.NOT_BASE,
            f"{pos}: pearls are placed on the base; bonus pearls above it follow by the rules",
        )
    return pos.index


def _illegal(state: PerlenState, index: int) -> IllegalMoveError:
    """Why base cell ``index`` is not a legal move in ``state``."""
    cell = BASE[index].short
    if state.to_move is None:
        return IllegalMoveError(IllegalReason.GAME_OVER, f"{cell}: the game is over")
    if state.occupied >> index & 1:
        return IllegalMoveError(IllegalReason.OCCUPIED, f"{cell} is occupied")
    if state.occupied == 0:
        return IllegalMoveError(
            IllegalReason.NOT_CENTRE, f"{cell}: the first pearl goes on c3 (centre start)"
        )
    return IllegalMoveError(
        IllegalReason.NOT_TOUCHING,
        f"{cell} is not touching: a pearl must touch an occupied cell orthogonally or diagonally",
    )


def play(state: PerlenState, move: Position | str) -> tuple[PerlenState, tuple[Bonus, ...]]:
    """Place a pearl of the mover's colour on base cell ``move``.

    Returns the new state and the bonus pearls the move earned, in reading order (which
    places every pearl's supports before it). Raises :class:`IllegalMoveError`.
    """
    index = _BASE_INDEX.get(id(move))  # a shared cell value, as legal_moves() gives
    if index is None:
        index = _base_index(move)
    if not state.legal >> index & 1:
        raise _illegal(state, index)
    placed: list[Bonus] = []
    return (
        _new_state(PerlenState, place(state, index, placed)),
        tuple(placed) if placed else (),
    )


def passes(before: PerlenState, after: PerlenState) -> tuple[int, ...]:
    """Colours that passed (empty pool) between the mover of ``before`` and ``after``'s."""
    if before.to_move is None or after.to_move is None:
        return ()
    out = []
    colour = (before.to_move + 1) % COLOURS
    while colour != after.to_move:
        out.append(colour)
        colour = (colour + 1) % COLOURS
    return tuple(out)


# -- scoring -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PerlenOutcome:
    """Scores, at any time; winners once the pyramid is complete."""

    visible: tuple[int, int, int]
    """Pearls of each colour on the outer ring of their layer (41 in a whole pyramid)."""
    totals: tuple[int, int, int]
    """All pearls of each colour in the pyramid."""
    scores: tuple[int, int, int]
    """What counts for winning: ``visible``, or ``totals`` with ``score = all``."""
    over: bool
    winners: tuple[int, ...]
    """Colours that win (several on a shared win); empty while the game goes on."""


def outcome(state: PerlenState) -> PerlenOutcome:
    """Score the pyramid as it stands.

    >>> outcome(new_game()).winners
    ()
    """
    visible = scores(state.board, VISIBLE)
    totals = scores(state.board, LOW)
    counted = totals if state.options.score is Score.ALL else visible
    winners: tuple[int, ...] = ()
    if state.over:
        best = max(counted)
        tied = [c for c in range(COLOURS) if counted[c] == best]
        if len(tied) > 1 and state.options.ties is Ties.TOTAL:
            most = max(totals[c] for c in tied)
            tied = [c for c in tied if totals[c] == most]
        winners = tuple(tied)
    return PerlenOutcome(visible, totals, counted, state.over, winners)

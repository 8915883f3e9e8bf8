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

The board is kept as bitmasks (bit ``i`` is ``POSITIONS[i]``), so a whole random game
takes a few dozen microseconds; see ``bench/engine.py``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from controller.rules.notation import (
    BASE,
    POSITIONS,
    NotationError,
    Position,
    parse_position,
)

COLOURS = 3
"""Perlen-Pyramide is for exactly three players; colour = turn-order number 0, 1, 2."""
POOL = 25
"""Pearls of each colour in a set."""
BASE_CELLS = 25
PEARLS = 55


# -- options -----------------------------------------------------------------------------


class Ties(enum.Enum):
    """House rule for players level on score."""

    SHARED = "shared"
    """They share the win (default)."""
    TOTAL = "total"
    """Break the tie by total pearls in the pyramid, then share."""


class Pools(enum.Enum):
    """House rule for the 25 pearls per colour."""

    STRICT = "strict"
    """A bonus owed to an empty colour passes on; a player with none left passes."""
    UNLIMITED = "unlimited"
    """Ignore the pools (sets with spare pearls)."""


class Start(enum.Enum):
    """House variant for the first pearl."""

    ANYWHERE = "anywhere"
    CENTRE = "centre"
    """"Centre start": the first pearl must go on c3."""


class Placement(enum.Enum):
    """House variant for where base pearls may go."""

    TOUCHING = "touching"
    """Every base pearl after the first touches an occupied cell (default)."""
    FREE = "free"
    """"Open placement": any empty cell."""


class Score(enum.Enum):
    """House variant for what scores."""

    VISIBLE = "visible"
    """The 41 pearls visible from outside (default)."""
    ALL = "all"
    """"Every pearl counts": all 55."""


class OptionError(ValueError):
    """Game options that are not understood; ``key`` names the bad one."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"option {key!r}: {problem}")
        self.key = key


_ENUM_OPTIONS: dict[str, type[enum.Enum]] = {
    "ties": Ties,
    "pools": Pools,
    "start": Start,
    "placement": Placement,
    "score": Score,
}


@dataclass(frozen=True, slots=True)
class PerlenOptions:
    """The house rules and variants chosen at setup (RULES.md names them)."""

    ties: Ties = Ties.SHARED
    pools: Pools = Pools.STRICT
    start: Start = Start.ANYWHERE
    placement: Placement = Placement.TOUCHING
    score: Score = Score.VISIBLE
    first_seat: int = 0
    """The seat at the table that starts and so plays colour 0 (seats are 0, 1, 2)."""

    def __post_init__(self) -> None:
        if isinstance(self.first_seat, bool) or self.first_seat not in range(COLOURS):
            raise OptionError("first_seat", f"must be 0, 1 or 2, not {self.first_seat!r}")

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> PerlenOptions:
        """Options from a record or a form; unknown keys and values are errors.

        >>> PerlenOptions.from_dict({"pools": "unlimited"}).pools
        <Pools.UNLIMITED: 'unlimited'>
        """
        if not isinstance(raw, Mapping):
            raise OptionError("options", "must be an object of option names and values")
        values: dict[str, Any] = {}
        for key, value in raw.items():
            if key == "first_seat":
                values[key] = value
                continue
            kind = _ENUM_OPTIONS.get(key)
            if kind is None:
                known = ", ".join([*_ENUM_OPTIONS, "first_seat"])
                raise OptionError(key, f"unknown option (known: {known})")
            try:
                values[key] = kind(value)
            except ValueError:
                allowed = " or ".join(repr(m.value) for m in kind)
                raise OptionError(key, f"must be {allowed}, not {value!r}") from None
        return cls(**values)

    def to_dict(self) -> dict[str, str | int]:
        return {
            "ties": self.ties.value,
            "pools": self.pools.value,
            "start": self.start.value,
            "placement": self.placement.value,
            "score": self.score.value,
            "first_seat": self.first_seat,
        }

    def seat_of(self, colour: int) -> int:
        """The seat at the table that plays ``colour``."""
        return (self.first_seat + colour) % COLOURS


# -- bonus pearls ------------------------------------------------------------------------


class BonusRule(enum.Enum):
    """Which rule gave a bonus pearl its colour."""

    MAJORITY = "majority"
    """3:1 or 2:1:1: the colour with most pearls in the group."""
    TWO_TWO = "two-two"
    """2:2: the third colour, absent from the group."""
    FOUR_OF_A_KIND = "four-of-a-kind"
    """4 of colour c: colour (c + 1) mod 3."""
    PASSED_ON = "passed-on"
    """The rule's colour had no pearls left; the next colour in turn order got it."""


@dataclass(frozen=True, slots=True)
class Bonus:
    """A bonus pearl the rules place on top of a completed 2×2 group."""

    position: Position
    """Where it goes (layer 2 to 5)."""
    colour: int
    """The colour it is."""
    rule: BonusRule
    """The group's rule (never PASSED_ON)."""
    passed_from: int | None = None
    """The colour the rule named, when that pool was empty and it passed on."""

    @property
    def reason(self) -> BonusRule:
        """The rule, or PASSED_ON when the pearl went to another colour."""
        return BonusRule.PASSED_ON if self.passed_from is not None else self.rule


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


# -- precomputed tables ------------------------------------------------------------------


def _neighbours(cell: Position) -> int:
    mask = 0
    for other in BASE:
        if (
            other is not cell
            and abs(other.file - cell.file) <= 1
            and abs(other.rank - cell.rank) <= 1
        ):
            mask |= 1 << other.index
    return mask


_BASE_MASK = (1 << BASE_CELLS) - 1
_CENTRE = parse_position("c3")
_NEIGHBOURS: tuple[int, ...] = tuple(_neighbours(c) for c in BASE)
_SUPPORTS: tuple[int, ...] = tuple(sum(1 << s.index for s in p.supports) for p in POSITIONS)
_PARENTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(q.index for q in POSITIONS if p in q.supports) for p in POSITIONS
)
_VISIBLE_MASK = sum(1 << p.index for p in POSITIONS if p.visible)
_ALL_MASK = (1 << PEARLS) - 1


def bonus_rule(counts: tuple[int, int, int]) -> tuple[int, BonusRule]:
    """The colour and rule for a complete group holding ``counts`` pearls of each colour.

    The one place the bonus rules of RULES.md are written down; the computer player's
    search tables are made from it too.

    >>> bonus_rule((2, 0, 2))
    (1, <BonusRule.TWO_TWO: 'two-two'>)
    """
    top = max(counts)
    c = counts.index(top)
    if top == 4:
        return (c + 1) % COLOURS, BonusRule.FOUR_OF_A_KIND
    if top == 3 or sorted(counts) == [1, 1, 2]:
        return c, BonusRule.MAJORITY
    # 2:2 -> the colour absent from the group
    return counts.index(0), BonusRule.TWO_TWO


_RULE_TABLE: dict[tuple[int, int, int], tuple[int, BonusRule]] = {
    (a, b, 4 - a - b): bonus_rule((a, b, 4 - a - b)) for a in range(5) for b in range(5 - a)
}
_RULE_ORDER = (BonusRule.MAJORITY, BonusRule.TWO_TWO, BonusRule.FOUR_OF_A_KIND)
# (colour, rule number) by n0 * 5 + n1 for a group with n0, n1 and 4 - n0 - n1 pearls.
_RULES: tuple[tuple[int, int], ...] = tuple(
    (colour, _RULE_ORDER.index(rule))
    for n0 in range(5)
    for n1 in range(5)
    for colour, rule in [_RULE_TABLE.get((n0, n1, 4 - n0 - n1), (0, BonusRule.MAJORITY))]
)


# Every bonus pearl that can exist, made once: play() hands out shared values. Index:
# (((position - 25) * 3 + colour) * 3 + rule) * 4 + (0, or 1 + the colour it passed from).
_BONUSES: tuple[Bonus, ...] = tuple(
    Bonus(p, colour, kind, passed)
    for p in POSITIONS[BASE_CELLS:]
    for colour in range(COLOURS)
    for kind in _RULE_ORDER
    for passed in (None, 0, 1, 2)
)


# The base cells of every pattern of bits 0-8, 9-16 and 17-24 of a legal-move mask, so
# that legal_moves() is three look-ups (1,024 small tuples made at import).
_LOW, _MID, _HIGH = (
    tuple(
        tuple(BASE[first + i] for i in range(width) if bits >> i & 1) for bits in range(1 << width)
    )
    for first, width in ((0, 9), (9, 8), (17, 8))
)


# -- the game ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PerlenState:
    """A position of the game: which pearl of which colour is where, and whose turn."""

    options: PerlenOptions
    occupied: int
    """Bitmask of occupied positions (bit ``i`` is ``POSITIONS[i]``)."""
    colours: tuple[int, int, int]
    """Bitmask of the pearls of each colour."""
    to_move: int | None
    """Colour to move, or None when the pyramid is complete."""
    reach: int = 0
    """Base cells touching an occupied base cell (kept to make legal moves cheap)."""

    @property
    def over(self) -> bool:
        return self.to_move is None

    @property
    def base_pearls(self) -> int:
        return (self.occupied & _BASE_MASK).bit_count()

    def colour_at(self, pos: Position | str) -> int | None:
        """The colour of the pearl at ``pos``, or None when it is empty."""
        p = pos if isinstance(pos, Position) else parse_position(pos)
        bit = 1 << p.index
        for colour, mask in enumerate(self.colours):
            if mask & bit:
                return colour
        return None

    def pearls(self) -> tuple[tuple[Position, int], ...]:
        """Every pearl as (position, colour), in reading order."""
        out = []
        for p in POSITIONS:
            colour = self.colour_at(p)
            if colour is not None:
                out.append((p, colour))
        return tuple(out)

    def pools_left(self) -> tuple[int | None, int | None, int | None]:
        """Pearls left in each colour's pool (None for each with ``pools = unlimited``)."""
        if self.options.pools is Pools.UNLIMITED:
            return (None, None, None)
        a, b, c = (POOL - m.bit_count() for m in self.colours)
        return (a, b, c)


_new = object.__new__
_set = object.__setattr__


def _state(
    options: PerlenOptions,
    occupied: int,
    colours: tuple[int, int, int],
    to_move: int | None,
    reach: int,
) -> PerlenState:
    # play() makes a state per move; filling __dict__ in one step is twice as quick as the
    # frozen dataclass __init__ (one guarded setattr per field) and gives the same value.
    state: PerlenState = _new(PerlenState)
    _set(
        state,
        "__dict__",
        {
            "options": options,
            "occupied": occupied,
            "colours": colours,
            "to_move": to_move,
            "reach": reach,
        },
    )
    return state


def new_game(options: PerlenOptions | None = None) -> PerlenState:
    """An empty base; colour 0 to move."""
    return PerlenState(options or PerlenOptions(), 0, (0, 0, 0), 0, 0)


def _legal_mask(state: PerlenState) -> int:
    occupied = state.occupied
    if state.to_move is None:
        return 0
    if occupied == 0:
        if state.options.start is Start.CENTRE:
            return 1 << _CENTRE.index
        return _BASE_MASK
    empty = ~occupied & _BASE_MASK
    if state.options.placement is Placement.FREE:
        return empty
    return state.reach & empty


def legal_moves(state: PerlenState) -> tuple[Position, ...]:
    """The base cells the player to move may take, in reading order."""
    occupied = state.occupied
    if occupied and state.to_move is not None and state.options.placement is Placement.TOUCHING:
        m = state.reach & ~occupied & _BASE_MASK  # the usual case, inlined
    else:
        m = _legal_mask(state)
    return _LOW[m & 0x1FF] + _MID[m >> 9 & 0xFF] + _HIGH[m >> 17]


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


def play(state: PerlenState, move: Position | str) -> tuple[PerlenState, tuple[Bonus, ...]]:
    """Place a pearl of the mover's colour on base cell ``move``.

    Returns the new state and the bonus pearls the move earned, in reading order (which
    places every pearl's supports before it). Raises :class:`IllegalMoveError`.
    """
    if isinstance(move, Position) and 0 <= move.index < PEARLS and POSITIONS[move.index] is move:
        pos = move  # the shared value from legal_moves(): no parsing needed
    else:
        pos = _as_position(move)
    mover = state.to_move
    if mover is None:
        raise IllegalMoveError(IllegalReason.GAME_OVER, f"{pos.short}: the game is over")
    index = pos.index
    if index >= BASE_CELLS:
        raise IllegalMoveError(
            IllegalReason.NOT_BASE,
            f"{pos}: pearls are placed on the base; bonus pearls above it follow by the rules",
        )
    bit = 1 << index
    occupied = state.occupied
    if occupied & bit:
        raise IllegalMoveError(IllegalReason.OCCUPIED, f"{pos.short} is occupied")
    if occupied == 0:
        if state.options.start is Start.CENTRE and index != _CENTRE.index:
            raise IllegalMoveError(
                IllegalReason.NOT_CENTRE, f"{pos.short}: the first pearl goes on c3 (centre start)"
            )
    elif not state.reach & bit and state.options.placement is Placement.TOUCHING:
        raise IllegalMoveError(
            IllegalReason.NOT_TOUCHING,
            f"{pos.short} is not touching: a pearl must touch an occupied cell "
            "orthogonally or diagonally",
        )

    strict = state.options.pools is Pools.STRICT
    c0, c1, c2 = state.colours
    if mover == 0:
        c0 |= bit
    elif mover == 1:
        c1 |= bit
    else:
        c2 |= bit
    occupied |= bit

    bonuses: list[Bonus] = []
    frontier = _PARENTS[index]
    while frontier:
        placed: list[int] = []
        for p in frontier:
            support = _SUPPORTS[p]
            if occupied & support != support or occupied >> p & 1:
                continue
            colour, rule = _RULES[(c0 & support).bit_count() * 5 + (c1 & support).bit_count()]
            passed: int | None = None
            if strict:
                used = (c0, c1, c2)
                if used[colour].bit_count() >= POOL:
                    passed = colour
                    colour = (colour + 1) % COLOURS
                    if used[colour].bit_count() >= POOL:
                        colour = (colour + 1) % COLOURS
            pbit = 1 << p
            if colour == 0:
                c0 |= pbit
            elif colour == 1:
                c1 |= pbit
            else:
                c2 |= pbit
            occupied |= pbit
            key = ((p - BASE_CELLS) * 3 + colour) * 3 + rule
            bonuses.append(_BONUSES[key * 4 + (0 if passed is None else passed + 1)])
            placed.append(p)
        if not placed:
            break
        if len(placed) == 1:
            frontier = _PARENTS[placed[0]]
        else:
            frontier = tuple(sorted({q for p in placed for q in _PARENTS[p]}))

    colours = (c0, c1, c2)
    to_move: int | None
    if occupied & _BASE_MASK == _BASE_MASK:
        to_move = None
    else:
        to_move = (mover + 1) % COLOURS
        if strict:
            # A player whose pool is empty passes; 55 pearls < 75 so someone always has one.
            for _ in range(COLOURS):
                if colours[to_move].bit_count() < POOL:
                    break
                to_move = (to_move + 1) % COLOURS
    return (
        _state(state.options, occupied, colours, to_move, state.reach | _NEIGHBOURS[index]),
        tuple(bonuses),
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
    visible = tuple((m & _VISIBLE_MASK).bit_count() for m in state.colours)
    totals = tuple(m.bit_count() for m in state.colours)
    scores = totals if state.options.score is Score.ALL else visible
    winners: tuple[int, ...] = ()
    if state.over:
        best = max(scores)
        tied = [c for c in range(COLOURS) if scores[c] == best]
        if len(tied) > 1 and state.options.ties is Ties.TOTAL:
            most = max(totals[c] for c in tied)
            tied = [c for c in tied if totals[c] == most]
        winners = tuple(tied)
    v0, v1, v2 = visible
    t0, t1, t2 = totals
    s0, s1, s2 = scores
    return PerlenOutcome((v0, v1, v2), (t0, t1, t2), (s0, s1, s2), state.over, winners)

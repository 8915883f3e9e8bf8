"""What the LEDs say in Pyramidos: a pure function from a position to a picture.

- whose turn: the seat LED of the player to move, in their colour; the end-turn button
  glows in it;
- each target shows its owner's colour; the top blinks (pulses) in the mover's colour
  once it is open;
- a ball where none belongs flashes white, a ball missing blinks in its owner's colour;
- help for children: the empty base targets glow dimly in the mover's colour;
- game over: the winner's colour sweeps over the five targets in a row.

>>> from controller.games.pyramidos import rules as pyramidos
>>> state = pyramidos.apply(pyramidos.new_game(seats=2), pyramidos.parse_event("land t1"))
>>> lit = picture(state, [Light(0, (200, 0, 0)), Light(1, (0, 0, 200))])
>>> lit["t1"].colour, lit["seat:1"].colour
((200, 0, 0), (0, 0, 200))
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.games.pyramidos import rules as pyramidos
from controller.guidance import (
    CALM,
    SWEEP_DIAGONALS,
    SWEEP_PERIOD,
    SWEEP_TRAIL,
    GuidanceOptions,
    Light,
    Mismatch,
    Picture,
    mismatch_picture,
    seat,
    winner_colour,
)
from controller.palette import scaled
from controller.rules.notation import Target
from controller.vocabulary import TARGETS, Led, LedMode


def picture(
    state: pyramidos.PyramidosState,
    players: Sequence[Light],
    wrong: tuple[Mismatch, ...] = (),
    options: GuidanceOptions = CALM,
) -> Picture:
    """The picture of ``state`` (``players`` by seat; ``wrong`` where the board differs)."""
    if state.over and not wrong:
        return _over(state, players, options)
    lit: Picture = {}
    for name, owner in state.targets().items():
        if owner is not None:
            lit[name] = Led(players[owner].rgb, LedMode.STEADY)
    if state.over:
        lit.update(mismatch_picture(wrong, players))
        return lit
    mover = state.to_move
    seat(lit, players, mover, False)
    if wrong:
        lit.update(mismatch_picture(wrong, players))
        return lit
    colour = players[mover].rgb
    if state.top_open and state.owner(Target.TOP) is None:
        lit["top"] = Led(colour, LedMode.BLINK)
    if options.children_help:
        glow = Led(scaled(colour, options.dim), LedMode.STEADY)
        for target in TARGETS[:4]:
            if state.targets()[target] is None:
                lit[target] = glow
    lit["button:end_turn"] = Led(colour, LedMode.STEADY)
    return lit


def _over(
    state: pyramidos.PyramidosState, players: Sequence[Light], options: GuidanceOptions
) -> Picture:
    winners = pyramidos.outcome(state).winners
    lit: Picture = {}
    for w in winners:
        seat(lit, players, w, False)
    frame = options.sweep_frame
    if frame is None:
        for name, owner in state.targets().items():
            if owner is not None:
                lit[name] = Led(players[owner].rgb, LedMode.STEADY)
        return lit
    colour = winner_colour(players, winners, frame)
    # The five targets in a row (t1..t4, then the top), slowed to the base sweep's period.
    step = (frame % SWEEP_PERIOD) * len(TARGETS) // SWEEP_DIAGONALS
    for i, name in enumerate(TARGETS):
        behind = step - i
        if 0 <= behind < len(SWEEP_TRAIL):
            lit[name] = Led(scaled(colour, SWEEP_TRAIL[behind]), LedMode.STEADY)
    return lit

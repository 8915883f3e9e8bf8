"""What the LEDs say in Perlen-Pyramide: a pure function from a position to a picture.

It draws what the user guide (docs/user-guide.md, "What the lights say") promises:

- whose turn: the seat LED of the player to move, in their colour (blinking while a
  computer seat is still thinking);
- a bonus pearl to place: the base footprint of its position blinks in the bonus colour
  (one at a time: the referee passes the one to show first; the confirm button glows in
  its colour);
- a move taken back under bonus pearls: the footprint of the top one flashes white;
- a pearl where none belongs: its cell flashes white; a pearl missing: its cell blinks in
  the colour that belongs there. While anything is wrong only that is shown, so the
  family fixes the board before anything else;
- the computer's chosen cell, or a hint, blinks in the mover's colour;
- help for children: legal cells glow dimly in the mover's colour;
- game over: the winner's colour sweeps the board, one diagonal at a time (frame ``k``
  of the animation is ``GuidanceOptions(sweep_frame=k)``; the referee steps it on a timer).

>>> from controller.games.perlen import rules as perlen
>>> state, _ = perlen.play(perlen.new_game(), "c3")
>>> players = [Light(seat=0, rgb=(200, 0, 0)), Light(1, (0, 0, 200)), Light(2, (200, 200, 0))]
>>> lit = picture(state, players)
>>> lit["seat:1"]
Led(colour=(0, 0, 200), mode=<LedMode.STEADY: 'steady'>)
>>> sorted(lit)            # nothing else is lit: the board matches, no bonus waits
['seat:1']
>>> lit = picture(state, players, wrong=(Mismatch("d4", MismatchKind.EXTRA),))
>>> lit["d4"].colour, lit["d4"].mode.value
((255, 255, 255), 'blink')
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.games.perlen import rules as perlen
from controller.guidance import (
    CALM,
    SWEEP_PERIOD,
    SWEEP_TRAIL,
    GuidanceOptions,
    Light,
    Mismatch,
    MismatchKind,
    Picture,
    mismatch_picture,
    seat,
    winner_colour,
)
from controller.palette import WHITE, scaled
from controller.rules.notation import FILES
from controller.vocabulary import CELLS, Led, LedMode

__all__ = ["Mismatch", "MismatchKind", "picture"]


def picture(
    state: perlen.PerlenState,
    players: Sequence[Light],
    pending: tuple[perlen.Bonus, ...] = (),
    wrong: tuple[Mismatch, ...] = (),
    options: GuidanceOptions = CALM,
    take_off: tuple[str, ...] = (),
) -> Picture:
    """The picture of ``state``.

    ``players`` are indexed by colour number, as the game's states count them;
    ``pending`` are the bonus pearls still to be placed, the one to show first first;
    ``wrong`` where the board differs from the game; ``take_off`` the base footprint of
    the bonus pearl to take off a move taken back first (it flashes white, like every
    piece that does not belong).
    """
    mover = state.to_move
    if state.over and not pending and not wrong:
        return _over(state, players, options)
    lit: Picture = {}
    seat(lit, players, mover, options.thinking and not wrong and not pending)
    if wrong:
        lit.update(mismatch_picture(wrong, players))
        for cell in take_off:
            lit[cell] = Led(WHITE, LedMode.BLINK)
        return lit
    if pending:
        bonus = pending[0]
        colour = players[bonus.colour].rgb
        for cell in bonus.position.footprint:
            lit[cell] = Led(colour, LedMode.BLINK)
        lit["button:confirm"] = Led(colour, LedMode.STEADY)
        return lit
    if mover is None:
        return lit
    colour = players[mover].rgb
    if options.computer_move is not None:
        lit[options.computer_move] = Led(colour, LedMode.BLINK)
        return lit
    if options.children_help and not options.thinking:
        glow = Led(scaled(colour, options.dim), LedMode.STEADY)
        for legal in perlen.legal_moves(state):
            lit[legal.short] = glow
    if options.hint is not None:
        lit[options.hint] = Led(colour, LedMode.BLINK)
    return lit


def _over(state: perlen.PerlenState, players: Sequence[Light], options: GuidanceOptions) -> Picture:
    winners = perlen.outcome(state).winners
    lit: Picture = {}
    for w in winners:
        seat(lit, players, w, False)
    frame = options.sweep_frame
    if frame is None:
        calm = Led(scaled(players[winners[0]].rgb, options.dim), LedMode.STEADY)
        for cell in CELLS:
            lit[cell] = calm
        return lit
    colour = winner_colour(players, winners, frame)
    phase = frame % SWEEP_PERIOD
    for cell in CELLS:
        behind = phase - (FILES.index(cell[0]) + int(cell[1]) - 1)
        if 0 <= behind < len(SWEEP_TRAIL):
            lit[cell] = Led(scaled(colour, SWEEP_TRAIL[behind]), LedMode.STEADY)
    return lit

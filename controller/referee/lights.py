"""What the LEDs show for the referee's state (the picture by LED name).

The picture itself is :mod:`controller.guidance`'s pure function; this module says which
of the referee's facts it is drawn from: the waiting bonus pearl shown now, the top bonus
pearl to take off, the computer's choice, the hint, the winner's sweep, the LED test.
"""

from __future__ import annotations

from controller import guidance
from controller.referee import computer, kinds, progress
from controller.referee.state import RefereeState


def picture(state: RefereeState) -> guidance.Picture:
    test = state.animations.led_test
    if test is not None:
        if test.led is not None:
            return guidance.led_test([test.led], test.colour)
        return guidance.led_test(list(state.config.leds), test.colour, step=test.step)
    session = state.session
    if session is None:
        return {}
    game = session.game
    lights = [p.light for p in session.players]
    removals = state.comparison.removals
    options = guidance.GuidanceOptions(
        children_help=session.children_help,
        hint=computer.hint(state),
        computer_move=computer.chosen(state),
        thinking=computer.thinking(state),
        sweep_frame=state.animations.sweep_frame,
        take_off=removals[0].position.footprint if removals else (),
    )
    first = progress.shown(state)  # the waiting bonus pearl shown now leads
    pending = game.pending[first:] + game.pending[:first]
    wrong = state.comparison.mismatches
    return kinds.kind_of(game).picture(game, lights, pending, wrong, options)

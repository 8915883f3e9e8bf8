"""What the LEDs show for the referee's state (the picture by LED name).

The pieces every picture is made of are :mod:`controller.guidance`'s pure functions; this
module says which of the referee's facts the picture is drawn from (the computer's
choice, the hint, the winner's sweep, the LED test, the waiting piece shown now, the
pieces to take off first) and asks the game on the table for its own picture
(:meth:`~controller.referee.protocol.GameKind.picture`).
"""

from __future__ import annotations

from controller import guidance
from controller.referee import computer_seat, progress
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
    lights = [p.light for p in session.players]
    options = guidance.GuidanceOptions(
        children_help=session.children_help,
        hint=computer_seat.hint(state),
        computer_move=computer_seat.chosen(state),
        thinking=computer_seat.thinking(state),
        sweep_frame=state.animations.sweep_frame,
        pending_shown=progress.shown(state),
        removals=state.comparison.removals,
    )
    wrong = state.comparison.mismatches
    return session.kind.picture(session.game, lights, wrong, options)

"""Actions: the web page's requests turned into Table commands or virtual-board touches.

Views call these only after the PIN check. The Table handles each command on its own
thread and answers with a ``Reply``; a refused command (nothing to confirm, nothing to
undo) becomes 409 with the Table's own sentence, a Table that does not answer in time 503.
"""

from __future__ import annotations

import time
from typing import Any, Final

from flask import abort
from flask_babel import gettext

from controller import table as table_module
from controller.hardware.channels import BUTTONS
from controller.hardware.sim import SimBoard
from web_ui.app import web_state
from web_ui.forms import GameSetup, LedTestRequest, VirtualPress

SIMPLE: Final = {
    "confirm": table_module.ConfirmBonus,
    "end_turn": table_module.EndTurn,
    "undo": table_module.Undo,
    "abort": table_module.Abort,
    "hint": table_module.Hint,
}
"""The game buttons of the live page, by the name in ``/api/command/<name>``."""

BUTTON_HOLD: Final = 0.03
"""How long a virtual button stays down: one frame pressed, then one released."""


def submit(command: Any) -> Any:
    """Hand ``command`` to the Table and wait for its reply (or answer 503)."""
    web = web_state()
    try:
        reply = web.table.submit(command, timeout=web.settings.command_timeout)
    except TimeoutError:
        abort(503, gettext("The board did not answer in time. Try again."))
    if not reply.ok:
        abort(409, reply.message or gettext("The board refused that."))
    return reply


def new_game(setup: GameSetup) -> Any:
    command = table_module.NewGame(
        game=setup.game,
        players=tuple(p.name for p in setup.players),
        options=dict(setup.options),
        children_help=setup.children_help,
        computer=setup.computer,
        colours=tuple(p.colour for p in setup.players),
    )
    return submit(command)


def simple(name: str) -> Any:
    kind = SIMPLE.get(name)
    if kind is None:
        abort(404, gettext("There is no such command."))
    return submit(kind())


def led_test(request: LedTestRequest) -> Any:
    return submit(table_module.LedTest(led=request.led, colour=request.colour))


def virtual(press: VirtualPress) -> bool:
    """Touch the simulated board as a hand would; returns whether the sensor is now on."""
    web = web_state()
    board = web.board
    if not isinstance(board, SimBoard):
        abort(409, gettext("This board has real sensors; the page cannot move pearls on it."))
    channel = web.channel_map.channel(press.name)
    if press.name in BUTTONS:
        board.set_channel(channel, True)
        time.sleep(BUTTON_HOLD)  # two frames, as a finger makes: down, then up
        board.set_channel(channel, False)
        return False
    now = channel in board.read().active
    on = {"toggle": not now, "on": True, "off": False}[press.action]
    board.set_channel(channel, on)
    return on

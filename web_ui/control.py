"""Actions: the web page's requests turned into Table commands or virtual-board touches.

Views call these only after the PIN check. The Table handles each command on its own
thread and answers with a :class:`~controller.referee.state.Reply`: a refused command
(nothing to confirm, nothing to undo) becomes 409 with the referee's reason in the
reader's language, a Table that does not answer in time 503.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Final

from flask import abort
from flask_babel import gettext

from controller.hardware.channels import BUTTONS
from controller.referee.commands import ACTIONS, Act, Command, LedTest, NewGame
from controller.referee.snapshot import Snapshot
from controller.referee.state import Reply
from controller.table import TableBusy
from web_ui.forms import GameForm, InputError, LedTestRequest, VirtualPress
from web_ui.render import say
from web_ui.state import web_state

BUTTON_HOLD: Final = 0.03
"""How long a virtual button stays down: one frame pressed, then one released."""


def submit(command: Command) -> Reply:
    """Hand ``command`` to the Table and wait for its reply (409 refused, 503 no answer; a
    new game the referee refuses is an :class:`InputError` on the field it names, with
    every other mistake the referee found in it)."""
    web = web_state()
    try:
        reply = web.table.submit(command, timeout=web.settings.command_timeout)
    except TableBusy:
        abort(503, gettext("The board did not answer in time. Try again."))
    if not reply.ok and reply.field is not None:
        also = ((field or "players", say(why)) for field, why in reply.also)
        raise InputError(reply.field, say(reply.message), *also)
    if not reply.ok:
        abort(409, say(reply.message) or gettext("The board refused that."))
    return reply


def new_game(setup: GameForm) -> Reply:
    command = NewGame(
        game=setup.game,
        players=tuple(p.name for p in setup.players),
        options=dict(setup.options),
        children_help=setup.children_help,
        computer=setup.computer,
        colours=tuple(p.colour for p in setup.players),
        remote=setup.remote,
    )
    return submit(command)


def actions() -> frozenset[str]:
    """The game buttons of the live page, by the name in ``/api/command/<name>``: every
    game's own and those every game has."""
    own = (name for kind in web_state().table.games.values() for name in kind.actions)
    return frozenset((*own, *ACTIONS))


def action(name: str) -> Reply:
    if name not in actions():
        abort(404, gettext("There is no such command."))
    return submit(Act(name))  # the game on the table says what the button does now


def led_test(request: LedTestRequest) -> Reply:
    return submit(LedTest(led=request.led, colour=request.colour))


@dataclass(frozen=True, slots=True)
class Touched:
    """What a touch of the virtual board became, once the Table had handled it."""

    active: bool
    """Whether the sensor is on now."""
    snapshot: Snapshot
    """The first snapshot that shows the touch handled (and stored, if it was a move)."""


def virtual(press: VirtualPress) -> Touched:
    """Touch the board as a hand would and wait until the Table has taken it (only a board
    that takes touches, the simulated one, can be touched from the page)."""
    web = web_state()
    board = web.table.touchable
    if board is None:
        abort(409, gettext("This board has real sensors; the page cannot move pearls on it."))
    cmap = web.channel_map
    if press.action == "clear":
        # Between games every piece comes off; during one, the pieces it does not have.
        shown = web.table.snapshot
        names = {c: cmap.name_by_channel.get(c, "") for c in board.read().active}
        if shown.game is None or shown.over:
            gone = {c for c, name in names.items() if name not in BUTTONS}
        else:
            extra = {m.cell for m in shown.mismatches if m.kind == "extra"}
            # and the pieces where the game's drawing has no place (web_ui.render)
            view = web.view_of(shown.game)
            drawn = view.places if view is not None and view.places else None
            gone = {
                c
                for c, name in names.items()
                if name in extra
                or (drawn is not None and name not in drawn and name not in BUTTONS)
            }
        frame = board.set_active(c for c in names if c not in gone)
        on = False
    elif press.name in BUTTONS:
        channel = cmap.channel(press.name)
        board.set_channel(channel, True)
        time.sleep(BUTTON_HOLD)  # two frames, as a finger makes: down, then up
        frame = board.set_channel(channel, False)
        on = False
    else:
        channel = cmap.channel(press.name)
        now = channel in board.read().active
        on = {"toggle": not now, "on": True, "off": False}[press.action]
        frame = board.set_channel(channel, on)
    seq = board.read().seq if frame is None else frame.seq
    snap = web.table.handled(seq, web.settings.command_timeout)
    if snap is None:
        abort(503, gettext("The board did not answer in time. Try again."))
    return Touched(on, snap)

"""The snapshot made from what it shows: a game's position, and the referee's whole state.

:func:`position` is the snapshot of one position of a game, for the replay of a past game
and the pictures of the rules page (and, with what the referee adds, for the live page);
:func:`of` is the referee's own, with what only it knows (mismatches, prompts, the
commands available now): every Server-Sent-Events update and ``GET /api/state``. The
values they make are :mod:`controller.referee.snapshot`'s.

>>> from controller.referee.state import RefereeState
>>> snap = of(RefereeState(), version=1, at=0.0)
>>> snap.status.value, snap.commands, snap.to_json()["players"]
('idle', (), [])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from controller.referee import computer_seat, guard, prompts
from controller.referee.players import Player, default_name
from controller.referee.protocol import GameKind, Options
from controller.referee.snapshot import (
    Cue,
    LedTestView,
    LinkView,
    MismatchView,
    PlayerView,
    Snapshot,
    Status,
)
from controller.referee.state import RefereeState


def player_view(player: Player, players: Sequence[Player]) -> PlayerView:
    """``player`` as the page shows them, among ``players`` (an unnamed seat's default
    name tells two unnamed computers of one level apart by their seats)."""
    c = player.colour
    default = default_name(player, players)
    return PlayerView(
        player.number,
        player.seat,
        "" if default is not None else player.name,
        c.hex,
        c.name,
        c.letter,
        c.pattern_id,
        player.computer,
        default,
        player.remote,
    )


def position(
    players: Sequence[PlayerView],
    kind: GameKind,
    state: object,
    options: Options,
    *,
    pending: Sequence[object] = (),
    last_move: str | None = None,
) -> Snapshot:
    """The snapshot of a position of a game of ``kind``, for the replay and the rules
    pictures (and, with what the referee adds, for the live page). ``pending`` are the
    pieces still to place by hand, which the game lists apart from those placed."""
    snap = kind.position(state, options, pending, last_move)
    return dataclasses.replace(snap, players=tuple(players))


def of(state: RefereeState, *, version: int, at: float) -> Snapshot:
    """The referee's snapshot: the position and everything the referee adds."""
    reading = state.reading
    link = reading.link
    link_view = None
    if link is not None:
        link_view = LinkView(
            link.adapter, link.link.value, link.since, link.detail, dict(link.counters)
        )
    test = state.animations.led_test
    cue = state.animations.cue
    idle = Snapshot(
        version=version,
        sensors=tuple(sorted(reading.names)),
        link=link_view,
        toggles=dict(reading.toggles),
        led_test=None if test is None else LedTestView(test.led, _hex(test.colour)),
        sensor_seq=reading.seq,
        at=at,
        note=state.note.messages,
        fault=state.note.fault or state.fault is not None,
        cue=None if cue is None else Cue(cue.value, state.animations.cues),
    )
    session = state.session
    if session is None:
        return idle
    game = session.game
    check = state.comparison
    now = status(state)
    players = tuple(player_view(p, session.players) for p in session.players)
    snap = position(
        players,
        session.kind,
        game.state,
        session.options,
        pending=game.pending,
        last_move=game.last_move,
    )
    snap = dataclasses.replace(
        snap,
        version=idle.version,
        sensors=idle.sensors,
        link=idle.link,
        toggles=idle.toggles,
        led_test=idle.led_test,
        sensor_seq=idle.sensor_seq,
        at=idle.at,
        note=idle.note,
        fault=idle.fault,
        cue=idle.cue,
        game_id=session.game_id,
        status=now,
        mismatches=tuple(MismatchView(m.cell, m.kind.value, m.colour) for m in check.mismatches),
        hint=computer_seat.hint(state),
        computer_move=computer_seat.chosen(state),
        thinking=computer_seat.thinking(state),
        prompt=prompts.prompt(state),
        moves=game.moves,
        children_help=session.children_help,
        commands=guard.offered(state),
        winners=snap.winners if game.over else (),
    )
    return session.kind.shown(game, prompts.scene(state), snap)


def _hex(colour: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


def status(state: RefereeState) -> str:
    session = state.session
    if session is None:
        return Status.IDLE
    game = session.game
    if game.over:
        return Status.OVER
    if state.comparison.mismatches:
        return Status.MISMATCH
    if game.pending:
        return session.kind.waiting_status
    return Status.PLAYING


__all__ = ["of", "player_view", "position", "status"]

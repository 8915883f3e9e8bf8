"""What the referee asks of the players right now, worked out from its state.

The page's status line has two parts: the note (what just happened, kept in the state
until the next thing happens on the board) and the prompt, made here each time from the
state, so it is always current: a change waiting for the board to settle (a take-back, a
shift, knock-offs: the game's words for it), what the game itself finds more pressing
(pieces to take off), the board's mismatch and how to fix it, the pieces still to place by
hand, whose turn it is.

A game answers over its own values and a :class:`~controller.referee.protocol.Scene`, which
:func:`scene` makes from the referee's state: what of the table a game may know.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.guidance import MismatchKind
from controller.referee import computer_seat
from controller.referee.messages import Items, Message, Param, Term, colour_term, place, places
from controller.referee.players import unnamed
from controller.referee.progress import piece_word, shown
from controller.referee.protocol import Scene
from controller.referee.state import RefereeState


def scene(state: RefereeState) -> Scene:
    """What the game on the table may know of it when the referee asks it something."""
    session = state.session
    assert session is not None, "a game is on the table"
    watch = state.comparison
    return Scene(
        players=session.players,
        mismatches=watch.mismatches,
        fixes=fixes(state) if watch.mismatches else Items(()),
        held=None if watch.settling is None else watch.settling.held,
        removals=watch.removals,
        pending_shown=shown(state),
        hints=bool(state.config.levels),
    )


def take_off(extra: Sequence[str], word: str, everything: bool, count: int = 0) -> Message:
    """``take off the pearls with the red ✕ (b3 and c4)``; ``take all 55 pearls off the
    board`` when the game has none on it (between games), so a full board is one short
    sentence.

    ``word``: ``pearl`` or ``ball``; ``count``: how many pieces lie on the board (the
    game's :meth:`~controller.referee.protocol.GameKind.stacked`; else one per place)."""
    what = Term("thing", word if len(extra) == 1 else word + "s")
    if everything and len(extra) > 1:
        return Message.of("fix_clear", thing=what, num=max(count, len(extra)))
    return Message.of("fix_extra", thing=what, cells=places(extra))


def fixes(state: RefereeState) -> Items:
    """How to make the board match: ``take off the pearl with the red ✕ (d5); put Ben's
    blue pearl back on c3``."""
    session = state.session
    assert session is not None
    watch = state.comparison
    covered = watch.refusal.covers if watch.refusal is not None else frozenset()
    extra = tuple(
        m.cell for m in watch.mismatches if m.kind is MismatchKind.EXTRA and m.cell not in covered
    )
    parts: list[Param] = []
    if extra:
        word = session.kind.piece
        everything = not session.game.expected
        count = session.kind.stacked(frozenset(extra)) if everything else 0
        parts.append(take_off(extra, word, everything, count))
    for m in watch.mismatches:
        if m.kind is not MismatchKind.MISSING:
            continue
        if m.colour is not None:
            owner = session.players[m.colour]
            parts.append(
                Message.of(
                    # a pearl of the other board's player: placed here for them
                    "fix_missing_remote" if owner.remote else "fix_missing_owned",
                    player=session.name(m.colour),
                    thing=piece_word(session),
                    colour=colour_term(owner.colour.name),
                    cell=place(m.cell),
                )
            )
        else:
            parts.append(Message.of("fix_missing", thing=piece_word(session), cell=place(m.cell)))
    return Items(tuple(parts))


def prompt(state: RefereeState) -> tuple[Message, ...]:
    """What to do now (empty: nothing to ask, e.g. no game)."""
    session = state.session
    if session is None:
        return ()
    watch = state.comparison
    game = session.game
    said: list[Message] = []
    if watch.settling is not None:
        return (watch.settling.held.waiting,)
    urgent = session.kind.urgent(game, scene(state))
    if urgent is not None:
        return urgent
    if watch.mismatches:
        if watch.refusal is not None:
            said.append(watch.refusal.why)
        found = fixes(state)
        if found.items:
            said.append(Message.of("fix_board", fixes=found))
        return tuple(said)
    owed = session.kind.owed(game, scene(state))
    if owed is not None:
        return owed
    if game.over:
        return ()
    mover = game.to_move
    if mover is None:
        return ()
    player = session.players[mover]
    if player.remote:
        return (Message.of("remote_to_move", player=session.name(mover)),)
    if player.computer is not None and not computer_seat.failed(state):
        chosen = computer_seat.chosen(state)
        # "Computer (strong)" says computer already; a named one is marked "(computer)".
        prefix = "unnamed_" if unnamed(player) else ""
        if chosen is None:
            return (Message.of(prefix + "computer_thinking", player=session.name(mover)),)
        chose = prefix + "computer_chose"
        piece = piece_word(session)
        return (Message.of(chose, player=session.name(mover), cell=chosen, thing=piece),)
    return (Message.of("to_move", player=session.name(mover)),)

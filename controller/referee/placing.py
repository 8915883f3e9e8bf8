"""The referee's reading of the board: which change of the sensors is a move, for any game.

The referee compares the board with the game (:func:`differences`): a board that matches
arms it, a finished game's board is only cleared. A board that differs from a game still
played is read here (:func:`read`); the game answers pure questions over its own values
(:class:`~controller.referee.protocol.GameKind`), the flow is the referee's:

- new pieces on a board that matched just before ("armed"), nothing missing: each is asked
  of the game (:meth:`~controller.referee.protocol.GameKind.placed`), after the referee's
  own checks: a piece put down within ``together_s`` of a move is "placed together" (when
  the game says so, :attr:`~controller.referee.protocol.GameKind.together`); a seat on the
  other board moves there; a computer seat's piece goes where the computer chose. One
  right piece is the move, stored with the events the game gives and said in its words;
  several right ones are none (:meth:`~controller.referee.protocol.GameKind.several` may
  say why). Pieces refused since the board matched, with nothing missing since, are the
  only ones marked wrong while a single right piece lies beside them, and lifting them
  leaves that one as the move (wrong, then right). At the first reading after a restart
  one piece more than the game can be the move placed while the power was off (its
  announcement then says both: ``Game 4 resumed after 7 moves. Cleo played e1.``);
- a board the game reads as a change once it stays so
  (:meth:`~controller.referee.protocol.GameKind.held`: the last piece lifted, moved to
  another place, pieces gone) is held for ``settle_s`` and then carried out. A held
  take-back is only for a move made on this board, and one that puts a piece down (a
  shift) only for a person's move. Pieces gone that the game reads as falling off (a hold
  that takes nothing back) leave the position standing: a new piece beside them is still
  read as a move, and they are held afresh after it;
- anything else: a mismatch. Nothing is played until the board matches the game again, so
  a bumped board never makes a move.

Undo (:func:`take_back`) takes back the last move as the game says
(:meth:`~controller.referee.protocol.GameKind.took_back`); the board must then match again.
``docs/architecture.md`` walks it through on the toy game in ``tests/games/toy``.
"""

from __future__ import annotations

import dataclasses

from controller.referee import computer_seat, progress, prompts
from controller.referee.events import By, TakeBack
from controller.referee.fold import fold
from controller.referee.messages import Message
from controller.referee.players import unnamed
from controller.referee.protocol import Differences, Held, Move
from controller.referee.session import Session
from controller.referee.state import (
    Announcement,
    BoardCheck,
    RefereeState,
    Refusal,
    Reply,
    Settling,
    Step,
)


def differences(state: RefereeState, session: Session) -> Differences:
    """Where the board differs from the game on the game's places."""
    game = session.game
    on = state.reading.names & game.pieces
    return Differences(on - game.expected, game.expected - on)


def read(state: RefereeState, session: Session, board: Differences, now: float) -> Step:
    """The ``board`` differs from a game still played: play what it says (a move, a held
    change), or show the mismatch."""
    game, kind = session.game, session.kind
    watch = state.comparison
    extra, missing = board.extra, board.missing
    scene = prompts.scene(state)
    # A take-back or shift settling keeps ``armed`` (so it can still act), but the board
    # did not match just before: a piece put back with a new one in the same frame is no
    # move until the board matches again (docs/architecture.md, reconciliation).
    hold = watch.settling
    matched_before = watch.armed and (hold is None or not hold.held.undoes)
    resumed = watch.resumed and kind.resumed_move
    if extra and (matched_before or resumed or watch.wrong):
        gone = kind.held(game, Differences(frozenset(), missing), scene) if missing else None
        if not missing or (gone is not None and not gone.undoes):
            return _sorted_out(state, session, board, now)
    if watch.armed:
        wanted = kind.held(game, board, scene)
        if wanted is not None and _may_hold(session, board, wanted):
            return _held(state, session, board, wanted, now)
    return Step(progress.mismatch(state, game, extra, missing, armed=False))


def _may_hold(session: Session, board: Differences, wanted: Held) -> bool:
    """A take-back only of a move made here (the other board's is taken back there), and
    a piece put down in its place only by a person (the computer chose that place)."""
    if not wanted.undoes:
        return True
    last = session.game.last_by
    if last is None or session.players[last].remote:
        return False
    return not board.extra or session.players[last].computer is None


def _sorted_out(state: RefereeState, session: Session, board: Differences, now: float) -> Step:
    """New pieces on a board that matched just before, or beside pieces refused since: one
    right piece is the move once the wrong ones are off (wrong, then right); until then
    only the wrong ones are marked. Two or more right ones: none is the move."""
    game, kind = session.game, session.kind
    watch = state.comparison
    chosen = computer_seat.chosen(state)
    answers = {p: _answer(state, session, p, now) for p in sorted(board.extra)}
    # A piece refused once stays wrong while it lies (placed too soon stays too soon), but
    # never the place a computer seat chose since: that place is never marked wrong.
    wrong = frozenset(
        p
        for p, why in answers.items()
        if isinstance(why, Refusal) or (p in watch.wrong and p != chosen)
    )
    right = board.extra - wrong
    if len(right) == 1 and not wrong:
        (place,) = right
        move = answers[place]
        assert isinstance(move, Move)
        step = play(state, session, move, now)
        if watch.resumed:  # "Game 4 resumed after 7 moves. Cleo played e1."
            said = Announcement((*state.note.messages, *step.state.note.messages))
            step = dataclasses.replace(step, state=dataclasses.replace(step.state, note=said))
        after = step.state.session
        if board.missing and after is not None and not after.game.over:
            # Pieces still gone (knocked off on the way) are held afresh from this move.
            again = read(step.state, after, differences(step.state, after), now)
            return progress.chain(step, again)
        return step
    if len(right) > 1:  # which one is meant? Nothing is played until the board matches.
        several = kind.several(board.extra)
        refusal = None if several is None else Refusal(several, board.extra)
        return Step(progress.mismatch(state, game, board.extra, board.missing, armed=False,
                                      refusal=refusal))  # fmt: skip
    refusal = None
    if len(wrong) == 1:
        (place,) = wrong
        answer = answers[place]
        refusal = answer if isinstance(answer, Refusal) else watch.refusal
    return Step(progress.mismatch(state, game, wrong, board.missing, armed=False,
                                  refusal=refusal, refused=wrong))  # fmt: skip


def _answer(state: RefereeState, session: Session, place: str, now: float) -> Move | Refusal:
    """The move a single new piece on ``place`` makes, or why it is none."""
    game, kind = session.game, session.kind
    if kind.together is not None and now - state.comparison.last_move_at < state.config.together_s:
        return Refusal(Message.of(kind.together))
    answer = kind.placed(game, place, prompts.scene(state))
    if isinstance(answer, Message):
        return Refusal(answer)
    mover = game.to_move
    assert mover is not None, "the game gives a move only for a player to move"
    player = session.players[mover]
    if player.remote:
        return Refusal(Message.of("remote_turn", player=session.name(mover)))
    if player.computer is not None and not computer_seat.failed(state):
        chosen = computer_seat.chosen(state)
        # "Computer (easy)" says computer already; a named one is marked "(computer)".
        prefix = "unnamed_" if unnamed(player) else ""
        name = session.name(mover)
        if chosen is None:
            return Refusal(Message.of(prefix + "computer_choosing", player=name))
        if place != chosen:
            return Refusal(
                Message.of(prefix + "computer_elsewhere", player=name, chosen=chosen, cell=place)
            )
    return answer


def play(state: RefereeState, session: Session, move: Move, now: float) -> Step:
    """The mover's piece: store the game's events and say its prompts."""
    new = fold(session.kind, session.game, move.events)
    step = progress.advance(state, session, new, move.events, move.said, now)
    armed = dataclasses.replace(step.state, comparison=BoardCheck(armed=True, last_move_at=now))
    return Step(armed, step.commit, step.effects)


def _held(
    state: RefereeState, session: Session, board: Differences, wanted: Held, now: float
) -> Step:
    """Wait until the board has stayed so for ``settle_s``, then carry the change out."""
    hold = state.comparison.settling
    if hold is None or hold.board != board or hold.held != wanted:
        hold = Settling(wanted, board, now + state.config.settle_s)
    if now >= hold.deadline:
        return settled(state, session, hold, now)
    return Step(progress.mismatch(state, session.game, board.extra, board.missing, armed=True,
                                  settling=hold))  # fmt: skip


def settled(state: RefereeState, session: Session, hold: Settling, now: float) -> Step:
    """The board stayed so: the held change is stored and said; the board matches it (a
    piece put down in it counts as a move just made)."""
    held = hold.held
    new = fold(session.kind, session.game, held.events)
    step = progress.advance(state, session, new, held.events, held.said, now)
    last = now if hold.board.extra else state.comparison.last_move_at
    watch = BoardCheck(armed=True, last_move_at=last)
    return Step(dataclasses.replace(step.state, comparison=watch), step.commit, step.effects)


def take_back(state: RefereeState, session: Session, by: By, now: float) -> Step:
    """Undo: the last move taken back; the board must match again before play goes on (the
    pieces of that move come off, the game's ``removals`` first)."""
    game = session.game
    undone = session.kind.took_back(game, prompts.scene(state))
    event = TakeBack(by, undone.what)
    step = progress.advance(state, session, game.undo(), (event,), [undone.said], now)
    watch = BoardCheck(
        armed=False, last_move_at=state.comparison.last_move_at, removals=undone.removals
    )
    unarmed = dataclasses.replace(step.state, comparison=watch)
    return Step(unarmed, step.commit, step.effects, Reply(True, undone.said))

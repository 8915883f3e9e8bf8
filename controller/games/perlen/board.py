"""Reading the board of Perlen-Pyramide: which change of the sensors is a move.

The referee always knows which base cells should hold a pearl. Comparing that with the
sensors (:func:`reconcile`):

- exactly one new pearl on a legal cell, nothing missing, while the board matched the
  game just before ("armed"), or at the first reading after a restart (a pearl placed
  while the power was off; its player is a person, for a computer's choice is lost with
  the power): the mover's move. It also acknowledges every bonus pearl still waiting:
  players who go on have placed them;
- the last base pearl lifted and kept off for ``settle_s``: that move is taken back; put
  on another legal cell instead (a move that earned no bonus pearl), the move is taken
  back and made there (:mod:`controller.games.perlen.takeback`);
- anything else (a pearl on an illegal cell, several new pearls, one placed too soon
  after the last move, a pearl missing): a mismatch. Nothing is played until the board
  matches the game again, so a bumped board never makes a move; except that pearls
  refused since the board matched, with nothing missing since, are the only ones marked
  wrong while a single right pearl lies beside them, and lifting them leaves that one as
  the move (wrong, then right).
"""

from __future__ import annotations

import dataclasses
from typing import Final

from controller.games.perlen import rules as perlen
from controller.games.perlen import takeback
from controller.games.perlen.events import BasePearl, BonusPlaced
from controller.games.perlen.game import PerlenGame
from controller.games.perlen.words import hidden_notes
from controller.referee.game import (
    Announcement,
    BoardCheck,
    By,
    Differences,
    Event,
    Message,
    RefereeState,
    Refusal,
    Session,
    Settling,
    Step,
    Term,
    advance,
    computer_chosen,
    computer_failed,
    mismatch,
    unnamed,
)
from controller.vocabulary import CELLS

CELL_SET: Final = frozenset(CELLS)


def reconcile(state: RefereeState, session: Session, board: Differences, now: float) -> Step:
    """The base differs from a game still played: play what the board says (a move, a
    take-back, a shift), or show the mismatch."""
    game = session.game
    extra, missing = board.extra, board.missing
    assert isinstance(game, PerlenGame), "a Perlen-Pyramide game"  # the registry's promise
    cells = state.reading.names & CELL_SET
    watch = state.comparison
    # A take-back or shift settling keeps ``armed`` (so it can still act), but the board
    # did not match just before: a pearl put back with a new one in the same frame is no
    # move until the board matches again (docs/architecture.md, reconciliation).
    matched_before = watch.armed and watch.settling is None
    if (matched_before or watch.resumed or watch.wrong) and not missing:
        return _sorted_out(state, session, game, extra, now)
    last = game.last
    here = last is not None and not session.players[last.colour].remote
    if watch.armed and last is not None and here and missing == {last.cell}:
        if not extra:
            return _held(state, session, game, Settling(takeback.TAKE_BACK, cells, 0.0), now)
        if len(extra) == 1:
            (cell,) = extra
            if takeback.can_shift(session, game, cell):
                return _held(state, session, game, Settling(takeback.SHIFT, cells, 0.0, cell), now)
    return Step(mismatch(state, game, extra, missing, armed=False))


def _sorted_out(
    state: RefereeState, session: Session, game: PerlenGame, extra: frozenset[str], now: float
) -> Step:
    """New pearls on a board that matched just before, or beside pearls refused since:
    one right pearl is the move once the wrong ones are off (wrong, then right); until
    then only the wrong ones are marked. Two or more right ones: none is the move."""
    watch = state.comparison
    chosen = computer_chosen(state)
    refusals = {c: refusal_for(state, session, game, c, now) for c in sorted(extra)}
    # A pearl refused once stays wrong while it lies (placed too soon stays too soon), but
    # never the cell a computer seat chose since: that cell is never marked wrong.
    wrong = frozenset(
        c for c, why in refusals.items() if why is not None or (c in watch.wrong and c != chosen)
    )
    right = extra - wrong
    if len(right) == 1 and not wrong:
        (cell,) = right
        step = play(state, session, game, cell, now)
        if watch.resumed:  # "Game 4 resumed after 7 moves. Cleo played e1."
            said = Announcement((*state.note.messages, *step.state.note.messages))
            step = Step(dataclasses.replace(step.state, note=said), step.commit, step.effects)
        return step
    if len(right) > 1:  # which one is meant? Nothing is played until the board matches.
        return Step(mismatch(state, game, extra, (), armed=False))
    refusal = None
    if len(wrong) == 1:
        (cell,) = wrong
        refusal = refusals[cell] or watch.refusal
    return Step(mismatch(state, game, wrong, (), armed=False, refusal=refusal, refused=wrong))


def _held(
    state: RefereeState, session: Session, game: PerlenGame, wanted: Settling, now: float
) -> Step:
    """Wait until the board has stayed so for ``settle_s``, then act on it."""
    hold = state.comparison.settling
    if hold is None or (hold.action, hold.key, hold.cell) != (
        wanted.action,
        wanted.key,
        wanted.cell,
    ):
        hold = Settling(wanted.action, wanted.key, now + state.config.settle_s, wanted.cell)
    if now >= hold.deadline:
        if hold.action is takeback.TAKE_BACK:
            return takeback.lifted(state, session, game, now)
        assert hold.cell is not None
        return takeback.shifted(state, session, game, hold.cell, now)
    cells = hold.key
    extra = cells - game.expected
    missing = game.expected - cells
    return Step(mismatch(state, game, extra, missing, armed=True, settling=hold))


def refusal_for(
    state: RefereeState, session: Session, game: PerlenGame, cell: str, now: float
) -> Refusal | None:
    """Why a single new pearl on ``cell`` is not the mover's move, or None if it is."""
    mover = game.state.to_move
    if mover is None:
        return Refusal(Message.of("pyramid_complete"))
    if now - state.comparison.last_move_at < state.config.together_s:
        return Refusal(Message.of("two_at_once"))
    if cell not in game.legal_cells():
        try:
            perlen.play(game.state, cell)
        except perlen.IllegalMoveError as exc:
            why = Term("illegal", exc.reason.value)
        else:  # pragma: no cover - legal_moves and play agree (tests/rules)
            why = Term("illegal", "occupied")
        return Refusal(Message.of("not_legal", cell=cell, why=why))
    player = session.players[mover]
    if player.remote:
        return Refusal(Message.of("remote_turn", player=session.name(mover)))
    if player.computer is not None and not computer_failed(state):
        chosen = computer_chosen(state)
        # "Computer (easy)" says computer already; a named one is marked "(computer)".
        prefix = "unnamed_" if unnamed(player) else ""
        name = session.name(mover)
        if chosen is None:
            return Refusal(Message.of(prefix + "computer_choosing", player=name))
        if cell != chosen:
            return Refusal(
                Message.of(prefix + "computer_elsewhere", player=name, chosen=chosen, cell=cell)
            )
    return None


def play(state: RefereeState, session: Session, game: PerlenGame, cell: str, now: float) -> Step:
    """The mover's pearl on ``cell``: acknowledge the waiting bonus pearls, then move."""
    mover = game.state.to_move
    assert mover is not None
    events: list[Event] = [BonusPlaced(str(b.position), b.colour, By.PEARL) for b in game.pending]
    new = game.acknowledge_all().move(cell)
    events.append(BasePearl(cell, mover))
    notes = [
        Message.of("played", player=session.name(mover), cell=cell),
        *hidden_notes(new),
    ]
    notes += [
        Message.of("passes", player=session.name(c)) for c in perlen.passes(game.state, new.state)
    ]
    step = advance(state, session, new, tuple(events), notes, now)
    moved = dataclasses.replace(step.state, comparison=BoardCheck(armed=True, last_move_at=now))
    return Step(moved, step.commit, step.effects)

"""The game moves on: what every change of the game shares.

A move, a take-back, an acknowledgement or any other event of a game all end here: the events to
store (with the result when the game has just ended), the new position (old hints and
computer answers no longer apply), what to say, and the LED animations that start.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from controller.guidance import Mismatch, MismatchKind
from controller.referee import computer_seat
from controller.referee.events import Event, Result
from controller.referee.messages import Items, Message, Term, unit_term
from controller.referee.protocol import Game
from controller.referee.session import Session
from controller.referee.state import (
    Animations,
    Announcement,
    BoardCheck,
    Commit,
    RefereeState,
    Refusal,
    Settling,
    Step,
)
from controller.rules.notation import parse_cell
from controller.vocabulary import TARGETS


def result(session: Session, game: Game) -> Result:
    """The finished game's scores and winners, as the store and the history keep them
    (an unnamed seat's name is kept empty, as its player's is)."""
    names = [p.name for p in session.players]
    out = game.outcome()
    details = {
        **out.details,
        "winners": list(out.winners),
        "winner_names": [names[w] for w in out.winners],
    }
    return Result(out.points, out.winners, details)


def won(session: Session, game: Game) -> Message:
    """``Game over: Anna wins with 17 visible pearls!`` (or a shared win)."""
    outcome = game.outcome()
    unit = outcome.unit
    best = outcome.points[outcome.winners[0]] if outcome.winners else 0
    names = [session.name(w) for w in outcome.winners]
    if len(names) == 1:
        return Message.of("won", player=names[0], num=best, unit=unit_term(unit, best))
    return Message.of(
        "shared_win", players=Items(tuple(names)), num=best, unit=unit_term(unit, best)
    )


def advance(
    state: RefereeState,
    session: Session,
    game: Game,
    events: tuple[Event, ...],
    notes: Iterable[Message],
    now: float,
    *,
    fresh: bool = True,
) -> Step:
    """Store ``events`` and move the game on to ``game``, saying ``notes``.

    ``fresh``: the position changed (hints and computer answers no longer apply); an
    acknowledged bonus pearl changes nothing the computer looks at.
    """
    ended = game.over and not session.game.over
    commit = Commit(session.game_id, events, result(session, game) if ended else None)
    said = tuple(notes)
    if ended:
        said += (won(session, game),)
    moved = dataclasses.replace(state, session=session.with_game(game), note=Announcement(said))
    moved = dataclasses.replace(moved, animations=shows(moved, now, ended=ended))
    if not fresh:
        return Step(moved, commit)
    moved, effects = computer_seat.new_position(moved)
    return Step(moved, commit, effects)


def shows(state: RefereeState, now: float, *, ended: bool = False) -> Animations:
    """The animations for the game as it now stands (the LED test and cues carry on)."""
    old = state.animations
    base = Animations(led_test=old.led_test, cue=old.cue, cues=old.cues)
    session = state.session
    if session is None:
        return base
    game = session.game
    pending = game.pending
    if game.over:
        if not ended:
            return old  # a finished game's animation runs on by its own timers
        if not pending:
            return sweep(base, state, now)
        # The last bonus pearls finish the pyramid, shown in turn until Confirm.
    if len(pending) > 1:
        return Animations(
            0, now + state.config.pending_step_s, led_test=old.led_test, cue=old.cue, cues=old.cues
        )
    return base


def sweep(show: Animations, state: RefereeState, now: float) -> Animations:
    """The winner's colour sweeps the board, for ``sweep_s``."""
    rules = state.config
    return Animations(
        led_test=show.led_test,
        cue=show.cue,
        cues=show.cues,
        sweep_frame=0,
        sweep_next=now + rules.sweep_step_s,
        sweep_until=now + rules.sweep_s,
    )


def place_order(name: str) -> tuple[int, int]:
    """Cells in reading order (a1, b1 … e5), then the targets in their order."""
    if name in TARGETS:
        return (9, TARGETS.index(name))
    cell = parse_cell(name)
    return (cell.rank, cell.file)


def mismatch(
    state: RefereeState,
    game: Game,
    extra: Iterable[str],
    missing: Iterable[str],
    *,
    armed: bool,
    refusal: Refusal | None = None,
    settling: Settling | None = None,
    refused: frozenset[str] = frozenset(),
) -> RefereeState:
    """The board differs from the game: say where; unless ``armed`` stays, disarm (nothing
    is played until the board matches again, unless ``refused`` pieces are all that keep it
    from one right move: :attr:`~controller.referee.state.BoardCheck.wrong`)."""
    owners = game.owners
    wrong = [Mismatch(c, MismatchKind.EXTRA) for c in sorted(extra, key=place_order)]
    wrong += [
        Mismatch(c, MismatchKind.MISSING, owners.get(c)) for c in sorted(missing, key=place_order)
    ]
    watch = dataclasses.replace(
        state.comparison,
        armed=armed and state.comparison.armed,
        mismatches=tuple(wrong),
        refusal=refusal,
        settling=settling,
        wrong=refused,
    )
    return dataclasses.replace(state, comparison=watch)


def matched(state: RefereeState) -> RefereeState:
    """The board matches the game: armed, nothing wrong, nothing to take off."""
    return dataclasses.replace(
        state, comparison=BoardCheck(armed=True, last_move_at=state.comparison.last_move_at)
    )


def piece_word(session: Session, count: int = 1) -> Term:
    """``pearl`` or ``ball`` (``pearls``/``balls`` for several): the game's piece."""
    word = session.kind.piece
    return Term("thing", word if count == 1 else word + "s")


def step_shown(state: RefereeState, now: float) -> RefereeState:
    """The timer of the pieces waiting to be placed by hand (Perlen-Pyramide's bonus
    pearls): show the next one's place.

    They take turns for as long as they wait, at the end of a game too: only Confirm (or
    the next move) says they are placed, never the clock.
    """
    show = state.animations
    session = state.session
    if session is None or not session.game.pending:
        return dataclasses.replace(state, animations=dataclasses.replace(show, pending_next=None))
    index = (show.pending_index + 1) % len(session.game.pending)
    return dataclasses.replace(
        state,
        animations=dataclasses.replace(
            show, pending_index=index, pending_next=now + state.config.pending_step_s
        ),
    )


def shown(state: RefereeState) -> int:
    """Which waiting piece the LEDs show now."""
    session = state.session
    if session is None or not session.game.pending:
        return 0
    return state.animations.pending_index % len(session.game.pending)


def chain(first: Step, second: Step) -> Step:
    """``first`` followed by ``second`` (made from ``first.state``), as one step."""
    commit = first.commit
    if second.commit is not None:
        if commit is None:
            commit = second.commit
        else:
            assert commit.game_id == second.commit.game_id, "one step stores into one game"
            commit = Commit(
                commit.game_id,
                commit.events + second.commit.events,
                second.commit.result or commit.result,
            )
    return Step(
        second.state,
        commit,
        first.effects + second.effects,
        second.reply or first.reply,
        second.create or first.create,
    )

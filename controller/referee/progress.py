"""The game moves on: what every change of the game shares.

A move, a take-back, an acknowledgement or a Pyramidos event all end here: the events to
store (with the result when the game has just ended), the new position (old hints and
computer answers no longer apply), what to say, and the LED animations that start.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from controller.guidance import Mismatch, MismatchKind
from controller.hardware.channels import TARGETS
from controller.referee import computer
from controller.referee.events import Event, Result
from controller.referee.games import Game, PerlenGame, hidden
from controller.referee.messages import Items, Message, Term, unit_term
from controller.referee.session import Session
from controller.referee.state import (
    Commit,
    Hold,
    Note,
    Referee,
    Refusal,
    Show,
    Step,
    Watch,
)
from controller.rules import perlen, pyramidos
from controller.rules.notation import parse_cell


def result(session: Session, game: Game) -> Result:
    """The finished game's scores and winners, as the store and the history keep them
    (an unnamed seat's name is kept empty, as its player's is)."""
    names = [p.name for p in session.players]
    if isinstance(game, PerlenGame):
        out = perlen.outcome(game.state)
        details: dict[str, object] = {
            "visible": list(out.visible),
            "totals": list(out.totals),
            "scores": list(out.scores),
            "winners": list(out.winners),
            "winner_names": [names[w] for w in out.winners],
        }
        return Result(out.scores, out.winners, details)
    pout = pyramidos.outcome(game.state)
    details = {
        "points": list(pout.points),
        "winners": list(pout.winners),
        "winner_names": [names[w] for w in pout.winners],
    }
    return Result(pout.points, pout.winners, details)


def won(session: Session, game: Game) -> Message:
    """``Game over: Anna wins with 17 visible pearls!`` (or a shared win)."""
    outcome = result(session, game)
    if isinstance(game, PerlenGame):
        unit = "pearls" if game.state.options.score is perlen.Score.ALL else "visible"
    else:
        unit = "points"
    best = outcome.points[outcome.winners[0]] if outcome.winners else 0
    names = [session.name(w) for w in outcome.winners]
    if len(names) == 1:
        return Message.of("won", player=names[0], num=best, unit=unit_term(unit, best))
    return Message.of(
        "shared_win", players=Items(tuple(names)), num=best, unit=unit_term(unit, best)
    )


def advance(
    state: Referee,
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
    moved = state.but(session=session.with_game(game), note=Note(said))
    moved = moved.but(show=shows(moved, now, ended=ended))
    if not fresh:
        return Step(moved, commit)
    moved, effects = computer.new_position(moved)
    return Step(moved, commit, effects)


def shows(state: Referee, now: float, *, ended: bool = False) -> Show:
    """The animations for the game as it now stands (the LED test and cues carry on)."""
    old = state.show
    base = Show(led_test=old.led_test, cue=old.cue, cues=old.cues)
    session = state.session
    if session is None:
        return base
    game = session.game
    pending = game.pending if isinstance(game, PerlenGame) else ()
    if game.over:
        if not ended:
            return old  # a finished game's animation runs on by its own timers
        if not pending:
            return sweep(base, state, now)
        # The last bonus pearls finish the pyramid, shown in turn until Confirm.
    if len(pending) > 1:
        return Show(
            0, now + state.rules.bonus_step_s, led_test=old.led_test, cue=old.cue, cues=old.cues
        )
    return base


def sweep(show: Show, state: Referee, now: float) -> Show:
    """The winner's colour sweeps the board, for ``sweep_s``."""
    rules = state.rules
    return Show(
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
    state: Referee,
    game: Game,
    extra: Iterable[str],
    missing: Iterable[str],
    *,
    armed: bool,
    refusal: Refusal | None = None,
    hold: Hold | None = None,
) -> Referee:
    """The board differs from the game: say where; unless ``armed`` stays, disarm (nothing
    is played until the board matches again)."""
    owners = game.owners
    wrong = [Mismatch(c, MismatchKind.EXTRA) for c in sorted(extra, key=place_order)]
    wrong += [
        Mismatch(c, MismatchKind.MISSING, owners.get(c)) for c in sorted(missing, key=place_order)
    ]
    watch = dataclasses.replace(
        state.watch,
        armed=armed and state.watch.armed,
        mismatches=tuple(wrong),
        refusal=refusal,
        hold=hold,
    )
    return state.but(watch=watch)


def matched(state: Referee) -> Referee:
    """The board matches the game: armed, nothing wrong, nothing to take off."""
    return state.but(watch=Watch(armed=True, last_move_at=state.watch.last_move_at))


def thing(session: Session, count: int = 1) -> Term:
    """``pearl`` or ``ball`` (``pearls``/``balls`` for several)."""
    word = "pearl" if isinstance(session.game, PerlenGame) else "ball"
    return Term("thing", word if count == 1 else word + "s")


def hidden_notes(game: PerlenGame) -> list[Message]:
    """Say so when the last move's pearls will not count (they end up inside)."""
    last = game.last
    options = game.state.options
    if last is None:
        return []
    notes = []
    if hidden(parse_cell(last.cell), options):
        notes.append(Message.of("hidden", pos=last.cell))
    inside = tuple(b.position.short for b in last.bonuses if hidden(b.position, options))
    if inside:
        notes.append(Message.of("hidden_bonus", positions=Items(inside), num=len(inside)))
    return notes

"""The referee as a reducer: (state, what happened, now) -> the next :class:`Step`.

Everything that can happen to the referee is one of these calls, each pure (no threads,
no clock, no I/O; ``now`` is passed in) and each returning a
:class:`~controller.referee.state.Step`: the next state, the events to store *before*
the state is adopted, the effects to carry out after (ask the computer, play a sound),
and for commands the reply.

- :func:`sensed`: a debounced sensor frame (cells, targets, buttons by name);
- :func:`linked`: the board's link changed (connected, lost, searching);
- :func:`command`: a command from the page or a button; a new game comes back with
  ``create`` set, and once the store has given it a number :func:`begin` starts it;
- :func:`answered`: the computer's answer to an :class:`AskComputer`;
- :func:`next_deadline` and :func:`timer`: take-back holds, knock-offs, the bonus pearls
  shown in turn, the winner's sweep, the LED test, a retry after a failed save;
- :func:`failed` and :func:`stored`: what the store made of the commit.

>>> from controller.games.registry import GAMES
>>> from controller.referee.commands import NewGame
>>> state = RefereeState(config=RefereeConfig(games=GAMES, leds=("seat:0",)))
>>> step = command(state, NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo")), now=0.0)
>>> step.create.players[0].name
'Anna'
>>> step = begin(step.state, step.create, game_id=1, now=0.0)
>>> step = sensed(step.state, frozenset({"c3"}), seq=1, now=1.0)
>>> [e.data() for e in step.commit.events], english(step.state.note.messages[0])
([{'cell': 'c3', 'colour': 0}], 'Anna played c3.')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Final

from controller.referee import (
    acting,
    arrivals,
    computer_seat,
    guard,
    placing,
    progress,
    setup,
)
from controller.referee.commands import (
    Abort,
    Command,
    GameCommand,
    LedTest,
    NewGame,
    PlayAgain,
    Undo,
)
from controller.referee.events import Aborted, By, Event
from controller.referee.messages import Items, Message, Term, english
from controller.referee.players import called
from controller.referee.progress import chain
from controller.referee.session import CheckedSetup
from controller.referee.state import (
    RETRY_S,
    Animations,
    Announcement,
    BoardCheck,
    Commit,
    LedTestRun,
    PlaySound,
    Purpose,
    Reading,
    RefereeConfig,
    RefereeState,
    Refusal,
    Reply,
    Step,
)
from controller.vocabulary import BUTTONS as BUTTON_NAMES
from controller.vocabulary import BoardStatus, Colour, Sound

_BUTTON_SET: Final = frozenset(BUTTON_NAMES)
_PRESSES: Final[Mapping[str, Command]] = {"button:undo": Undo(By.BUTTON)}
"""What the board's buttons every game has do, on their rising edge (the game on the
table says what its own do: :attr:`~controller.referee.protocol.GameKind.presses`)."""

__all__ = [
    "RefereeConfig",
    "RefereeState",
    "Step",
    "answered",
    "arrived",
    "begin",
    "closed",
    "command",
    "english",
    "failed",
    "linked",
    "next_deadline",
    "reconcile",
    "sensed",
    "stored",
    "timer",
]


def reconcile(state: RefereeState, now: float) -> Step:
    """Compare the board with the game (reconciliation) and act on what it says."""
    session = state.session
    if session is None:
        return Step(dataclasses.replace(state, comparison=BoardCheck()))
    board = placing.differences(state, session)
    if not board.extra and not board.missing:
        return Step(progress.matched(state))
    if session.game.over:  # the result stands: the board is cleared for the next game
        cleared = BoardCheck(last_move_at=state.comparison.last_move_at)
        return Step(dataclasses.replace(state, comparison=cleared))
    return placing.read(state, session, board, now)


def _looked(step: Step, now: float) -> Step:
    """A command's step, then (if it was taken) a look at the board with its result."""
    if step.reply is not None and not step.reply.ok:
        return step
    return chain(step, reconcile(step.state, now))


# -- the board -----------------------------------------------------------------------------


def sensed(
    state: RefereeState,
    names: frozenset[str],
    *,
    seq: int,
    now: float,
    link: BoardStatus | None = None,
    toggles: Mapping[str, int] | None = None,
) -> Step:
    """A new sensor frame: what is active, by name."""
    before = state
    rising = names - state.reading.names
    # The first frame is how the board was found, not something that happened on it.
    pieces_moved = state.reading.seq >= 0 and (
        (names - _BUTTON_SET) != (state.reading.names - _BUTTON_SET)
    )
    reading = Reading(
        names,
        seq,
        link or state.reading.link,
        state.reading.toggles if toggles is None else toggles,
    )
    state = dataclasses.replace(state, reading=reading)
    if pieces_moved:
        state = dataclasses.replace(
            state, note=Announcement()
        )  # what was said is over once the board changes
    step = reconcile(state, now)
    if step.state.comparison.resumed:  # the first reading after a restart has been looked at
        watch = dataclasses.replace(step.state.comparison, resumed=False)
        step = dataclasses.replace(step, state=dataclasses.replace(step.state, comparison=watch))
    # Buttons act on their rising edge, in a fixed order.
    for name in BUTTON_NAMES:
        if name not in rising:
            continue
        order = _pressed(step.state, name)
        session = step.state.session
        if order is None and session is not None:  # a button this game has no use for
            unused = Message.of("button_unused", button=Term("button", name),
                                game=Term("game", session.kind.name))  # fmt: skip
            said = Announcement((unused,))
            step = dataclasses.replace(step, state=dataclasses.replace(step.state, note=said))
        if order is not None:
            pressed = command(step.state, order, now)
            if pressed.reply is not None and not pressed.reply.ok and pressed.reply.message:
                # The board has no screen: a refused press is said on the page.
                said = Announcement((pressed.reply.message,))
                pressed = dataclasses.replace(
                    pressed, state=dataclasses.replace(pressed.state, note=said)
                )
            step = chain(step, dataclasses.replace(pressed, reply=None))
    return _cued(before, step)


def _pressed(state: RefereeState, button: str) -> Command | None:
    """What ``button`` does now: the referee's own, or what the game on the table says."""
    order = _PRESSES.get(button)
    if order is None and state.session is not None:
        order = state.session.kind.presses.get(button)
    return order


def linked(state: RefereeState, status: BoardStatus) -> Step:
    """The board's link changed (or its counters did)."""
    reading = dataclasses.replace(state.reading, link=status)
    return Step(dataclasses.replace(state, reading=reading))


# -- commands ------------------------------------------------------------------------------


def command(state: RefereeState, order: Command, now: float) -> Step:
    """A command from the page or a button; the step's reply answers it."""
    why = guard.refused(state, order)
    if why is not None:
        also = tuple((other.field, other.message) for other in why.also)
        return Step(state, reply=Reply(False, why.message, why.field, also))
    return _cued(state, _command(state, order, now))


def _command(state: RefereeState, order: Command, now: float) -> Step:
    """``order``, which :func:`~controller.referee.guard.refusal` let through."""
    order = guard.resolved(state, order)  # a page button: the command it gives now
    if isinstance(order, NewGame):
        new = setup.check(order, state.config)
        old = state.session
        if old is None or old.game.over:
            return Step(state, create=new)
        # The game on the table ends here: its end is stored before the new one starts.
        return Step(state, Commit(old.game_id, (Aborted("a new game was started"),)), create=new)
    if isinstance(order, PlayAgain):
        assert state.session is not None
        return Step(state, create=setup.check(setup.again(state.session), state.config))
    if isinstance(order, Abort):
        return _abort(state)
    if isinstance(order, LedTest):
        return _led_test(state, order, now)
    session = state.session
    assert session is not None
    if isinstance(order, Undo):
        return _looked(placing.take_back(state, session, order.by, now), now)
    assert isinstance(order, GameCommand)  # the guard let only these through
    step = acting.act(state, session, order, now)
    return _looked(step, now) if order.looks else step


def begin(state: RefereeState, game: CheckedSetup, game_id: int, now: float) -> Step:
    """The new game ``game`` (stored as number ``game_id``) is on the table."""
    before = state
    old = state.session
    said: list[Message] = []
    if old is not None and not old.game.over:
        said.append(Message.of("replaced", number=old.game_id))
    names = tuple(called(p, game.players) for p in sorted(game.players, key=lambda p: p.seat))
    said.append(Message.of("started", number=game_id, players=Items(names)))
    fresh = RefereeState(
        config=state.config,
        session=game.session(game_id),
        reading=state.reading,
        note=Announcement(tuple(said)),
        asks=state.asks,
        animations=Animations(
            led_test=state.animations.led_test, cue=state.animations.cue, cues=state.animations.cues
        ),
        fault=state.fault,
        retry_at=state.retry_at,
    )
    fresh, effects = computer_seat.new_position(fresh)
    step = reconcile(fresh, now)
    step = Step(step.state, step.commit, effects + step.effects, Reply(True, said[-1]))
    return _cued(before, step)


def _abort(state: RefereeState) -> Step:
    session = state.session
    assert session is not None
    commit = Commit(session.game_id, (Aborted("aborted from the table"),))
    said = Message.of("aborted", number=session.game_id)
    idle, effects = computer_seat.new_position(closed(state, said))
    return Step(idle, commit, effects, Reply(True, said))


def closed(state: RefereeState, said: Message) -> RefereeState:
    """The table without a game, once the one on it has ended (aborted or replaced)."""
    return RefereeState(
        config=state.config,
        reading=state.reading,
        note=Announcement((said,)),
        asks=state.asks,
        animations=Animations(
            led_test=state.animations.led_test, cue=state.animations.cue, cues=state.animations.cues
        ),
        fault=state.fault,
    )


def _led_test(state: RefereeState, order: LedTest, now: float) -> Step:
    show = state.animations
    if order.colour is None:
        said = Message.of("led_test_stopped")
        return Step(
            dataclasses.replace(state, animations=dataclasses.replace(show, led_test=None)),
            reply=Reply(True, said),
        )
    colour = order.colour
    rgb: Colour = (colour[0], colour[1], colour[2])
    rules = state.config
    until = now + rules.led_test_s
    if order.led is None:
        test = LedTestRun(None, rgb, 0, now + rules.led_walk_step_s, until)
        said = Message.of("led_test_all")
    else:
        test = LedTestRun(order.led, rgb, 0, None, until)
        said = Message.of("led_test_one", led=order.led)
    return Step(
        dataclasses.replace(state, animations=dataclasses.replace(show, led_test=test)),
        reply=Reply(True, said),
    )


# -- the other board -------------------------------------------------------------------------


def arrived(state: RefereeState, event: Event, now: float) -> Step:
    """A shared event made on the other board of a linked game (:mod:`.arrivals`); the
    reply says whether it was taken (a refused one is not stored)."""
    session = state.session
    if isinstance(event, Aborted) and session is not None and session.linked:
        said = Message.of("remote_aborted", number=session.game_id)
        idle, effects = computer_seat.new_position(closed(state, said))
        return Step(idle, Commit(session.game_id, (event,)), effects, Reply(True, said))
    step = arrivals.arrived(state, event, now)
    if step.reply is not None and not step.reply.ok:
        return step
    return _cued(state, _looked(step, now))


# -- the computer --------------------------------------------------------------------------


def answered(
    state: RefereeState,
    purpose: Purpose,
    token: tuple[int, int],
    cell: str | None,
    now: float,
    why: object = None,
) -> Step:
    """The computer's answer (``cell`` None: it could not choose; ``why`` a hint's
    reasons); stale ones are dropped."""
    before = state
    state, current = computer_seat.answered(state, purpose, token, cell, why)
    if not current:
        return Step(before)
    return _cued(before, reconcile(state, now))


# -- time ------------------------------------------------------------------------------------


def next_deadline(state: RefereeState) -> float | None:
    """When :func:`timer` has something to do next (None: nothing until something happens)."""
    show = state.animations
    times = [
        t
        for t in (
            state.comparison.settling.deadline if state.comparison.settling is not None else None,
            show.pending_next,
            show.sweep_next,
            show.led_test.until if show.led_test is not None else None,
            show.led_test.next_step if show.led_test is not None else None,
            state.retry_at,
        )
        if t is not None
    ]
    return min(times) if times else None


def timer(state: RefereeState, now: float) -> Step:
    """Whatever was due by ``now``."""
    before = state
    step = Step(state)
    hold = state.comparison.settling
    if state.retry_at is not None and now >= state.retry_at:
        step = reconcile(
            dataclasses.replace(state, retry_at=None), now
        )  # try the move the store refused again
    elif hold is not None and now >= hold.deadline:
        step = reconcile(state, now)
    state = step.state
    show = state.animations
    if show.pending_next is not None and now >= show.pending_next:
        state = progress.step_shown(state, now)
        show = state.animations
    if show.sweep_next is not None and now >= show.sweep_next:
        if now >= show.sweep_until:
            show = dataclasses.replace(show, sweep_frame=None, sweep_next=None)
        else:
            frame = (show.sweep_frame or 0) + 1
            show = dataclasses.replace(
                show, sweep_frame=frame, sweep_next=now + state.config.sweep_step_s
            )
    test = show.led_test
    if test is not None:
        if now >= test.until:
            show = dataclasses.replace(show, led_test=None)
        elif test.next_step is not None and now >= test.next_step:
            test = dataclasses.replace(
                test, step=test.step + 1, next_step=now + state.config.led_walk_step_s
            )
            show = dataclasses.replace(show, led_test=test)
    step = dataclasses.replace(step, state=dataclasses.replace(state, animations=show))
    return _cued(before, step)


# -- the store's answer ----------------------------------------------------------------------


def failed(before: RefereeState, attempted: Step, fault: str, now: float) -> Step:
    """The store could not write ``attempted.commit``: the game stays as it was.

    ``fault`` is ``full``, ``read-only`` or ``other``. What the board reads is kept, the
    change it asked for is shown as refused, and the referee tries again every
    :data:`~controller.referee.state.RETRY_S` until the store writes again.
    """
    why = Message.of("cannot_save", why=Term("save_fault", fault))
    state = dataclasses.replace(
        before, reading=attempted.state.reading, fault=fault, retry_at=now + RETRY_S
    )
    session = state.session
    extra: frozenset[str] = frozenset()
    missing: frozenset[str] = frozenset()
    if session is not None:
        game = session.game
        extra = (state.reading.names & game.pieces) - game.expected
        missing = game.expected - state.reading.names
    if session is not None and (extra or missing):
        # The new pearl stays where it is: it is played once the store can keep it.
        refusal = Refusal(why, covers=extra)
        state = progress.mismatch(state, session.game, extra, missing, armed=True,
                                  refusal=refusal)  # fmt: skip
        state = dataclasses.replace(state, note=Announcement())
    else:
        state = dataclasses.replace(state, note=Announcement((why,), fault=True))
    asked = attempted.reply is not None or attempted.create is not None
    reply = Reply(False, why) if asked else None
    return Step(state, reply=reply)


def stored(state: RefereeState) -> RefereeState:
    """The store wrote the step's events: a save fault, if there was one, is over."""
    if state.fault is None:
        return state
    back = Message.of("saving_again")
    return dataclasses.replace(
        state, fault=None, retry_at=None, note=Announcement((*state.note.messages, back))
    )


# -- sounds ----------------------------------------------------------------------------------


def _cue(before: RefereeState, after: RefereeState) -> Sound | None:
    """The sound a change calls for: the winner, a bonus pearl owed, a wrong piece, a turn."""
    old, new = before.session, after.session
    if new is None:
        return None
    same = old is not None and old.game_id == new.game_id
    if new.game.over:
        if same and old is not None and not old.game.over:
            return Sound.WINNER
        return None
    pending = new.game.pending
    was = old.game.pending if same and old is not None else ()
    if pending and pending != was:
        return Sound.BONUS
    refusal = after.comparison.refusal
    if refusal is not None and refusal != before.comparison.refusal and after.fault is None:
        return Sound.WRONG
    mover = new.game.to_move
    if same and old is not None:
        moved = mover != old.game.to_move or new.game.moves != old.game.moves
    else:
        moved = True
    if (
        moved
        and mover is not None
        and new.players[mover].computer is None
        and not pending
        and not after.comparison.mismatches
    ):
        return Sound.TURN
    return None


def _cued(before: RefereeState, step: Step) -> Step:
    sound = _cue(before, step.state)
    if sound is None:
        return step
    show = step.state.animations
    state = dataclasses.replace(
        step.state, animations=dataclasses.replace(show, cue=sound, cues=show.cues + 1)
    )
    return Step(state, step.commit, (*step.effects, PlaySound(sound)), step.reply, step.create)

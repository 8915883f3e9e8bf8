"""A scripted person at the board for ``pyramid diag --check``: does what each step asks.

It plays a careful maker, on the check's own clock (a :class:`VirtualClock` that only it
moves): told a step (the guide's ``told``), it places or lifts pearls on a
:class:`~rigs.pearls.PearlBoard`, one at a time. After each move it waits until the
board has looked at the switches and delivered what it made of them (``looked``, an
event of the board: its scans, the Pico's scans and an answer on the link), then lets
:data:`HAND` seconds pass on the check's clock, on the watch's own thread behind those
frames (the guide's ``attach``), so that every frame is judged at the time it belongs
to. After a step it watches for :data:`GLANCE` seconds and presses Enter (the guide's
``listen``) only if the check has not gone on by itself; :attr:`ScriptedPerson.enters`
lists those steps. It never judges what the board shows: a person cannot know what a
faulty board will do.

Real time passes only where the board takes it (a scan thread, a Pico behind a pty), and
every such wait is for an event, with :data:`PATIENCE` as the bound that turns a hang
into a failure saying what was waited for. A loaded machine makes the test slower, never
different.
"""

from __future__ import annotations

import io
import queue
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from controller.cli.acceptance import Layout, Pass, Step, Timing, Wires
from controller.cli.causes import causes
from controller.cli.diag import Guide, Post, report, watch_board
from controller.hardware.channels import ChannelMap
from controller.hardware.gpio import GpioBoard
from controller.hardware.port import Board
from rigs.contacts import VirtualClock
from rigs.pearls import PearlBoard
from rigs.poll import wait_until

TIMING = Timing()
"""The check's shipped waits: on the virtual clock they cost no real time."""
HAND = 0.5
"""Seconds (of the check's clock) a careful hand takes per pearl: more than
``TIMING.settle``, so each placement is its own."""
GLANCE = 4.0
"""Seconds the person watches the screen after a step before pressing Enter: more than
``TIMING.still``, so a step that goes on by itself is seen to."""
PATIENCE = 30.0
"""Real seconds any one wait for the board may take before the test fails."""
SWITCH_INTERVAL_S = 0.0005
"""The interpreter's thread switch interval while the person works: the person, the
watch, the board's thread (and a Pico's harness) hand work to each other at every move,
and at Python's default 5 ms each hand-over may wait that long for the GIL (the gpio
adapter lowers it alike while it scans)."""

Looked = Callable[[Post], Callable[[], None]]
"""Called before a move (with the watch's :data:`Post`); what it returns, called after
the move, returns once the board has looked at the switches and every frame it made of
them is in the watch's queue (before anything the person posts next)."""


def gpio_looked(board: GpioBoard) -> Looked:
    """The gpio adapter has looked once ``agree + 2`` scans have begun since the move: the
    scan under way may have read some rows before it, the next ``agree`` read it all and
    the last of them publishes the frame, and a scan publishes before the next begins."""
    agree = board.gpio.agree

    def scans() -> int:
        return board.status().counters.get("scans", 0)

    def before(post: Post) -> Callable[[], None]:
        first = scans()

        def after() -> None:
            wait_until(
                lambda: scans() >= first + agree + 2,
                PATIENCE,
                interval=0.001,
                what=lambda: f"the gpio scan thread: {scans() - first} scans since the move",
            )

        return after

    return before


class _Home(Exception):
    """The watch is over: the person goes home."""


_SYNCED = object()


class ScriptedPerson:
    """See the module docstring; :meth:`close` sends them home."""

    def __init__(
        self,
        board: PearlBoard,
        looked: Looked,
        clock: VirtualClock,
        timing: Timing = TIMING,
        hand: float = HAND,
        glance: float = GLANCE,
    ) -> None:
        self.board = board
        self.looked = looked
        self.clock = clock
        self.timing = timing
        self.hand = hand
        self.glance = glance
        self.asked: list[Step] = []
        self.enters: list[Step] = []
        """The steps the person pressed Enter in (the check did not go on by itself)."""
        self.error: BaseException | None = None
        self._inbox: queue.SimpleQueue[Step | object | None] = queue.SimpleQueue()
        self._pending: deque[Step] = deque()
        self._post: Post | None = None
        self._on_done: Callable[[], None] = lambda: None
        self._thread = threading.Thread(target=self._work, name="person", daemon=True)
        self._thread.start()

    # -- the guide's hooks (called on the watch's thread) ---------------------------------
    def told(self, step: Step) -> None:
        self.asked.append(step)
        self._inbox.put(step)

    def listen(self, on_done: Callable[[], None]) -> None:
        self._on_done = on_done

    def attach(self, post: Post) -> None:
        self._post = post

    def close(self) -> None:
        self._inbox.put(None)
        self._thread.join(timeout=PATIENCE)
        assert not self._thread.is_alive(), "the person at the board did not go home"

    # -- the person's own thread ----------------------------------------------------------
    def _work(self) -> None:
        try:
            step = self._next_step()
            while step.pass_ is not Pass.FINISHED:
                step = self._through(step)
        except _Home:
            pass
        except Exception as error:  # kept for the test's thread, which raises it
            self.error = error

    def _through(self, step: Step) -> Step:
        """Do ``step``; the step the check asks for next."""
        self.act(step)
        if not self._pending:
            self.pause(self.glance)  # has the check gone on by itself?
        if not self._pending:
            self.enters.append(step)
            self._on_done()
            self.pause(self.timing.grace)
        if not self._pending:
            raise AssertionError(f"{step} was not judged after Enter")
        return self._pending.popleft()

    def _next_step(self) -> Step:
        while not self._pending:
            self._receive()
        return self._pending.popleft()

    def _receive(self) -> object:
        """One message: a step (kept), the watch's answer to a post, or home time."""
        try:
            item = self._inbox.get(timeout=PATIENCE)
        except queue.Empty:
            raise AssertionError(f"the watch said nothing for {PATIENCE} s") from None
        if item is None:
            raise _Home
        if isinstance(item, Step):
            self._pending.append(item)
        return item

    def pause(self, seconds: float) -> None:
        """Let ``seconds`` pass on the check's clock, after the frames already sent, and
        wait until the watch has judged the step at the new time."""
        post = self._post
        assert post is not None, "the guide did not attach the person"
        post(lambda: self.clock.advance(seconds))
        post(lambda: self._inbox.put(_SYNCED))
        while True:
            item = self._receive()
            if item is _SYNCED:
                return
            if isinstance(item, Step) and item.pass_ is Pass.FINISHED:
                return  # the watch ended: it answers no more posts

    def act(self, step: Step) -> None:
        """Do what ``step`` asks, as a hand would: one pearl at a time."""
        board = self.board
        if step.touch and step.pass_ is Pass.LIFT:
            self.move(board.lift, step.target)
            self.move(board.place, step.target)
        elif step.touch:
            self.move(board.place, step.target)
            self.move(board.lift, step.target)
        else:
            self.move(board.set, board.pearls & set(step.pearls))  # swept off together
            for pearl in step.pearls:
                if pearl not in board.pearls:
                    self.move(board.place, pearl)

    def move(self, do: Callable[[Any], None], what: Any) -> None:
        """``do(what)``, wait until the board has looked, then a hand's time passes."""
        assert self._post is not None, "the guide did not attach the person"
        after = self.looked(self._post)
        do(what)
        after()
        self.pause(self.hand)


@dataclass(frozen=True)
class Outcome:
    """What ``pyramid diag --check`` ended with."""

    status: int
    out: str
    causes: list[tuple[str, tuple[str, ...]]]
    """The likely causes as (kind, sensors)."""
    enters: list[Step]
    """The steps the person had to press Enter in."""
    steps: list[Step]
    """Every step the check asked for, in order (the finished one last)."""


def check_by_hand(
    board: Board,
    cmap: ChannelMap,
    columns: int | None,
    pearls: PearlBoard,
    looked: Looked,
    wires: Wires | None = None,
) -> Outcome:
    """Start ``board`` and let a scripted person through the whole check on ``pearls``."""
    clock = VirtualClock()
    switching = sys.getswitchinterval()
    sys.setswitchinterval(min(switching, SWITCH_INTERVAL_S))
    person = ScriptedPerson(pearls, looked, clock)
    out = io.StringIO()
    layout = Layout.of(cmap, columns, wires)
    guide = Guide(layout, TIMING, person.told, person.listen, person.attach)
    try:
        with board:
            watch = watch_board(board, cmap, out, tty=False, settle=0.05, guide=guide, clock=clock)
    finally:
        person.close()
        sys.setswitchinterval(switching)
    if person.error is not None:
        raise AssertionError(f"the person at the board: {person.error}\n{out.getvalue()}")
    check = guide.check
    assert check is not None and check.finished, out.getvalue()
    status = report(check, watch, 6, out)
    found = [(c.kind, c.names) for c in causes(check)]
    return Outcome(status, out.getvalue(), found, person.enters, person.asked)

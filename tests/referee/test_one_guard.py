"""What the page offers is what the referee accepts, at every state of random games.

A seeded random walk plays games of both kinds through the pure referee in virtual time
(:class:`rigs.referee.Play`): legal and illegal pieces put down and lifted,
buttons, page commands, the computer's answers, time passing, new games and games played
again. At every state it asks the snapshot which game buttons it offers and the referee
whether it would take each one: the two must agree, command by command.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from controller.games.perlen import rules as perlen
from controller.games.perlen.commands import Action as PerlenAction
from controller.games.pyramidos.commands import Action as PyramidosAction
from controller.games.pyramidos.snapshot import parts_of as pyramidos_parts
from controller.games.registry import GAMES
from controller.referee import referee
from controller.referee.commands import ACTIONS, Act, Action, Command, NewGame
from controller.referee.messages import english
from controller.referee.state import AskComputer
from rigs.referee import Play

CELLS = tuple(f"{f}{r}" for r in range(1, 6) for f in "abcde")
TARGETS = ("t1", "t2", "t3", "t4", "top")
BUTTONS = ("button:confirm", "button:end_turn", "button:undo")
PIECES = frozenset(CELLS + TARGETS)
LEVELS = ("gentle", "easy", "medium", "strong", "strongest")
ACTION_COMMANDS: dict[str, Callable[[], Command]] = {
    name: make for kind in GAMES.values() for name, make in kind.actions.items()
} | dict(ACTIONS)
"""Every game button of every game, and the command it gives (a game's own command sent
while another game is on the table must be refused, and is never offered)."""


def _position(ask: AskComputer) -> perlen.PerlenState:
    """The position the computer was asked about (a Perlen-Pyramide one here)."""
    assert isinstance(ask.position, perlen.PerlenState)
    return ask.position


def disagreements(p: Play, seen: set[tuple[str, bool]]) -> list[str]:
    """Every game button offered and refused, or hidden and taken, in ``p``'s state;
    ``seen`` gathers which buttons were offered (True) and hidden (False)."""
    offered = set(p.snap.commands)
    out = []
    for action, make in ACTION_COMMANDS.items():
        for order in (make(), Act(action)):  # the command itself, and the page's button
            step = referee.command(p.state, order, p.now)
            accepted = step.reply.ok if step.reply is not None else step.create is not None
            seen.add((action, action in offered))
            if accepted != (action in offered):
                why = step.reply.message if step.reply is not None else None
                said = english(why) if why is not None else ""
                shown = "offered" if action in offered else "hidden"
                out.append(f"{action} {shown} but {'taken' if accepted else 'refused'} {said}")
    return out


def new_game(p: Play, rng: random.Random) -> None:
    if rng.random() < 0.5:
        computer = {rng.randrange(3): rng.choice(LEVELS)} if rng.random() < 0.5 else {}
        order = NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"), computer=computer,
                        options={"first_seat": rng.randrange(3)})  # fmt: skip
    else:
        seats = rng.randint(2, 4)
        order = NewGame("pyramidos", ("Anna", "Ben", "Cleo", "Dora")[:seats])
    p.do(order)


def helpful(p: Play, rng: random.Random) -> None:
    """What players who go on with the game do: fix the board, answer, play a move."""
    snap = p.snap
    session = p.state.session
    if snap.mismatches:
        wrong = rng.choice(snap.mismatches)
        (p.lift if wrong.kind == "extra" else p.put)(wrong.cell)
    elif session is None or session.game.over:
        p.set(frozenset()) if p.names else new_game(p, rng)
    elif snap.thinking and p.asked:
        ask = p.asked[-1]
        p.answer(rng.choice([m.short for m in perlen.legal_moves(_position(ask))]), ask=ask)
    elif snap.computer_move is not None:
        p.wait(0.6)
        p.put(snap.computer_move)
    elif snap.legal:
        p.wait(0.6)
        p.put(rng.choice(snap.legal))
    elif snap.game == "pyramidos":
        free = [t for t, owner in pyramidos_parts(snap).targets.items() if owner is None]
        if free and rng.random() < 0.6:
            p.wait(0.6)
            p.put(rng.choice(free))
        else:
            p.do(ACTION_COMMANDS[PyramidosAction.END_TURN]())
    else:
        p.wait(0.6)


def wander(p: Play, rng: random.Random) -> None:
    """One random thing a table can see happen: mostly the game going on, sometimes a
    slip, a bump, a button, a command, a wait, a stale answer, a new game."""
    roll = rng.random()
    if roll < 0.6:
        helpful(p, rng)
    elif roll < 0.62:
        new_game(p, rng)
    elif roll < 0.70:
        p.do(ACTION_COMMANDS[rng.choice(list(Action))]())
    elif roll < 0.76:
        p.press(rng.choice(BUTTONS))
    elif roll < 0.84:
        p.wait(rng.choice((0.1, 0.3, 0.6, 2.0)))
    elif roll < 0.88 and p.asked:
        ask = rng.choice(p.asked[-3:])
        cells = [m.short for m in perlen.legal_moves(_position(ask))]
        p.answer(rng.choice([*cells, None]), ask=ask, purpose=ask.purpose)
    elif roll < 0.94 and p.names & PIECES:
        p.lift(rng.choice(sorted(p.names & PIECES)))
    else:
        p.put(rng.choice(sorted(PIECES)))


def test_every_game_button_is_offered_exactly_when_the_referee_takes_it() -> None:
    found: list[str] = []
    seen: set[tuple[str, bool]] = set()
    games: set[str] = set()
    for seed in range(30):
        rng = random.Random(seed)
        p = Play()
        new_game(p, rng)
        for _ in range(300):
            wander(p, rng)
            found += disagreements(p, seen)
            if p.state.session is not None and p.state.session.game.over:
                games.add(p.state.session.kind.name)
    assert not found, f"{len(found)} disagreements, e.g. {found[:5]}"
    # The walk went everywhere: every button was offered somewhere and hidden somewhere,
    # and games of both kinds were played to the end.
    assert seen == {(action, shown) for action in ACTION_COMMANDS for shown in (True, False)}
    assert games == {"perlen-pyramide", "pyramidos"}


def test_the_two_disagreements_the_walk_found_are_settled_the_way_the_page_showed() -> None:
    """Hint was hidden during a mismatch yet asked the computer; Abort was hidden once a
    game was over yet taken. Both are now refused, with a reason."""
    p = Play().new()
    p.put("a1", "e5")  # two pearls at once: a mismatch
    assert p.snap.mismatches and PerlenAction.HINT not in p.snap.commands
    reply = p.do(ACTION_COMMANDS[PerlenAction.HINT]())
    assert not reply.ok and reply.message is not None
    assert english(reply.message) == "Fix the board first: take all 2 pearls off the board."
    assert p.asked == []  # the computer was not asked
    p = Play().new("pyramidos", ("Anna", "Ben"))
    for _ in range(4):
        p.do(ACTION_COMMANDS[PyramidosAction.END_TURN]())
    p.play("t1", "t2", "t3", "t4")
    p.do(ACTION_COMMANDS[PyramidosAction.END_TURN]())
    p.play("top")
    assert p.snap.over and Action.ABORT not in p.snap.commands
    reply = p.do(ACTION_COMMANDS[Action.ABORT]())
    assert not reply.ok and reply.message is not None
    assert english(reply.message) == "The game is over; start a new one."
    assert p.ledger.games[1]["status"] == "over"

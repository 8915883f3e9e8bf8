"""A hint in words: why the computer finds a cell good, as the family is told it.

The computer player (:mod:`.computer`) answers a hint with the cell and a :class:`Why`; the
referee asks the game to word it (:meth:`~controller.referee.game.GameKind.explained`).

>>> from controller.referee.messages import english
>>> for said in explained("b3", Why(wins=("2:b2",), worth=1.5)):
...     print(english(said))
Hint: the cell with the dotted ring (b3). It wins the bonus pearl 2:b2.
It is worth about 1.5 visible pearls more than the next best cell.
>>> for said in explained("c2", Why(close="d4")):
...     print(english(said)[:60])
Hint: the cell with the dotted ring (c2). It wins no bonus p
d4 is about as good.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from controller.games.perlen import messages  # noqa: F401 - registers the messages worded here
from controller.referee.game import Amount, Items, Message


@dataclass(frozen=True, slots=True)
class Why:
    """Why a hinted cell is good, in bonus pearls and visible pearls (from the computer)."""

    wins: tuple[str, ...] = ()
    """Bonus pearls of the mover's colour the move earns at once (positions)."""
    denies: tuple[str, ...] = ()
    """Bonus pearls a rival's pearl on the cell would earn: the move keeps them from it."""
    worth: float = 0.0
    """Visible pearls of the mover's final score the cell is surely worth more than the
    next best (0 when that is not sure)."""
    close: str | None = None
    """The next best cell when the computer cannot tell that it is worse: about as good."""


WORTH_SAYING: Final = 0.5
"""A hint says what it is worth once that is half a visible pearl or more."""


def explained(cell: str, why: object) -> tuple[Message, ...]:
    """``Hint: b3, which wins the bonus pearl 2:b2. It is worth about 1.5 …``."""
    if not isinstance(why, Why):
        return (Message.of("hint", cell=cell),)
    if why.wins:
        said = Message.of("hint_wins", cell=cell, positions=Items(why.wins), num=len(why.wins))
    elif why.denies:
        denied = tuple(dict.fromkeys(why.denies))
        said = Message.of("hint_denies", cell=cell, positions=Items(denied), num=len(denied))
    else:  # early in a game: no cell wins one yet, the reason is the chances it leaves
        said = Message.of("hint_chances", cell=cell)
    if why.close is not None:
        return (said, Message.of("hint_close", cell=why.close))
    if why.worth < WORTH_SAYING:
        return (said,)
    return (said, Message.of("hint_worth", worth=Amount(why.worth)))

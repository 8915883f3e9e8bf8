"""Pyramidos' own command, End turn, and the buttons that give it.

>>> list(ACTIONS), PRESSES["button:end_turn"]
(['end_turn'], EndTurn(by=<By.BUTTON: 'button'>))
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from controller.referee.game import By, Command, GameCommand


@dataclass(frozen=True, slots=True)
class EndTurn(GameCommand):
    """The turn ended without a landing (earth square or net)."""

    by: By = By.PAGE


class Action(enum.StrEnum):
    """Its game button, by the name the API uses."""

    END_TURN = "end_turn"


ACTIONS: Final[Mapping[str, Callable[[], Command]]] = {Action.END_TURN.value: EndTurn}
"""Its game button, and the command it gives."""

PRESSES: Final[Mapping[str, Command]] = {"button:end_turn": EndTurn(By.BUTTON)}
"""What the board's buttons do in this game, on their rising edge."""

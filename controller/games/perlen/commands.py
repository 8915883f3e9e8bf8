"""Perlen-Pyramide's own commands and the buttons that give them.

>>> sorted(ACTIONS), PRESSES["button:confirm"]
(['confirm', 'hint'], ConfirmBonus(by=<By.BUTTON: 'button'>))
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar, Final

from controller.referee.game import By, Command, GameCommand


@dataclass(frozen=True, slots=True)
class ConfirmBonus(GameCommand):
    """Every waiting bonus pearl has been placed (or, while a move is being taken back,
    the top bonus pearl has been taken off)."""

    by: By = By.PAGE


@dataclass(frozen=True, slots=True)
class Hint(GameCommand):
    """Ask the computer player for a good cell for the person to move."""

    looks: ClassVar[bool] = False


class Action(enum.StrEnum):
    """Its game buttons, by the name the API uses."""

    CONFIRM = "confirm"
    HINT = "hint"


ACTIONS: Final[Mapping[str, Callable[[], Command]]] = {
    Action.CONFIRM.value: ConfirmBonus,
    Action.HINT.value: Hint,
}
"""Its game buttons in the page's order, and the command each gives."""

PRESSES: Final[Mapping[str, Command]] = {"button:confirm": ConfirmBonus(By.BUTTON)}
"""What the board's buttons do in this game, on their rising edge."""

"""What the referee says in Perlen-Pyramide: its messages (keys with English source texts,
:mod:`controller.referee.messages` renders them) and the sentences it builds from them.

Importing this module registers them (:func:`~controller.referee.messages.register`).

>>> from controller.referee.messages import Term, english
>>> english(Message.of("not_legal", cell="e5", why=Term("illegal", "not touching")))
'Not on the cell with the red ✕ (e5): a pearl must touch one already on the board.'
"""

from __future__ import annotations

from controller.games.perlen import rules as perlen
from controller.games.perlen.game import PerlenGame, hidden
from controller.referee.game import N_, NP_, Items, Message, Scene, colour_term, register
from controller.rules.notation import parse_cell

register(
    {
        "hidden": N_("That pearl (%(pos)s) ends up hidden inside the pyramid: it will not count."),
        "hidden_bonus": NP_(
            "The bonus pearl %(positions)s stays hidden inside the pyramid: it will not count.",
            "The bonus pearls %(positions)s stay hidden inside the pyramid: they will not count.",
        ),
        "bonuses_placed": NP_("Bonus pearl placed.", "%(num)d bonus pearls placed."),
        "took_back": N_("Took back %(player)s's pearl on %(cell)s."),
        "remote_played": N_(
            "%(player)s played %(cell)s on the other board: place the pearl on %(cell)s."
        ),
        "took_off": N_("The bonus pearl %(pos)s is off."),
        "moved": N_("%(player)s moved the pearl from %(origin)s to %(cell)s."),
        "passes": N_("%(player)s has no pearls left and passes."),
        "bonus_at": N_("%(owner)s's %(colour)s, on top of the four blinking pearls (%(pos)s)"),
        "bonus_owed": NP_(
            "Place the bonus pearl: %(first)s. Then press Confirm, or just make the next move.",
            "Place %(num)d bonus pearls, in the order listed, starting with %(first)s. "
            "Then press Confirm, or just make the next move.",
        ),
        "finish_pyramid": NP_(
            "Finish the pyramid with the last bonus pearl: %(first)s.",
            "Finish the pyramid with the last %(num)d bonus pearls, starting with %(first)s.",
        ),
        "remove_bonuses": NP_(
            "First take off the blinking bonus pearl (%(positions)s) and press “This bonus "
            "pearl is off” (or Confirm on the board). Then take off the pearl on the base "
            "with the red ✕ (%(cell)s).",
            "First take off the bonus pearls, the blinking one first (%(positions)s), and "
            "press “This bonus pearl is off” (or Confirm on the board) after each. Then take "
            "off the pearl on the base with the red ✕ (%(cell)s).",
        ),
        "remove_bonuses_top_down": NP_(
            "First take off the bonus pearls from the top down, the blinking one first "
            "(%(positions)s), and press “This bonus pearl is off” (or Confirm on the board) "
            "after each. Then take off the pearl on the base with the red ✕ (%(cell)s).",
            "First take off the bonus pearls from the top down, the blinking one first "
            "(%(positions)s), and press “This bonus pearl is off” (or Confirm on the board) "
            "after each. Then take off the pearl on the base with the red ✕ (%(cell)s).",
        ),
        "keep_off": N_(
            "%(player)s's last pearl (%(cell)s) is off. Leave it off to take the move back; "
            "put it back to keep the move."
        ),
        "moving": N_("Moving %(player)s's pearl from %(origin)s to %(cell)s…"),
        "not_legal": N_("Not on the cell with the red ✕ (%(cell)s): %(why)s."),
        "two_at_once": N_("Two pearls at once: place one at a time."),
        "pyramid_complete": N_("The pyramid is complete: no more pearls go on the base."),
        "no_bonus": N_("No bonus pearl is waiting."),
        "perlen_three": NP_(
            "Perlen-Pyramide is for exactly three players, not %(num)d.",
            "Perlen-Pyramide is for exactly three players, not %(num)d.",
        ),
        "no_cell_sensors": N_("This board has no cell sensors: it cannot referee Perlen-Pyramide."),
        "hint_chances": N_(
            "Hint: the cell with the dotted ring (%(cell)s). It wins no bonus pearl yet, but "
            "leaves you the best chances for the ones to come."
        ),
        "hint_wins": NP_(
            "Hint: the cell with the dotted ring (%(cell)s). It wins the bonus pearl "
            "%(positions)s.",
            "Hint: the cell with the dotted ring (%(cell)s). It wins the bonus pearls "
            "%(positions)s.",
        ),
        "hint_denies": NP_(
            "Hint: the cell with the dotted ring (%(cell)s). It keeps the bonus pearl "
            "%(positions)s from the others.",
            "Hint: the cell with the dotted ring (%(cell)s). It keeps the bonus pearls "
            "%(positions)s from the others.",
        ),
        "hint_worth": N_(
            "It is worth about %(worth)s visible pearls more than the next best cell."
        ),
        "hint_close": N_("%(cell)s is about as good."),
    },
    {
        "game": {perlen.NAME: "Perlen-Pyramide"},
        "thing": {"pearl": N_("pearl"), "pearls": N_("pearls")},
        "unit": {
            "visible": N_("visible pearls"),
            "pearls": N_("pearls in the pyramid"),
            "visible_one": N_("visible pearl"),
            "pearls_one": N_("pearl in the pyramid"),
        },
        "illegal": {  # by perlen.IllegalReason's value
            "off the board": N_("there is no such cell on the base"),
            "not a base cell": N_("pearls are placed on the base only"),
            "occupied": N_("a pearl is already there"),
            "not touching": N_("a pearl must touch one already on the board"),
            "not the centre": N_("the first pearl goes on c3 (centre start)"),
            "game over": N_("the pyramid is complete"),
        },
    },
)


def bonus_at(scene: Scene, bonus: perlen.Bonus) -> Message:
    """``Anna's red, on top of the four blinking pearls (2:c3)``: what the family sees
    first, the notation for grown-ups after it."""
    owner = scene.players[bonus.colour]
    return Message.of(
        "bonus_at",
        owner=scene.name(bonus.colour),
        colour=colour_term(owner.colour.name),
        pos=bonus.position.short,
    )


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

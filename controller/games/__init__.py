"""The games the referee runs, one package each (:mod:`.perlen`, :mod:`.pyramidos`).

A game's package holds everything that game has: its rules (standard library only, like
:mod:`controller.rules`), its record, its events and commands, how its board is read,
its LED picture, its parts of the snapshot, its words and, for Perlen-Pyramide, the
computer player. :mod:`.registry` is the one place that names them; nothing outside a
game's package imports it but the registry. This file imports nothing, so that importing
a game's rules loads nothing else.
"""

"""Perlen-Pyramide (Peter Pallat, 1978): three players build a pyramid of 55 pearls.

Its rules are :mod:`.rules` over the integer core :mod:`.pyramid` (standard library
only); :mod:`.kind` is what the referee runs. This file imports nothing, so that importing
the rules loads nothing else.
"""

"""Pyramidos (HABA, 2003): two to four players nudge balls onto four targets and the top.

Its rules are :mod:`.rules` (standard library only); :mod:`.kind` is what the referee
runs. This file imports nothing, so that importing the rules loads nothing else.
"""

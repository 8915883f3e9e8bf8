"""What a locked browser may not see: the invitation code and the broker's address.

With a game's invitation code anyone can open the two boards' messages, and with the
broker's address knows where to find them (``docs/user-guide.md``). So only a browser
unlocked with the PIN gets them: the family member who started the game reads the code
to the other home, everyone else sees the game and the link without them. The snapshot
(``GET /api/state``, the live stream, every page) goes through :func:`redacted` for a
locked browser; the live stream's bytes are built once per snapshot, view, language and
*unlocked or not* (:mod:`web_ui.stream`).

>>> from controller.referee.snapshot import Snapshot
>>> snap = Snapshot(version=3, remote={"code": "7KQM-X4PA-9HZD", "broker": "mqtt://b:1883",
...                                    "connection": "connected"})
>>> redacted(snap).remote
{'code': None, 'broker': None, 'connection': 'connected'}
>>> redacted(Snapshot(version=3)) is not None
True
"""

from __future__ import annotations

import dataclasses
from typing import Final

from controller.referee.snapshot import Snapshot

SECRET: Final = ("code", "broker")
"""The keys of the snapshot's ``remote`` a locked browser gets as null."""


def redacted(snapshot: Snapshot) -> Snapshot:
    """``snapshot`` without what only an unlocked browser may see (itself if nothing)."""
    remote = snapshot.remote
    if remote is None or not any(remote.get(key) is not None for key in SECRET):
        return snapshot
    hidden = {key: (None if key in SECRET else value) for key, value in remote.items()}
    return dataclasses.replace(snapshot, remote=hidden)


def for_viewer(snapshot: Snapshot, unlocked: bool) -> Snapshot:
    """``snapshot`` as a browser sees it: all of it when ``unlocked``."""
    return snapshot if unlocked else redacted(snapshot)

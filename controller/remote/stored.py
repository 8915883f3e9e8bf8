"""What a linked game keeps in the store: its :class:`LinkRecord` (the code, the side, the
setup, the seats on the other board, the acknowledgement mark and what was set aside),
one setting per game, and the :class:`StoreJournal` that reads the game's own stored
events again as the link's journal: a move's origin is its player's board, a take-back's
that of the move it takes back. Also the JSON an event and the setup cross as. The seats
that carry a game over the link are :mod:`controller.remote.seats`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from controller.referee import Event, GameKind, NewGame, TakeBack, shared_kinds
from controller.referee.events import EventError
from controller.referee.fold import from_stored
from controller.referee.session import Session
from controller.remote.journal import Logged, Origin
from controller.remote.wire import JsonObject, Side
from controller.store import Store

__all__ = [
    "SETUP",
    "LinkRecord",
    "StoreJournal",
    "event_json",
    "event_of",
    "joined_game",
    "player_of",
    "record_key",
    "setup_of",
]

SETUP: Final = "setup"
"""The kind of the inviting board's first event: the game to create."""


def record_key(game_id: int) -> str:
    return f"remote.game.{game_id}"


@dataclass(frozen=True, slots=True)
class LinkRecord:
    """What the store keeps of one linked game beside its events (a setting, as JSON)."""

    code: str
    side: Side
    setup: JsonObject
    remote: tuple[int, ...]
    """The player numbers who play on the other board."""
    acked: int = 0
    aborted_there: bool = False
    void_here: tuple[tuple[int, int, JsonObject], ...] = ()
    """This board's events undone (they crossed the inviting board's): number, base,
    event. Not in the store's game any more, but their numbers stay taken."""
    void_there: tuple[tuple[int, int, JsonObject], ...] = ()
    """The other board's events never applied here (they crossed this board's, or this
    board's game refused them): number, this board's events made by then, event."""
    refused: int = 0
    """The inviting board: the last of the joining board's events its game refused."""
    peer: tuple[str, bytes] | None = None
    """The other board's id and public key, once the boards paired (a record kept before
    pairing existed has none: the boards pair again at their next word)."""

    def json(self) -> str:
        return json.dumps(
            {
                "code": self.code,
                "side": self.side.value,
                "setup": self.setup,
                "remote": list(self.remote),
                "acked": self.acked,
                "aborted_there": self.aborted_there,
                "void_here": [list(v) for v in self.void_here],
                "void_there": [list(v) for v in self.void_there],
                "refused": self.refused,
                "peer": None if self.peer is None else [self.peer[0], self.peer[1].hex()],
            }
        )

    @classmethod
    def read(cls, text: str) -> LinkRecord:
        data = json.loads(text)
        peer = data.get("peer")
        return cls(
            data["code"],
            Side(data["side"]),
            data["setup"],
            tuple(data["remote"]),
            data["acked"],
            data["aborted_there"],
            tuple((int(n), int(b), e) for n, b, e in data.get("void_here", ())),
            tuple((int(n), int(m), e) for n, m, e in data.get("void_there", ())),
            int(data.get("refused", 0)),
            None if peer is None else (str(peer[0]), bytes.fromhex(peer[1])),
        )


def setup_of(session: Session) -> JsonObject:
    """The setup the inviting board sends first: what the joining board needs to create
    the same game (its seats are the ones played here by nobody but the other board)."""
    by_seat = sorted(session.players, key=lambda p: p.seat)
    return {
        "kind": SETUP,
        "game": session.kind.name,
        "players": [p.name for p in by_seat],
        "colours": [p.colour.name for p in by_seat],
        "options": session.options.to_dict(),
        "children_help": session.children_help,
        "here": [p.seat for p in by_seat if not p.remote],
    }


def joined_game(setup: Mapping[str, Any]) -> NewGame:
    """The game a joining board starts from the inviter's setup: the inviter's seats (its
    people and its computer) play on the other board."""
    here = setup["here"]
    return NewGame(
        game=setup["game"],
        players=tuple(setup["players"]),
        options=dict(setup["options"]),
        children_help=bool(setup["children_help"]),
        colours=tuple(setup["colours"]),
        remote=tuple(here),
    )


def event_json(event: Event) -> JsonObject:
    return {"kind": event.kind, **event.data()}


def event_of(game: GameKind, data: Mapping[str, Any]) -> Event:
    """The event of ``game`` in a message's JSON (:class:`EventError` if none fits)."""
    fields = {k: v for k, v in data.items() if k != "kind"}
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in shared_kinds(game):
        raise EventError(f"{kind!r} is not an event the boards share")
    return from_stored(game, kind, fields)


def player_of(data: Mapping[str, Any]) -> object:
    """The player who made a move of any game: its event names them by ``colour`` or by
    ``seat`` (each game's events declare their fields:
    :class:`controller.referee.events.Stored`)."""
    return data.get("colour", data.get("seat"))


class StoreJournal:
    """The :class:`~controller.remote.journal.Journal` of one linked game, over the store.

    The events are the store's own; where each was made follows from the game: a move
    from its player's board, a take-back from the board of the move it takes back, an
    abort from the record's ``aborted_there``; the setup is the inviter's first."""

    def __init__(
        self, store: Store, game_id: int, record: LinkRecord, game: GameKind | None
    ) -> None:
        self._store, self._game_id, self._record = store, game_id, record
        self._kinds = shared_kinds(game) if game is not None else frozenset()
        self._moves = game.shared if game is not None else frozenset()

    def logged(self) -> Iterable[Logged]:
        return [logged for logged, _ in self.entries()]

    def entries(self) -> list[tuple[Logged, int | None]]:
        """The log with each entry's number in the store's game (None: the setup, or an
        event not in the store: undone here, or never applied)."""
        record = self._record
        counts = {Origin.HERE: 0, Origin.THERE: 0}
        out: list[tuple[Logged, int | None]] = []
        void_here = sorted(record.void_here, key=lambda v: v[0])
        void_there = sorted(record.void_there, key=lambda v: v[0])

        def voids() -> None:
            """The entries not in the store whose turn has come: an undone event of this
            board right before the next of its numbers, a crossed event of the other
            board once this board had made as many as it had then."""
            while True:
                if void_here and void_here[0][0] == counts[Origin.HERE] + 1:
                    seq, base, event = void_here.pop(0)
                    counts[Origin.HERE] = seq
                    out.append((Logged(Origin.HERE, seq, event, base, void=True), None))
                elif (
                    void_there
                    and void_there[0][0] == counts[Origin.THERE] + 1
                    and counts[Origin.HERE] >= void_there[0][1]
                ):
                    seq, _made, event = void_there.pop(0)
                    counts[Origin.THERE] = seq
                    out.append((Logged(Origin.THERE, seq, event, void=True), None))
                else:
                    return

        def entry(origin: Origin, event: JsonObject, at: int | None) -> None:
            voids()
            counts[origin] += 1
            out.append((Logged(origin, counts[origin], event), at))

        setup_origin = Origin.HERE if record.side is Side.INVITER else Origin.THERE
        entry(setup_origin, record.setup, None)
        stored = self._store.game(self._game_id)
        moves: list[Origin] = []
        for e in stored.events if stored is not None else ():
            if e.kind not in self._kinds:
                continue
            if e.kind in self._moves:
                origin = Origin.THERE if player_of(e.data) in record.remote else Origin.HERE
                moves.append(origin)
            elif e.kind == TakeBack.kind:
                origin = moves.pop() if moves else Origin.HERE
            else:
                origin = Origin.THERE if record.aborted_there else Origin.HERE
            entry(origin, {"kind": e.kind, **e.data}, e.seq)
        voids()
        return out

    def acked(self) -> int:
        return self._record.acked

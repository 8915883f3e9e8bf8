"""The wire: the envelope, sealing and opening (the keys and topics are
:mod:`controller.remote.keys`'s, and named here too, as the link's one face).

Pure values and functions (the only randomness is the nonce, which the caller passes).

**Messages.** Every MQTT payload is ``FRAME`` (two bytes: the frame layout, which no
protocol version changes), a random 12-byte nonce and the :class:`Envelope`'s JSON
sealed with ChaCha20-Poly1305 (a Pi 4 has no AES instructions), the topic as associated
data, so a message is valid only on the topic it was sealed for. The protocol version is
inside the sealed JSON: a board running another version opens the message, trusts its
``v`` and says so (:class:`OtherVersion`) instead of guessing at its fields.

**Topics** are ``pyramid/<room>/<side>/<kind>``: the room is 128 bits of the derived key
in hex, the side ``a`` (the board that invited) or ``b`` (the board that joined), the kind
``event`` or ``state``. No player, board or game is named, and no protocol version:
boards of two versions must meet on the same topics to tell each other which they speak.

**Threat model.** The code carries 55 bits from :mod:`secrets`
(:data:`~controller.remote.invitation.CODE_BITS`); it travels by phone, so whoever hears
it is in the game. Another client of the same broker (a hosted broker's other customers,
or anyone with its password) cannot find the topics, and if it can subscribe to ``#`` it
sees only the room's hex, message sizes and times: how many moves, and when. It cannot
read a move, nor make a message either board accepts (Poly1305 rejects it, and the link
counts it), nor tell a name's length or an undo from a move by sizes (:data:`SIZES`).
Messages it replays are stale (each names its sender's run, connection and number) and
their events duplicates: presence and requests are not believed from them, and replies
go at most once per resend time (:mod:`controller.remote.link`). It can
delay or drop messages only as the broker itself can (the link resends, but cannot beat
a broker that drops everything). Guessing the code offline from one captured
message costs one scrypt per guess: 2⁵⁴ guesses on average, at a generous 10⁵ guesses a
second on one GPU, is some 5,000 years; a broker's operator is no better placed. The
code is no login: the broker's own username, password and TLS keep strangers off the
broker and protect the connection; the code keeps the game private on it.

"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from controller.remote.keys import (
    PUBLIC_BYTES,
    Kind,
    LinkKeys,
    Pairing,
    Side,
    derive_keys,
    pair_key,
    pairing,
)

__all__ = [
    "FRAME",
    "MAX_EVENT_BYTES",
    "MAX_PAYLOAD",
    "NONCE_BYTES",
    "PAIR_FRAME",
    "PROTOCOL",
    "PUBLIC_BYTES",
    "SIZES",
    "Envelope",
    "JsonObject",
    "Kind",
    "LinkKeys",
    "OtherVersion",
    "Pairing",
    "Reason",
    "RecordEntry",
    "Refused",
    "Side",
    "derive_keys",
    "event_bytes",
    "open_message",
    "pair_key",
    "pairing",
    "plausible",
    "seal",
]

PROTOCOL: Final = 3
"""The version of the envelope and of the link's rules (:mod:`controller.remote.link`):
2 added each event's ``base`` (one order for both boards) and each message's ``boot``,
``conn``, ``n`` and ``seen`` (fresh or stale); 3 the pair key (:class:`Pairing`): each
board's public key in its messages sealed with the code, every later one sealed with
the key the two boards share."""
FRAME: Final = b"\xb0\x01"
"""A message sealed with the code's key: these two bytes, the nonce, the ciphertext
with its tag (a layout no protocol version changes, so boards of two versions can tell
each other which they speak)."""
PAIR_FRAME: Final = b"\xb0\x02"
"""A message sealed with the pair key: these two bytes, the sender's public key (32
bytes), the nonce, the ciphertext with its tag."""
NONCE_BYTES: Final = 12
MAX_PAYLOAD: Final = 64 * 1024
"""No payload of the link is larger (the largest is 32,798 bytes); the broker is told to
send nothing larger (:data:`controller.remote.mqtt.MAX_PACKET`)."""
MAX_EVENT_BYTES: Final = 16 * 1024
"""The largest event, as compact JSON."""
SIZES: Final = (512, 2048, 8192, 32768)
"""The sealed JSON is padded with spaces to the first of these that holds it, so a
message's size tells a stranger only which of four it is (a state or a move: 512; the
inviter's setup: 512 or 2048), not the length of a name or which kind of event."""

JsonObject = Mapping[str, Any]
"""An event as the store keeps it: a JSON object, opaque to the link."""
RecordEntry = tuple[str, int, bool, JsonObject]
"""One event of the inviting board's record: the side that made it (``a``, ``b``), its
number there, whether it was set aside (crossed, or refused), the event."""
MAX_RECORD: Final = 1024
"""Events in a record at most (a game has some fifty)."""


@dataclass(frozen=True, slots=True)
class Envelope:
    """One message from a board: its state, and maybe one event or a request.

    Every envelope says who sent it and what it has: a receiver learns from any one of
    them how far the other board is, so a lost acknowledgement or a lost last event is
    found by the next message of any kind.
    """

    game: str
    """The linked game's id (:attr:`LinkKeys.game`)."""
    board: str
    """The sending board's id."""
    name: str
    """The sending board's name, as its owner set it."""
    ack: int
    """The receiver's events up to this sequence number are applied at the sender."""
    last: int
    """The sender's own events go up to this sequence number."""
    seq: int | None = None
    """The sequence number of :attr:`event` (the sender's own count, from 1)."""
    event: JsonObject | None = None
    """An event of the game, as the store keeps it."""
    resend: int | None = None
    """Please send your events again from this sequence number."""
    online: bool = True
    """False in the last will and the goodbye: the sender has left the broker."""
    base: int | None = None
    """With an event: how many of the receiver's events its sender had applied when it
    made the event (what it was made on top of; :mod:`controller.remote.link`)."""
    boot: str = ""
    """The sender's run: random, new each time its link starts."""
    conn: int = 0
    """The sender's connection to the broker in that run, from 1."""
    n: int = 0
    """The sender's message number in that run, from 1; 0 is the will, which the broker
    sends for the sender after every other message of connection :attr:`conn`."""
    seen: str = ""
    """The receiver's run the sender last heard from ("" for none): a message that names
    the receiver's own run was sealed after that run began, so it is no old replay."""
    refused: int = 0
    """From the inviting board: the last of the receiver's events its game could not take
    (0: none). The two boards disagree; the joining board can take the inviting board's
    record (:attr:`record`)."""
    want_record: bool = False
    """From the joining board: please send your record of the game."""
    record: tuple[RecordEntry, ...] | None = None
    """From the inviting board, when asked: the game's events in its order."""
    pub: bytes = b""
    """The sender's public key for the game (:class:`Pairing`): in the sealed JSON of a
    message sealed with the code, in the frame of one sealed with the pair key."""
    paired: bool = False
    """Opened with the pair key (set by :func:`open_message`; never sent)."""
    version: int = PROTOCOL

    def data(self) -> dict[str, Any]:
        """The JSON object that is sealed (absent parts left out)."""
        data: dict[str, Any] = {
            "v": self.version,
            "game": self.game,
            "board": self.board,
            "name": self.name,
            "ack": self.ack,
            "last": self.last,
            "online": self.online,
            "boot": self.boot,
            "conn": self.conn,
            "n": self.n,
            "seen": self.seen,
        }
        if self.seq is not None:
            data["seq"] = self.seq
            data["event"] = self.event
            if self.base is not None:
                data["base"] = self.base
        if self.resend is not None:
            data["resend"] = self.resend
        if self.refused:
            data["refused"] = self.refused
        if self.want_record:
            data["want_record"] = True
        if self.record is not None:
            data["record"] = [list(entry) for entry in self.record]
        if self.pub:
            data["pub"] = self.pub.hex()
        return data


class Reason(enum.Enum):
    """Why a received message was ignored (each is counted by the link)."""

    WRONG_KEY = "wrong key"
    """Not sealed with this game's key: another client on the broker, or tampered."""
    JUNK = "junk"
    """Not shaped like a sealed message (its frame or its length): dropped before any
    decrypt."""
    MALFORMED = "malformed"
    """Opened, but not an envelope this version can use (or larger than any)."""
    OTHER_GAME = "other game"
    """Sealed with this key but naming another game."""
    STRANGER = "stranger"
    """From a board other than the one this link plays with."""
    UNPAIRED = "unpaired"
    """Sealed with the code alone, from the paired board, after the two boards paired:
    sent before it had this board's key (its events come again), or made by someone who
    knows the code."""
    STALE = "stale"
    """Authentic, but no newer than what came already from that run of the other board,
    or from a run of it that has ended (a replay, or a copy the broker sent again): its
    events are still taken (each once), its word on presence and requests are not."""


@dataclass(frozen=True, slots=True)
class Refused:
    """A message that was not used, and why."""

    reason: Reason
    detail: str


@dataclass(frozen=True, slots=True)
class OtherVersion:
    """An authentic message from a board that speaks another protocol version."""

    theirs: int
    name: str | None
    ours: int = PROTOCOL

    @property
    def message(self) -> str:
        newer = "this board" if self.theirs < self.ours else "the other board"
        older = "the other board" if self.theirs < self.ours else "this board"
        return (
            f"{self.name or 'the other board'} speaks link protocol {self.theirs} and this "
            f"board {self.ours}: {newer} is newer, update {older}"
        )


def _compact(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def event_bytes(event: JsonObject) -> int:
    """The size of ``event`` as compact JSON; ValueError if it is no JSON object."""
    if not isinstance(event, Mapping):
        raise ValueError(f"an event is a JSON object, not {type(event).__name__}")
    try:
        return len(_compact(event))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the event is not JSON: {exc}") from None


def padded(plain: bytes) -> bytes:
    """``plain`` with spaces after it up to the first of :data:`SIZES` that holds it (JSON
    ignores them).

    >>> [len(padded(b"{}")), len(padded(b"{" + b" " * 600 + b"}"))]
    [512, 2048]
    """
    size = next((s for s in SIZES if s >= len(plain)), len(plain))
    return plain + b" " * (size - len(plain))


OVERHEAD: Final = len(FRAME) + NONCE_BYTES + 16
"""A payload's bytes around the sealed JSON: the frame, the nonce, Poly1305's tag."""
_LENGTHS: Final = {
    FRAME: frozenset(OVERHEAD + size for size in SIZES),
    PAIR_FRAME: frozenset(OVERHEAD + PUBLIC_BYTES + size for size in SIZES),
}


def plausible(payload: bytes, peer: bytes | None = None) -> bool:
    """Whether ``payload`` could be a sealed message at all: a frame and one of the four
    lengths (:data:`SIZES`), and once the boards are paired (``peer``: the other board's
    public key) a pair key's frame only with that key in it. A cheap look before any
    decrypt, so junk costs next to nothing (junk shaped right costs one decrypt: a few
    microseconds; before the boards paired, an X25519 too).

    >>> plausible(FRAME + bytes(12 + 512 + 16)), plausible(FRAME + bytes(100))
    (True, False)
    """
    lengths = _LENGTHS.get(payload[: len(FRAME)])
    if lengths is None or len(payload) not in lengths:
        return False
    return peer is None or payload.startswith(FRAME) or payload[2 : 2 + PUBLIC_BYTES] == peer


def seal(
    keys: LinkKeys, topic: str, envelope: Envelope, nonce: bytes, pair: bytes | None = None
) -> bytes:
    """The MQTT payload that carries ``envelope`` on ``topic``; ``nonce`` must be 12 fresh
    random bytes (the two boards share the key, so counters could collide). The sealed
    JSON is :func:`padded`. With ``pair`` (:func:`pair_key`) it is sealed with that key
    and the envelope's ``pub`` goes in the frame; otherwise with the code's key."""
    if len(nonce) != NONCE_BYTES:
        raise ValueError(f"the nonce must be {NONCE_BYTES} bytes, not {len(nonce)}")
    if pair is not None and len(envelope.pub) != PUBLIC_BYTES:
        raise ValueError("a message sealed with the pair key carries its sender's key")
    inside = envelope if pair is None else replace(envelope, pub=b"")
    plain = padded(_compact(inside.data()))
    if len(plain) > SIZES[-1]:
        raise ValueError(f"an envelope of {len(plain)} bytes is more than {SIZES[-1]}")
    if pair is None:
        return FRAME + nonce + ChaCha20Poly1305(keys.key).encrypt(nonce, plain, topic.encode())
    sealed = ChaCha20Poly1305(pair).encrypt(nonce, plain, topic.encode() + envelope.pub)
    return PAIR_FRAME + envelope.pub + nonce + sealed


def _no_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        raise ValueError("a key appears twice")
    return data


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _count(data: Mapping[str, Any], key: str, *, low: int) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value < 2**53:
        raise ValueError(f"{key} must be a whole number from {low}, not {value!r}")
    return value


def _text(data: Mapping[str, Any], key: str, most: int) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value or len(value) > most:
        raise ValueError(f"{key} must be text of 1 to {most} characters, not {value!r}")
    return value


_KEYS: Final = frozenset({"v", "game", "board", "name", "ack", "last", "online", "seq", "event",
                          "resend", "base", "boot", "conn", "n", "seen", "refused",
                          "want_record", "record", "pub"})  # fmt: skip


def _record(value: object) -> tuple[RecordEntry, ...]:
    if not isinstance(value, list) or len(value) > MAX_RECORD:
        raise ValueError(f"record must be a list of at most {MAX_RECORD} events")
    entries: list[RecordEntry] = []
    for item in value:
        if not isinstance(item, list) or len(item) != 4:
            raise ValueError("a record's entry is [side, number, set aside, event]")
        side, seq, void, event = item
        if side not in ("a", "b") or isinstance(seq, bool) or not isinstance(seq, int):
            raise ValueError(f"a record's entry names a side and a number, not {item[:2]!r}")
        if seq < 1 or not isinstance(void, bool) or not isinstance(event, dict):
            raise ValueError("a record's entry has a number from 1, true or false, an event")
        entries.append((side, seq, void, event))
    return tuple(entries)


def _run(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str) or len(value) > 32:
        raise ValueError(f"{key} must be text of at most 32 characters, not {value!r}")
    return value


def _envelope(data: Mapping[str, Any]) -> Envelope:
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ValueError(f"unknown fields {', '.join(unknown)}")
    online = data.get("online")
    if not isinstance(online, bool):
        raise ValueError(f"online must be true or false, not {online!r}")
    seq = event = resend = base = None
    if "seq" in data or "event" in data:
        seq = _count(data, "seq", low=1)
        event = data.get("event")
        if not isinstance(event, dict):
            raise ValueError("event must be a JSON object")
        base = _count(data, "base", low=0) if "base" in data else None
    if "resend" in data:
        resend = _count(data, "resend", low=1)
    want = data.get("want_record", False)
    if not isinstance(want, bool):
        raise ValueError(f"want_record must be true or false, not {want!r}")
    pub = data.get("pub", "")
    if not isinstance(pub, str) or len(pub) not in (0, 2 * PUBLIC_BYTES):
        raise ValueError(f"pub must be {PUBLIC_BYTES} bytes in hex, not {pub!r}")
    try:
        public = bytes.fromhex(pub)
    except ValueError:
        raise ValueError(f"pub must be {PUBLIC_BYTES} bytes in hex, not {pub!r}") from None
    return Envelope(
        game=_text(data, "game", 64),
        board=_text(data, "board", 64),
        name=_text(data, "name", 64),
        ack=_count(data, "ack", low=0),
        last=_count(data, "last", low=0),
        seq=seq,
        event=event,
        resend=resend,
        online=online,
        base=base,
        boot=_run(data, "boot"),
        conn=_count(data, "conn", low=0) if "conn" in data else 0,
        n=_count(data, "n", low=0) if "n" in data else 0,
        seen=_run(data, "seen"),
        refused=_count(data, "refused", low=0) if "refused" in data else 0,
        want_record=want,
        record=_record(data["record"]) if "record" in data else None,
        pub=public,
    )


def _unseal(
    keys: LinkKeys, topic: str, payload: bytes, mine: Pairing | None, pair: tuple[bytes, bytes]
) -> tuple[bytes, bytes] | Refused:
    """The plain text of ``payload`` and the public key it was sealed from (b"" for the
    code's key), or why not. ``pair``: the other board's public key and the pair key
    (empty before the boards paired)."""
    if payload.startswith(FRAME):
        nonce, sealed, pub = payload[2:14], payload[14:], b""
        key, aad = keys.key, topic.encode()
    else:
        pub, nonce, sealed = payload[2:34], payload[34:46], payload[46:]
        peer, key = pair
        if not peer:  # not paired yet: whoever sealed it must know the code and its key
            if mine is None:
                return Refused(Reason.WRONG_KEY, "sealed with a pair key; this link has none")
            side = Side.INVITER if f"/{Side.JOINER.value}/" in topic else Side.JOINER
            try:
                key = pair_key(keys, mine, side, pub)
            except ValueError:
                return Refused(Reason.WRONG_KEY, "no public key")
        aad = topic.encode() + pub
    try:
        return ChaCha20Poly1305(key).decrypt(nonce, sealed, aad), pub
    except InvalidTag:
        return Refused(Reason.WRONG_KEY, "not sealed with this game's key for this topic")


def open_message(
    keys: LinkKeys,
    topic: str,
    payload: bytes,
    *,
    mine: Pairing | None = None,
    pair: tuple[bytes, bytes] = (b"", b""),
) -> Envelope | OtherVersion | Refused:
    """The envelope in ``payload`` received on ``topic``, or why there is none. ``mine``:
    this board's key, ``pair``: the other board's public key and the pair key once the
    two boards paired (then a message sealed from another key is refused unopened).

    Never raises for what a stranger can send: every failure is a :class:`Refused`.
    """
    if not plausible(payload, pair[0] or None):
        return Refused(Reason.JUNK, "not a pyramid-board frame, or not the paired board's")
    opened = _unseal(keys, topic, payload, mine, pair)
    if isinstance(opened, Refused):
        return opened
    plain, pub = opened
    # Authentic from here on: only a board with the code (and, with a pub, its key) sealed it.
    try:
        data = json.loads(plain, object_pairs_hook=_no_twice, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        return Refused(Reason.MALFORMED, f"not JSON: {exc}")
    if not isinstance(data, dict):
        return Refused(Reason.MALFORMED, "not a JSON object")
    version = data.get("v")
    if isinstance(version, bool) or not isinstance(version, int):
        return Refused(Reason.MALFORMED, f"no protocol version: {version!r}")
    if version != PROTOCOL:
        name = data.get("name")
        return OtherVersion(version, name if isinstance(name, str) else None)
    try:
        envelope = _envelope(data)
    except ValueError as exc:
        return Refused(Reason.MALFORMED, str(exc))
    if envelope.game != keys.game:
        return Refused(Reason.OTHER_GAME, f"names game {envelope.game}, not {keys.game}")
    if envelope.event is not None and event_bytes(envelope.event) > MAX_EVENT_BYTES:
        return Refused(Reason.MALFORMED, f"an event of more than {MAX_EVENT_BYTES} bytes")
    if pub:
        if envelope.pub:
            return Refused(Reason.MALFORMED, "a public key in the frame and in the message")
        return replace(envelope, pub=pub, paired=True)
    return envelope

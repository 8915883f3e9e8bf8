"""The keys of a linked game: from the invitation code (the message key, the room that
names the topics, the game's id), and the pair key only the two boards share.

**Keys.** :func:`derive_keys` runs scrypt (N = 2¹⁵, r = 8, p = 1: 32 MiB and about a
third of a second) over the code's twelve characters, once per game and board start, and
splits the result with keyed BLAKE2b into the message key, the room (the topics' name)
and the game's id. Everything a stranger on the broker can see — the topics and the
sealed messages — depends on the code only through scrypt.

**Pairing.** Whoever hears the code can seal messages with it, so the code alone would
let someone who learns it later pose as either board. At first contact each board
sends its public key (:class:`Pairing`) sealed with the code; the first board heard
becomes the other board for good (its key kept in the store), and every later message
is sealed with :func:`pair_key`, which needs one of the two boards' own secrets: a code
holder's messages are refused (:mod:`controller.remote.link`), whatever they claim.

>>> keys = derive_keys("7KQM-X4PA-9HZ3")
Traceback (most recent call last):
...
controller.remote.invitation.InvitationError: a character is mistyped, or two are swapped
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass, field
from typing import Final

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from controller.remote.invitation import parse_code

PUBLIC_BYTES: Final = 32
"""The length of an X25519 public key."""
_SALT: Final = b"pyramid-board invitation"
_SCRYPT: Final = {"n": 2**15, "r": 8, "p": 1, "maxmem": 64 * 1024 * 1024, "dklen": 32}


class Side(enum.Enum):
    """The two boards of a linked game: the one that invited and the one that joined."""

    INVITER = "a"
    JOINER = "b"

    @property
    def other(self) -> Side:
        return Side.JOINER if self is Side.INVITER else Side.INVITER


class Kind(enum.Enum):
    """The two topics of a side: its events, and its retained state (acks, requests)."""

    EVENT = "event"
    STATE = "state"


@dataclass(frozen=True, slots=True)
class LinkKeys:
    """What both boards derive from the invitation code; ``repr`` shows no secret."""

    key: bytes = field(repr=False)
    """The ChaCha20-Poly1305 key."""
    room: str
    """The topics' name: 32 hex digits."""
    game: str
    """The linked game's id on both boards: 16 hex digits."""

    def topic(self, side: Side, kind: Kind) -> str:
        """Where ``side`` publishes messages of ``kind``."""
        return f"pyramid/{self.room}/{side.value}/{kind.value}"

    def topics(self, side: Side) -> tuple[str, ...]:
        """Every topic ``side`` publishes on: a board subscribes to these exactly (no
        wildcard: a stranger's other topics under the room never reach it)."""
        return tuple(self.topic(side, kind) for kind in Kind)


@dataclass(frozen=True, slots=True)
class Pairing:
    """One board's X25519 key for one linked game; ``repr`` shows no secret.

    Made from a secret the board keeps (:func:`pairing`), so a restart makes the same
    key. Its public half goes out in every message; the key both boards share
    (:func:`pair_key`) only they can make.
    """

    secret: bytes = field(repr=False)
    public: bytes

    @classmethod
    def of(cls, secret: bytes) -> Pairing:
        private = X25519PrivateKey.from_private_bytes(secret)
        return cls(secret, private.public_key().public_bytes_raw())


def pairing(board_secret: bytes, keys: LinkKeys) -> Pairing:
    """This board's key for the game of ``keys``: from the board's own secret (random,
    made once and kept) and the game's id, so each game has its own.

    >>> a = pairing(bytes(32), derive_keys("5A4L-KPRX-AC7H"))
    >>> a == pairing(bytes(32), derive_keys("5A4L-KPRX-AC7H")), len(a.public)
    (True, 32)
    """
    secret = hashlib.blake2b(b"pair " + keys.game.encode(), key=board_secret, digest_size=32)
    return Pairing.of(secret.digest())


def pair_key(keys: LinkKeys, mine: Pairing, side: Side, theirs: bytes) -> bytes:
    """The key the two boards of ``keys``' game share: HKDF-SHA256 over the X25519 secret
    of this board's key and the other's public one, salted with the code's key and bound
    to the game and both public keys (the inviting board's first). ValueError for a
    public key that is none (the wrong length, or one of X25519's weak points).

    >>> keys = derive_keys("5A4L-KPRX-AC7H")
    >>> a, b = pairing(b"a" * 32, keys), pairing(b"b" * 32, keys)
    >>> pair_key(keys, a, Side.INVITER, b.public) == pair_key(keys, b, Side.JOINER, a.public)
    True
    """
    if len(theirs) != PUBLIC_BYTES:
        raise ValueError(f"a public key is {PUBLIC_BYTES} bytes, not {len(theirs)}")
    private = X25519PrivateKey.from_private_bytes(mine.secret)
    shared = private.exchange(X25519PublicKey.from_public_bytes(theirs))  # ValueError: weak
    a, b = (mine.public, theirs) if side is Side.INVITER else (theirs, mine.public)
    info = b"pyramid-board pair " + keys.game.encode() + a + b
    return HKDF(hashes.SHA256(), 32, salt=keys.key, info=info).derive(shared)


def derive_keys(code: str) -> LinkKeys:
    """The keys of the game behind ``code`` (checked first: an :class:`InvitationError`
    for a mistyped code comes at once, before the slow part).

    >>> keys = derive_keys("5A4L-KPRX-AC7H")
    >>> keys.topic(Side.INVITER, Kind.EVENT) == f"pyramid/{keys.room}/a/event"
    True
    >>> len(keys.room), len(keys.game), keys == derive_keys("5a4l kprx ac7h")
    (32, 16, True)
    """
    letters = parse_code(code).replace("-", "").encode("ascii")
    master = hashlib.scrypt(letters, salt=_SALT, **_SCRYPT)

    def part(label: bytes, size: int) -> bytes:
        return hashlib.blake2b(label, key=master, digest_size=size).digest()

    return LinkKeys(key=part(b"key", 32), room=part(b"room", 16).hex(), game=part(b"game", 8).hex())

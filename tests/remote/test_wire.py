"""The wire: keys and topics from the code, the envelope's JSON, sealing and opening."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from controller.remote.invitation import InvitationError
from controller.remote.wire import (
    FRAME,
    MAX_PAYLOAD,
    PROTOCOL,
    Envelope,
    Kind,
    OtherVersion,
    Reason,
    Refused,
    Side,
    derive_keys,
    open_message,
    padded,
    seal,
)
from rigs.network import CODE, OTHER_CODE, keys

TOPIC = keys().topic(Side.INVITER, Kind.EVENT)


def sealed_text(text: bytes, topic: str = TOPIC) -> bytes:
    """Any bytes sealed with the game's key: what a board with the code could send."""
    nonce = bytes(range(12))
    sealed = ChaCha20Poly1305(keys().key).encrypt(nonce, padded(text), topic.encode())
    return FRAME + nonce + sealed


def sealed_json(data: dict[str, object]) -> bytes:
    return sealed_text(json.dumps(data).encode())


def good() -> dict[str, object]:
    return {"v": PROTOCOL, "game": keys().game, "board": "b1", "name": "Oma", "ack": 0,
            "last": 1, "online": True, "seq": 1, "event": {"kind": "move"}}  # fmt: skip


def test_the_keys_depend_on_the_code_alone() -> None:
    assert derive_keys(CODE.lower().replace("-", " ")) == keys()
    other = keys(OTHER_CODE)
    assert (other.key, other.room, other.game) != (keys().key, keys().room, keys().game)
    assert other.key != keys().key and other.room != keys().room and other.game != keys().game


def test_a_mistyped_code_is_refused_before_any_key_is_made() -> None:
    with pytest.raises(InvitationError, match="mistyped"):
        derive_keys(CODE[:-1] + ("A" if CODE[-1] != "A" else "B"))


def test_topics_name_the_room_and_side_only() -> None:
    topics = {keys().topic(side, kind) for side in Side for kind in Kind}
    assert topics == {f"pyramid/{keys().room}/{s}/{k}" for s in "ab" for k in ("event", "state")}
    assert keys().topics(Side.JOINER) == (f"pyramid/{keys().room}/b/event",
                                          f"pyramid/{keys().room}/b/state")  # fmt: skip
    assert CODE.replace("-", "") not in str(topics) and keys().game not in str(topics)


def test_an_envelope_goes_through_sealed() -> None:
    envelope = Envelope(keys().game, "b1", "Oma & Opa", 3, 4, seq=4, event={"é": [1, None]},
                        resend=2)  # fmt: skip
    payload = seal(keys(), TOPIC, envelope, b"\x01" * 12)
    assert payload.startswith(FRAME) and b"Oma" not in payload
    assert open_message(keys(), TOPIC, payload) == envelope
    state = Envelope(keys().game, "b1", "Oma", 0, 0, online=False)
    assert open_message(keys(), TOPIC, seal(keys(), TOPIC, state, bytes(12))) == state
    assert open_message(keys(), TOPIC, sealed_json(good())) == Envelope(
        keys().game, "b1", "Oma", 0, 1, seq=1, event={"kind": "move"}
    )


def test_the_nonce_must_be_twelve_bytes() -> None:
    with pytest.raises(ValueError, match="12 bytes"):
        seal(keys(), TOPIC, Envelope(keys().game, "b", "n", 0, 0), bytes(8))


def test_other_keys_topics_and_frames_are_refused() -> None:
    payload = seal(keys(), TOPIC, Envelope(keys().game, "b", "n", 0, 0), bytes(12))
    assert open_message(keys(OTHER_CODE), TOPIC, payload) == Refused(
        Reason.WRONG_KEY, "not sealed with this game's key for this topic"
    )
    other_topic = keys().topic(Side.JOINER, Kind.EVENT)
    moved = open_message(keys(), other_topic, payload)
    assert isinstance(moved, Refused) and moved.reason is Reason.WRONG_KEY
    for junk in (b"", FRAME, b"\x00" + payload[1:], payload[:20], b"x" * (MAX_PAYLOAD + 1)):
        refused = open_message(keys(), TOPIC, junk)
        assert isinstance(refused, Refused) and refused.reason is Reason.JUNK


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (b"\xff\xfe", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"v": 1, "v": 1}', "a key appears twice"),
        (b'{"v": NaN}', "NaN is not JSON"),
        (b"[" * 16_000 + b"]" * 16_000, "not JSON"),
        (b'{"name": "x"}', "no protocol version"),
        (b'{"v": true}', "no protocol version"),
    ],
)
def test_sealed_text_that_is_no_envelope_is_malformed(text: bytes, said: str) -> None:
    refused = open_message(keys(), TOPIC, sealed_text(text))
    assert isinstance(refused, Refused) and refused.reason is Reason.MALFORMED
    assert said in refused.detail


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("ack", -1, "ack must be a whole number from 0"),
        ("ack", 1.5, "ack must be"),
        ("last", True, "last must be"),
        ("seq", 0, "seq must be a whole number from 1"),
        ("event", [1], "event must be a JSON object"),
        ("event", None, "event must be a JSON object"),
        ("resend", 0, "resend must be"),
        ("online", "yes", "online must be true or false"),
        ("name", "", "name must be text of 1 to 64"),
        ("board", "b" * 65, "board must be text"),
        ("extra", 1, "unknown fields extra"),
    ],
)
def test_each_field_is_checked(field: str, value: object, said: str) -> None:
    data = good() | {field: value}
    refused = open_message(keys(), TOPIC, sealed_json(data))
    assert isinstance(refused, Refused) and refused.reason is Reason.MALFORMED
    assert said in refused.detail


def test_an_event_without_seq_is_malformed_and_a_huge_one_too() -> None:
    data = good()
    del data["seq"]
    assert isinstance(open_message(keys(), TOPIC, sealed_json(data)), Refused)
    huge = good() | {"event": {"x": "y" * 17_000}}
    refused = open_message(keys(), TOPIC, sealed_json(huge))
    assert isinstance(refused, Refused) and "more than 16384 bytes" in refused.detail


def test_another_game_under_the_same_key_is_refused() -> None:
    refused = open_message(keys(), TOPIC, sealed_json(good() | {"game": "0" * 16}))
    assert isinstance(refused, Refused) and refused.reason is Reason.OTHER_GAME


def test_another_version_is_read_no_further_than_its_number_and_name() -> None:
    future = {"v": PROTOCOL + 1, "name": "Tim", "whatever": {"new": "layout"}}
    assert open_message(keys(), TOPIC, sealed_json(future)) == OtherVersion(PROTOCOL + 1, "Tim")
    older = open_message(keys(), TOPIC, sealed_json({"v": 0, "name": 5}))
    assert older == OtherVersion(0, None)
    assert isinstance(older, OtherVersion)
    assert older.message == (
        "the other board speaks link protocol 0 and this board 3: this board is newer, "
        "update the other board"
    )


def test_the_pure_link_loads_no_network_library() -> None:
    code = (
        "import sys, controller.remote.link, controller.remote.journal; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'paho', 'socket', 'threading', 'sqlite3', 'flask'} "
        "or m.startswith(('controller.hardware', 'controller.referee'))); print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

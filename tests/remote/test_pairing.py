"""The link bound to its two boards, in virtual time: at first contact each board sends
its public key sealed with the code, and from then on every message is sealed with the
key only the two share. Someone who learns the code later (Eve: it was on a locked
page, or read over a shoulder) and recorded every message cannot pose as either board:
no forged event or abort, no offline, no ``refused`` or ``record``, not after a restart
either; an event number taken again with other content is a disagreement both boards
say; and nobody makes a board keep events without end.
"""

from __future__ import annotations

import dataclasses

import pytest

from controller.remote import outcomes as said
from controller.remote.journal import Logged, Origin
from controller.remote.link import MAX_EVENTS, Connection
from controller.remote.stored import LinkRecord
from controller.remote.wire import (
    Envelope,
    Kind,
    Pairing,
    Reason,
    Side,
    pair_key,
    pairing,
    seal,
)
from rigs.network import Board, Broker, keys, move, pair, secret_of

EVE = pairing(secret_of("eve"), keys())
"""Eve's own key for the game: she knows the code, not the boards' secrets."""


def paired() -> tuple[Broker, Board, Board]:
    """Oma and Tim, paired and one event of Oma's taken at Tim's."""
    broker, oma, tim = pair()
    broker.make(oma, move(1))
    broker.deliver_all()
    assert oma.link.report().paired and tim.link.report().paired
    return broker, oma, tim


def public(board: Board) -> bytes:
    assert board.link.pairing is not None
    return board.link.pairing.public


def since(board: Board, mark: int) -> list[said.Outcome]:
    return board.happened[mark:]


def reasons(outcomes: list[said.Outcome]) -> list[Reason]:
    return [o.reason for o in outcomes if isinstance(o, said.Ignored)]


def as_oma(oma: Board, tim: Board, **fields: object) -> Envelope:
    """What Oma's board would say next, as Eve can write it from what she recorded: the
    game, Oma's id, name, run, connection and number, Tim's run, Oma's public key."""
    link = oma.link
    envelope = Envelope(keys().game, link.board, link.name, ack=link.delivered,
                        last=len(link.mine), boot=link.boot, conn=link.conn,
                        n=link.numbered + 1, seen=tim.link.boot, pub=public(oma))  # fmt: skip
    return dataclasses.replace(envelope, **fields)  # type: ignore[arg-type]


def forgeries(oma: Board, tim: Board, envelope: Envelope, topic: str) -> list[bytes]:
    """Every way Eve can seal ``envelope``: with the code (Oma's key named inside); in
    the pair key's frame naming Oma's key but sealed with a key Eve made with Tim's public
    one; and the same naming Eve's own key."""
    eves = pair_key(keys(), EVE, Side.INVITER, public(tim))
    return [
        seal(keys(), topic, envelope, bytes(12)),
        seal(keys(), topic, envelope, bytes(12), eves),
        seal(keys(), topic, dataclasses.replace(envelope, pub=EVE.public), bytes(12), eves),
    ]


def test_the_boards_pair_at_first_contact_and_keep_it_across_a_restart() -> None:
    broker, oma, tim = paired()
    assert oma.peer == ("Tim-board", public(tim)) and tim.peer == ("Oma-board", public(oma))
    assert [o for o in oma.happened if isinstance(o, said.Paired)] == [said.Paired(*oma.peer)]
    sent = broker.sent[-1][1].payload
    assert sent[2:34] in (public(oma), public(tim))  # the pair key's frame names its sender
    broker.restart(tim)
    assert tim.link.report().paired and tim.link.peer_board == "Oma-board"
    broker.connect(tim)
    broker.make(oma, move(2))
    broker.settle()
    assert tim.events(Origin.THERE) == [move(1), move(2)]


@pytest.mark.parametrize(
    "forged",
    [
        pytest.param({"seq": 2, "event": {"kind": "abort"}, "base": 0}, id="an abort"),
        pytest.param({"seq": 2, "event": move(2, "eve"), "base": 0}, id="a move"),
        pytest.param({"online": False}, id="offline"),
        pytest.param({"refused": 1}, id="refused"),
        pytest.param({"record": (("a", 1, False, {"kind": "abort"}),)}, id="a record"),
    ],
)
def test_a_code_holder_cannot_pose_as_the_other_board(forged: dict[str, object]) -> None:
    """Each of Eve's three ways for each message: counted and dropped (sealed with the
    code alone: ``unpaired``; in the pair key's frame: a wrong key, or not the paired
    board's key, unopened). Nothing delivered, no offline, no disagreement, no record;
    Oma's real next event then comes as number 2."""
    broker, oma, tim = paired()
    tim.link = dataclasses.replace(tim.link, record_wanted_at=broker.now)  # even if asked
    kind = Kind.EVENT if "seq" in forged else Kind.STATE
    topic = keys().topic(Side.INVITER, kind)
    mark = len(tim.happened)
    for payload in forgeries(oma, tim, as_oma(oma, tim, **forged), topic):
        broker.carry(tim, tim.link.received(topic, payload, broker.now))
    happened = since(tim, mark)
    assert reasons(happened) == [Reason.UNPAIRED, Reason.WRONG_KEY, Reason.JUNK]
    assert not [
        o for o in happened if isinstance(o, said.Delivered | said.RefusedThere | said.RecordCame)
    ]
    assert tim.link.report().peer_online is True and tim.link.refused_there == 0
    broker.make(oma, move(2))
    broker.deliver_all()
    assert tim.events(Origin.THERE) == [move(1), move(2)]
    assert oma.link.report().unsent == 0


def test_a_retained_offline_is_not_believed_after_a_restart_either() -> None:
    """Eve leaves a retained 'offline' in Oma's name on Oma's state topic, sealed with the
    code (the issue's attack): Tim's board, started again, pairs with nobody new and
    still hears Oma."""
    broker, oma, tim = paired()
    topic = keys().topic(Side.INVITER, Kind.STATE)
    broker.restart(tim)
    offline = as_oma(oma, tim, online=False, seen=tim.link.boot, n=0)
    for payload in forgeries(oma, tim, offline, topic):
        broker.carry(tim, tim.link.received(topic, payload, broker.now))
    assert tim.link.peer_board == "Oma-board" and tim.link.report().peer_online is None
    assert tim.link.counts.unpaired == 1 and tim.link.counts.wrong_key == 1
    broker.connect(tim)
    broker.deliver_all()
    assert tim.link.report().peer_online is True


def test_after_a_restart_the_first_code_holder_to_speak_is_a_stranger() -> None:
    """The peer is kept: Eve's own board, speaking first after Tim's restart with her
    own key, is a stranger (the issue's: 'the first code holder to speak then becomes
    the peer')."""
    broker, oma, tim = paired()
    broker.restart(tim)
    broker.connect(tim)
    topic = keys().topic(Side.INVITER, Kind.EVENT)
    eve = Envelope(keys().game, "eve-board", "Eve", ack=0, last=2, seq=2,
                   event={"kind": "abort"}, base=0, boot="e", conn=1, n=1,
                   seen=tim.link.boot, pub=EVE.public)  # fmt: skip
    mark = len(tim.happened)
    broker.carry(tim, tim.link.received(topic, seal(keys(), topic, eve, bytes(12)), broker.now))
    assert reasons(since(tim, mark)) == [Reason.STRANGER]
    broker.deliver_all()
    broker.make(oma, move(2))
    broker.settle()
    assert tim.events(Origin.THERE) == [move(1), move(2)]


def test_before_pairing_a_frame_of_the_pair_key_from_a_stranger_opens_nothing() -> None:
    """Without the code nobody pairs with a board: a pair key's frame sealed with a key
    made without the code's key is refused."""
    tim = Board(Side.JOINER, "Tim")
    broker = Broker((Board(Side.INVITER, "Oma"), tim))
    broker.connect(tim)
    stranger = dataclasses.replace(keys(), key=bytes(32))  # knows the room, not the code
    key = pair_key(stranger, EVE, Side.INVITER, public(tim))
    topic = keys().topic(Side.INVITER, Kind.STATE)
    hello = Envelope(keys().game, "eve-board", "Eve", 0, 0, pub=EVE.public)
    step = tim.link.received(topic, seal(keys(), topic, hello, bytes(12), key), 0.0)
    assert [o.reason for o in step.happened if isinstance(o, said.Ignored)] == [Reason.WRONG_KEY]
    assert not step.link.report().paired


@pytest.mark.parametrize("at", [Side.JOINER, Side.INVITER])
def test_a_number_taken_again_with_other_content_is_a_disagreement(at: Side) -> None:
    """The other board's store lost its last event and it made another under the same
    number (restored from a backup): the receiving board says the boards disagree
    (``said.Differs``, counted) instead of dropping it as a duplicate."""
    broker, oma, tim = paired()
    sender = oma if at is Side.JOINER else tim
    receiver = tim if sender is oma else oma
    if sender is tim:
        broker.make(tim, move(1, "tim"))
        broker.deliver_all()
    last = sender.journal.events[-1]
    other = move(9, sender.name.lower())
    sender.journal.events[-1] = dataclasses.replace(last, event=other)
    sender.journal.ack = 0
    broker.restart(sender)
    broker.connect(sender)
    broker.deliver_all()
    differs = [o for o in receiver.happened if isinstance(o, said.Differs)]
    assert differs == [said.Differs(last.seq, other)] and receiver.link.counts.differs == 1
    assert receiver.link.counts.duplicates == 0
    assert receiver.events(Origin.THERE)[-1] == last.event  # what was taken stays


def test_nobody_makes_a_board_keep_more_than_max_events() -> None:
    """A board that has taken MAX_EVENTS of the other board's events refuses the next:
    counted, not delivered, not kept (a game has some fifty)."""
    oma, tim = Board(Side.INVITER, "Oma"), Board(Side.JOINER, "Tim")
    oma.journal.events = [Logged(Origin.HERE, n, move(n)) for n in range(1, MAX_EVENTS + 1)]
    tim.journal.events = [Logged(Origin.THERE, n, move(n)) for n in range(1, MAX_EVENTS + 1)]
    oma.journal.ack = MAX_EVENTS
    oma.peer, tim.peer = ("Tim-board", public(tim)), ("Oma-board", public(oma))
    broker = Broker((oma, tim))
    broker.restart(oma)
    broker.restart(tim)
    broker.connect(oma)
    broker.connect(tim)
    broker.deliver_all()
    broker.make(oma, move(MAX_EVENTS + 1))
    broker.deliver_all()
    assert tim.link.delivered == MAX_EVENTS and tim.link.counts.malformed >= 1
    assert not [o for o in tim.happened if isinstance(o, said.Delivered)]
    assert tim.link.connection is Connection.CONNECTED


def test_a_pairing_is_the_boards_own() -> None:
    a, b = pairing(secret_of("a"), keys()), pairing(secret_of("b"), keys())
    assert isinstance(a, Pairing) and a.public != b.public and "secret" not in repr(a)
    assert pairing(secret_of("a"), keys()) == a


def test_a_record_kept_before_pairing_existed_reads_and_pairs_again() -> None:
    """The store keeps the peer in the game's setting (``remote.game.<id>``); a setting
    written by the last version has none, reads as not paired, and the boards pair at
    their next word (both run the new protocol, or they say which they speak)."""
    old = ('{"code": "5A4L-KPRX-AC7H", "side": "a", "setup": {"kind": "setup"}, "remote": [2],'
           ' "acked": 3, "aborted_there": false, "void_here": [], "void_there": [],'
           ' "refused": 0}')  # fmt: skip
    record = LinkRecord.read(old)
    assert record.peer is None and record.acked == 3
    paired_record = dataclasses.replace(record, peer=("Tim-board", bytes(range(32))))
    assert LinkRecord.read(paired_record.json()) == paired_record

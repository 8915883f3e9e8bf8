"""The pure link in virtual time: order, duplicates, loss, reordering, resends, restarts,
another protocol version, a wrong key and tampered messages (no broker, no sleeps)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.remote.journal import JournalError, Logged, Origin
from controller.remote.link import MAX_BATCH, Connection, Publish
from controller.remote.outcomes import (
    Crossed,
    Delivered,
    Ignored,
    RecordCame,
    RecordWanted,
    RefusedThere,
    Voided,
)
from controller.remote.wire import (
    PROTOCOL,
    Envelope,
    Kind,
    OtherVersion,
    Reason,
    Side,
    seal,
)
from rigs.journal import MemoryJournal
from rigs.network import (
    OTHER_CODE,
    TIMING,
    Board,
    Broker,
    keys,
    link_of,
    move,
    opened,
    pair,
    sealed_by,
)


def delivered(board: Board) -> list[int]:
    return [o.seq for o in board.happened if isinstance(o, Delivered)]


def ignored(board: Board) -> list[Reason]:
    return [o.reason for o in board.happened if isinstance(o, Ignored)]


def test_events_arrive_in_order_once_and_are_acknowledged() -> None:
    broker, oma, tim = pair()
    for n in range(1, 11):
        broker.make(oma, move(n))
    broker.deliver_all()
    assert tim.events(Origin.THERE) == [move(n) for n in range(1, 11)]
    assert delivered(tim) == list(range(1, 11))
    assert oma.journal.ack == 10
    assert oma.link.report().unsent == 0 and tim.link.report().missing == 0
    assert oma.link.report().peer_name == "Tim" and tim.link.report().peer_name == "Oma"
    assert oma.link.next_deadline() is None  # nothing waits: no timer runs


def test_both_boards_make_events_into_one_log() -> None:
    broker, oma, tim = pair()
    for n in range(1, 7):
        broker.make(oma if n % 2 else tim, move(n, "oma" if n % 2 else "tim"))
        broker.deliver_all()
    assert oma.events(Origin.HERE) == tim.events(Origin.THERE) == [move(1), move(3), move(5)]
    assert tim.events(Origin.HERE) == oma.events(Origin.THERE)
    assert [e.event["n"] for e in oma.journal.events] == [1, 2, 3, 4, 5, 6]
    assert [e.event["n"] for e in tim.journal.events] == [1, 2, 3, 4, 5, 6]


def test_duplicates_are_dropped_counted_and_acknowledged_again() -> None:
    broker, oma, tim = pair()
    before = len(broker.sent)
    for n in range(1, 4):
        broker.make(oma, move(n))
    copies = [f for f in broker.flight for _ in range(3)]  # QoS 1 redelivers
    broker.flight = copies
    broker.deliver_all()
    assert delivered(tim) == [1, 2, 3]
    assert tim.link.counts.duplicates == 6 and tim.link.counts.stale == 6
    # A duplicate is acknowledged again (the first acknowledgement may have been lost), but
    # at most once per resend time: copies replayed by a stranger cost no flood of replies.
    acks = [m for name, m in broker.sent[before:] if name == "Tim"]
    assert 3 <= len(acks) <= 3 + 1  # one per event, at most one for all the copies
    assert oma.journal.ack == 3


def test_a_lost_event_is_asked_for_and_sent_again() -> None:
    broker, oma, tim = pair()
    for n in range(1, 6):
        broker.make(oma, move(n))
    broker.flight.pop(1)  # event 2 is lost
    for _ in range(2):  # events 1 and 3 arrive
        broker.deliver()
    assert delivered(tim) == [1]
    assert tim.link.report().missing == 2  # 2 is missing, 3 is held
    asks = [f for f in broker.flight if f.to is oma and f.message.topic.endswith("/state")]
    assert asks, "the gap is reported at once"
    request = opened(oma.link, asks[-1].message)
    assert isinstance(request, Envelope) and request.resend == 2
    broker.deliver_all()
    assert delivered(tim) == [1, 2, 3, 4, 5]
    assert tim.events(Origin.THERE) == [move(n) for n in range(1, 6)]


def test_a_lost_last_event_goes_again_after_the_timeout() -> None:
    broker, oma, tim = pair()
    broker.make(oma, move(1))
    broker.flight.clear()  # the only event is lost; nothing later shows the gap
    assert oma.link.next_deadline() == pytest.approx(TIMING.resend_s)
    broker.advance(TIMING.resend_s - 0.01)
    assert not broker.flight
    broker.advance(0.01)
    broker.deliver_all()
    assert delivered(tim) == [1]
    assert oma.link.counts.resent == 1 and oma.link.unsent == 0


def test_reordered_events_are_applied_in_order() -> None:
    broker, oma, tim = pair()
    for n in range(1, 8):
        broker.make(oma, move(n))
    broker.flight.reverse()
    broker.deliver_all()
    assert delivered(tim) == list(range(1, 8))
    assert tim.events(Origin.THERE) == [move(n) for n in range(1, 8)]


def test_resends_back_off_while_nobody_answers() -> None:
    broker, oma, tim = pair()
    broker.disconnect(tim)  # Tim's board is away: nothing reaches it
    broker.make(oma, move(1))
    times = []
    for _ in range(8):
        deadline = oma.link.next_deadline()
        assert deadline is not None
        broker.advance(deadline - broker.now)
        times.append(broker.now)
    gaps = [round(b - a, 6) for a, b in zip([0.0, *times], times, strict=False)]
    assert gaps == [3.0, 6.0, 12.0, 24.0, 48.0, 48.0, 48.0, 48.0]
    assert oma.link.counts.resent == 8
    assert oma.link.report().unsent == 1


def test_events_made_while_the_broker_is_away_are_kept_and_sent_on_reconnect() -> None:
    broker, oma, tim = pair()
    broker.now = 10.0
    broker.disconnect(oma)
    report = oma.link.report()
    assert (report.connection, report.since) == (Connection.UNREACHABLE, 10.0)
    broker.now = 12.0
    broker.disconnect(oma)  # another failed try: still unreachable since 10
    assert oma.link.report().since == 10.0
    for n in range(1, 4):
        broker.make(oma, move(n))
    assert not broker.flight and oma.link.report().unsent == 3
    assert oma.link.next_deadline() is None  # no timer runs without a broker
    broker.now = 20.0
    broker.connect(oma)
    assert oma.link.report().connection is Connection.CONNECTED
    broker.deliver_all()
    assert delivered(tim) == [1, 2, 3]
    assert oma.link.report().unsent == 0


def test_a_restarted_sender_sends_what_was_not_acknowledged() -> None:
    broker, oma, tim = pair()
    broker.make(oma, move(1))
    broker.deliver_all()
    broker.make(oma, move(2))
    broker.make(oma, move(3))
    broker.restart(oma)  # killed before 2 and 3 left: only the store remembers them
    assert oma.link.mine == (move(1), move(2), move(3)) and oma.link.acked == 1
    assert oma.link.report().connection is Connection.CONNECTING
    broker.deliver_all()  # the will: Tim's board sees Oma's drop off
    assert tim.link.report().peer_online is False
    broker.connect(oma)
    broker.deliver_all()
    assert delivered(tim) == [1, 2, 3]
    assert tim.link.report().peer_online is True


def test_a_restarted_receiver_catches_up_exactly_once() -> None:
    broker, oma, tim = pair()
    for n in range(1, 4):
        broker.make(oma, move(n))
    broker.deliver_all()
    broker.restart(tim)
    for n in range(4, 7):
        broker.make(oma, move(n))  # Tim's board is off
    broker.advance(TIMING.resend_s)  # resent into the void
    broker.connect(tim)
    broker.deliver_all()
    assert delivered(tim) == [1, 2, 3, 4, 5, 6]
    assert tim.events(Origin.THERE) == [move(n) for n in range(1, 7)]
    assert tim.link.report().missing == 0 and oma.link.report().unsent == 0


def test_a_board_that_was_off_learns_from_the_retained_state_what_it_lacks() -> None:
    broker, oma, tim = pair()
    broker.make(oma, move(1))
    broker.flight.clear()  # lost, and Oma's board is then switched off
    broker.restart(oma)
    broker.restart(tim)
    broker.connect(tim)  # Tim's board sees Oma's retained state: last = 1
    broker.deliver_all()
    assert tim.link.report().missing == 1 and delivered(tim) == []
    broker.connect(oma)  # asked for it in its retained state: sent at once
    broker.deliver_all()
    assert delivered(tim) == [1]


def test_another_protocol_version_is_a_clear_error_and_no_broken_game() -> None:
    broker, oma, tim = pair()
    topic = keys().topic(Side.INVITER, Kind.EVENT)
    future = dataclasses.replace(
        Envelope(keys().game, "oma-board", "Oma", 0, 1, seq=1, event=move(1)),
        version=PROTOCOL + 1,
    )
    payload = seal(keys(), topic, future, bytes(12))
    for _ in range(3):
        broker.carry(tim, tim.link.received(topic, payload, broker.now))
    said = [o for o in tim.happened if isinstance(o, OtherVersion)]
    assert said == [OtherVersion(PROTOCOL + 1, "Oma")]  # once, not per message
    assert "update this board" in said[0].message
    assert tim.link.report().other_version == said[0]
    assert delivered(tim) == [] and tim.link.delivered == 0
    broker.make(oma, move(1))  # the board is updated: its messages are taken again
    broker.deliver_all()
    assert delivered(tim) == [1] and tim.link.report().other_version is None


@pytest.mark.parametrize("where", ["event", "state"])
def test_a_client_with_a_wrong_key_is_counted_and_ignored(where: str) -> None:
    broker, oma, tim = pair()
    eve = link_of("eve", "Eve", Side.INVITER, keys=keys(OTHER_CODE)).connected(0.0).link
    forged = eve.send(move(1), 0.0).publish[0].payload if where == "event" else (
        eve.will().payload)  # fmt: skip
    topic = keys().topic(Side.INVITER, Kind(where))  # the right topic, somehow known
    for payload in (forged, b"", b"garbage" * 20, forged[:2] + bytes(40)):
        broker.carry(tim, tim.link.received(topic, payload, broker.now))
    assert ignored(tim) == [Reason.WRONG_KEY, Reason.JUNK, Reason.JUNK, Reason.JUNK]
    assert (tim.link.counts.wrong_key, tim.link.counts.junk) == (1, 3)
    assert delivered(tim) == [] and tim.link.report().peer_name == "Oma"
    assert keys(OTHER_CODE).room != tim.link.keys.room
    broker.make(oma, move(1))
    broker.deliver_all()
    assert delivered(tim) == [1]


def test_tampered_and_moved_messages_are_refused() -> None:
    broker, oma, tim = pair()
    broker.make(oma, move(1))
    sent = broker.flight.pop().message
    for i in (3, 40, 60, len(sent.payload) - 1):  # the key in the frame, nonce, text, tag
        spoilt = bytearray(sent.payload)
        spoilt[i] ^= 0x01
        broker.carry(tim, tim.link.received(sent.topic, bytes(spoilt), broker.now))
    state_topic = keys().topic(Side.INVITER, Kind.STATE)
    broker.carry(tim, tim.link.received(state_topic, sent.payload, broker.now))  # moved
    broker.carry(tim, tim.link.received("pyramid/elsewhere/a/event", sent.payload, broker.now))
    assert ignored(tim) == [Reason.JUNK] + [Reason.WRONG_KEY] * 4 + [Reason.MALFORMED]
    assert delivered(tim) == []
    broker.carry(tim, tim.link.received(sent.topic, sent.payload, broker.now))
    assert delivered(tim) == [1]


def test_a_replayed_message_is_a_duplicate() -> None:
    broker, oma, tim = pair()
    broker.make(oma, move(1))
    recorded = broker.flight[0].message
    broker.deliver_all()
    for n in range(2, 4):
        broker.make(oma, move(n))
    broker.deliver_all()
    broker.carry(tim, tim.link.received(recorded.topic, recorded.payload, broker.now))
    assert delivered(tim) == [1, 2, 3] and tim.link.counts.duplicates == 1


def test_a_replayed_request_is_stale_and_never_answered_again() -> None:
    broker, oma, tim = pair()
    for n in range(1, 4):
        broker.make(oma, move(n))
    broker.deliver_all()
    topic = keys().topic(Side.JOINER, Kind.STATE)
    link = tim.link  # the request exactly as Tim's board seals its next message
    ask = Envelope(keys().game, "Tim-board", "Tim", ack=3, last=0, resend=1, boot=link.boot,
                   conn=link.conn, n=link.numbered + 1, seen=oma.link.boot)  # fmt: skip
    payload = sealed_by(link, topic, ask)
    resent = []
    for _ in range(5):  # recorded off the broker and replayed
        step = oma.link.received(topic, payload, broker.now)
        broker.carry(oma, step)
        resent.append(len(step.publish))
    assert resent == [3, 0, 0, 0, 0]
    broker.advance(TIMING.resend_s)
    assert len(oma.link.received(topic, payload, broker.now).publish) == 0
    assert oma.link.counts.stale == 4
    broker.flight.clear()


def test_a_second_board_with_the_code_is_a_stranger() -> None:
    broker, oma, _tim = pair()
    broker.make(oma, move(1))
    broker.deliver_all()
    other = Board(Side.JOINER, "Tom").link.connected(0.0).link  # joined with the same code
    step = other.send(move(1, "tom"), 0.0)
    broker.carry(oma, oma.link.received(step.publish[0].topic, step.publish[0].payload, 1.0))
    assert ignored(oma) == [Reason.STRANGER] and oma.events(Origin.THERE) == []


def test_an_acknowledgement_of_events_never_made_is_refused() -> None:
    broker, oma, _tim = pair()
    topic = keys().topic(Side.JOINER, Kind.STATE)
    lie = Envelope(keys().game, "Tim-board", "Tim", ack=5, last=0)
    broker.carry(oma, oma.link.received(topic, sealed_by(_tim.link, topic, lie), 0.0))
    assert ignored(oma) == [Reason.MALFORMED] and oma.journal.ack == 0


def test_a_journal_whose_numbers_do_not_run_on_is_refused() -> None:
    journal = MemoryJournal()
    journal.events = [Logged(Origin.HERE, 1, move(1)), Logged(Origin.HERE, 3, move(3))]
    with pytest.raises(JournalError, match="event 3 made here follows 1"):
        link_of("o", "Oma", Side.INVITER, journal=journal)
    journal.events = [Logged(Origin.HERE, 1, move(1))]
    journal.ack = 2
    with pytest.raises(JournalError, match="acknowledged up to 2, but 1 events were made"):
        link_of("o", "Oma", Side.INVITER, journal=journal)


def test_a_resend_request_is_answered_in_batches() -> None:
    broker, oma, tim = pair()
    broker.disconnect(tim)
    for n in range(1, MAX_BATCH + 21):
        broker.make(oma, move(n))
    broker.connect(tim)
    broker.deliver_all()
    broker.settle()
    assert delivered(tim) == list(range(1, MAX_BATCH + 21))


def test_an_event_that_is_not_json_is_the_callers_mistake() -> None:
    _broker, oma, _tim = pair()
    with pytest.raises(ValueError, match="not JSON"):
        oma.link.send({"when": object()}, 0.0)
    with pytest.raises(ValueError, match="more than"):
        oma.link.send({"big": "x" * 20_000}, 0.0)


def test_the_report_is_json() -> None:
    broker, oma, tim = pair()
    broker.disconnect(tim)
    broker.make(oma, move(1))
    data = oma.link.report().data()
    assert data["connection"] == "connected" and data["unsent"] == 1
    assert data["peer_name"] == "Tim" and data["counts"]["resent"] == 0
    assert tim.link.report().data()["connection"] == "unreachable"


# -- one order for both boards ------------------------------------------------------------


def test_events_made_apart_cross_and_the_inviting_boards_order_stands() -> None:
    """Oma's board invited; the broker is away; each board makes an event on the same
    state (Oma a move, Tim a take-back and another move). Both boards end with Oma's move
    and none of Tim's two: his board undoes them, hers never applies them."""
    broker, oma, tim = pair()
    broker.make(tim, move(1, "tim"))
    broker.deliver_all()
    broker.disconnect(oma)
    broker.disconnect(tim)
    broker.make(oma, move(2))
    broker.make(tim, {"kind": "undo", "n": 1})
    broker.make(tim, move(3, "tim"))
    broker.connect(oma)
    broker.connect(tim)
    broker.settle()
    crossed = [o for o in oma.happened if isinstance(o, Crossed)]
    voided = [o for o in tim.happened if isinstance(o, Voided)]
    assert [c.seq for c in crossed] == [2, 3] and [v.seqs for v in voided] == [(2, 3)]
    assert oma.journal.order() == [
        (Origin.THERE, move(1, "tim")),
        (Origin.HERE, move(2)),
    ]
    assert [e for _, e in tim.journal.order()] == [move(1, "tim"), move(2)]
    assert tim.link.report().unsent == 0 and oma.link.report().missing == 0
    assert (oma.link.counts.crossed, tim.link.counts.voided) == (2, 2)
    # Tim's next event is made on Oma's move and stands.
    broker.make(tim, move(4, "tim"))
    broker.settle()
    assert [e for _, e in oma.journal.order()] == [e for _, e in tim.journal.order()]
    assert oma.journal.order()[-1] == (Origin.THERE, move(4, "tim"))


def test_undone_events_survive_a_restart_of_the_joining_board() -> None:
    broker, oma, tim = pair()
    broker.disconnect(tim)
    broker.make(tim, move(1, "tim"))
    broker.make(oma, move(1))
    broker.connect(tim)
    broker.settle()
    assert tim.link.void == {1}
    broker.restart(tim)
    assert tim.link.void == {1} and tim.link.report().unsent == 0
    broker.connect(tim)
    broker.make(tim, move(2, "tim"))
    broker.settle()
    assert [e for _, e in oma.journal.order()] == [move(1), move(2, "tim")]
    assert [e for _, e in tim.journal.order()] == [move(1), move(2, "tim")]


def test_a_refused_event_is_said_and_the_record_goes_to_the_joining_board() -> None:
    """Oma's board (it invited) could not take Tim's event: every message of hers says
    so; Tim's board asks for her record and gets it once, her events and his in her
    order, his refused one set aside."""
    broker, oma, tim = pair()
    broker.make(oma, move(1))
    broker.deliver_all()
    broker.make(tim, move(2, "tim"))
    broker.deliver_all()
    broker.carry(oma, oma.link.refuse(1, broker.now))
    broker.deliver_all()
    said = [o for o in tim.happened if isinstance(o, RefusedThere)]
    assert said == [RefusedThere(1)]
    broker.carry(tim, tim.link.want_record(broker.now))
    broker.deliver_all()
    assert [o for o in oma.happened if isinstance(o, RecordWanted)] == [RecordWanted()]
    record = (("a", 1, False, move(1)), ("b", 1, True, move(2, "tim")))
    broker.carry(oma, oma.link.send_record(record, broker.now))
    broker.deliver_all()
    came = [o for o in tim.happened if isinstance(o, RecordCame)]
    assert came == [RecordCame(record, 1)] and tim.link.record_wanted_at is None
    broker.advance(TIMING.resend_s)  # nothing asked again, nothing sent again
    broker.deliver_all()
    assert len([o for o in tim.happened if isinstance(o, RecordCame)]) == 1
    with pytest.raises(ValueError, match="only the inviting board"):
        tim.link.refuse(1, broker.now)


# -- what a stranger replays --------------------------------------------------------------


def test_a_replayed_offline_is_not_believed_not_even_after_a_restart() -> None:
    """A stranger kept Oma's will from an earlier drop and replays it (retained, as the
    issue's stranger did): Tim's board counts it stale and still shows her online; after
    Tim's board restarts, the replay is not believed either (it names an ended run of
    Tim's board), and Oma's next word is."""
    broker, oma, tim = pair()
    broker.restart(oma)
    will = broker.flight[-1].message
    broker.deliver_all()
    assert tim.link.report().peer_online is False
    broker.connect(oma)
    broker.deliver_all()
    assert tim.link.report().peer_online is True
    for _ in range(3):
        broker.carry(tim, tim.link.received(will.topic, will.payload, broker.now))
    assert tim.link.report().peer_online is True and tim.link.counts.stale == 3
    broker.retained[will.topic] = will  # the stranger's retained copy replaces Oma's
    broker.restart(tim)
    broker.flight.clear()
    broker.connect(tim)  # the replay is handed over first
    replay = next(f for f in broker.flight if f.to is tim and f.message is will)
    broker.flight.remove(replay)
    broker.carry(tim, tim.link.received(will.topic, will.payload, broker.now))
    assert tim.link.report().peer_online is None  # not believed: no word yet
    broker.deliver_all()
    broker.advance(TIMING.resend_s)  # replies to runs not yet believed wait that long
    broker.deliver_all()  # Oma's board answers Tim's new run
    assert tim.link.report().peer_online is True


def test_a_flood_of_replayed_events_costs_at_most_a_reply_per_resend_time() -> None:
    broker, oma, tim = pair()
    broker.make(oma, move(1))
    recorded = broker.flight[0].message
    broker.deliver_all()
    before = len(broker.sent)
    for _ in range(1000):
        broker.carry(tim, tim.link.received(recorded.topic, recorded.payload, broker.now))
    assert len(broker.sent) - before <= 1
    assert tim.link.counts.stale == 1000 and delivered(tim) == [1]


def test_sealed_messages_come_in_a_few_sizes() -> None:
    broker, oma, _tim = pair()
    broker.make(oma, move(1))
    broker.make(oma, {"kind": "undo", "n": 1})
    broker.deliver_all()
    sizes = {len(m.payload) for _, m in broker.sent}
    assert sizes == {2 + 12 + 512 + 16, 2 + 32 + 12 + 512 + 16}  # before and after pairing


def test_a_code_nobody_answers_is_said_within_a_minute() -> None:
    broker = Broker((Board(Side.INVITER, "Oma"), Board(Side.JOINER, "Tim")))
    tim = broker.boards[1]
    broker.connect(tim)
    deadline = tim.link.next_deadline()
    assert deadline is not None and deadline <= 60
    broker.advance(deadline - broker.now)
    assert tim.link.report().unanswered
    broker.connect(broker.boards[0])
    broker.deliver_all()
    assert not tim.link.report().unanswered and tim.link.report().peer_name == "Oma"


def test_a_code_another_board_already_joined_is_said_unanswered() -> None:
    """Tom's board joins Oma's code after Tim's did: it hears Oma's board (the topics and
    the key are the code's) but is never answered, so it takes none of her events and
    says, within the answer time, that nobody answers; Oma's board counts the stranger."""
    broker, oma, _tim = pair()
    broker.make(oma, move(1))
    broker.deliver_all()
    tom = Board(Side.JOINER, "Tom")
    sent_by_oma = [m for name, m in broker.sent if name == "Oma"]
    broker.carry(tom, tom.link.connected(broker.now))
    for message in sent_by_oma:  # everything Oma's board said, as the broker hands it on
        broker.carry(tom, tom.link.received(message.topic, message.payload, broker.now))
    for message in [m for name, m in broker.sent if name == "Tom"]:
        broker.carry(oma, oma.link.received(message.topic, message.payload, broker.now))
    broker.flight.clear()
    start = broker.now
    while not tom.link.report().unanswered:  # nothing more comes: only Tom's timers run
        deadline = tom.link.next_deadline()
        assert deadline is not None and deadline <= start + 60
        broker.now = deadline
        broker.carry(tom, tom.link.tick(broker.now))
    assert delivered(tom) == [] and tom.link.report().peer_online is None
    assert oma.link.counts.strangers >= 1


# -- everything at once --------------------------------------------------------------------

ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "make",
                "make",
                "make",
                "deliver",
                "deliver",
                "deliver",
                "drop",
                "copy",
                "swap",
                "disconnect",
                "connect",
                "restart",
                "tick",
            ]
        ),
        st.booleans(),  # which board
        st.integers(min_value=0, max_value=1000),  # which message in flight
    ),
    max_size=80,
)


@settings(max_examples=150, deadline=None)
@given(ACTIONS)
def test_any_faults_then_healing_leave_one_log_on_both_boards(
    actions: list[tuple[str, bool, int]],
) -> None:
    broker, oma, tim = pair()
    made = {id(oma): 0, id(tim): 0}
    for action, first, pick in actions:
        board = oma if first else tim
        index = pick % len(broker.flight) if broker.flight else None
        if action == "make":
            made[id(board)] += 1
            broker.make(board, move(made[id(board)], board.name))
        elif action == "deliver" and index is not None:
            broker.deliver(index)
        elif action == "drop" and index is not None:
            broker.flight.pop(index)
        elif action == "copy" and index is not None:
            broker.flight.append(broker.flight[index])
        elif action == "swap" and index is not None and index + 1 < len(broker.flight):
            flight = broker.flight
            flight[index], flight[index + 1] = flight[index + 1], flight[index]
        elif action == "disconnect":
            broker.disconnect(board)
        elif action == "connect" and board.link.connection is not Connection.CONNECTED:
            broker.connect(board)
        elif action == "restart":
            broker.restart(board)
        elif action == "tick":
            broker.advance(pick / 100)
    for board in (oma, tim):
        if board.link.connection is not Connection.CONNECTED:
            broker.connect(board)
    broker.settle()
    # One game in one order on both boards: every event Oma's board (it invited) made, and
    # Tim's that crossed none of hers; his others were undone at his board.
    assert oma.events(Origin.HERE) == tim.events(Origin.THERE)
    assert tim.events(Origin.HERE) == oma.events(Origin.THERE)
    assert [e for _, e in oma.journal.order()] == [e for _, e in tim.journal.order()]
    assert len(oma.events(Origin.HERE)) == made[id(oma)]
    voided = tim.link.void
    assert len(tim.events(Origin.HERE)) + len(voided) == made[id(tim)]
    for board in (oma, tim):
        assert board.journal.ack == len(board.link.mine)
        report = board.link.report()
        assert report.counts.wrong_key == report.counts.malformed == report.counts.strangers == 0


def test_publish_values_hold_no_secret_in_their_repr() -> None:
    message = Publish("t", b"secret bytes", retain=True)
    assert "secret" not in repr(message) and keys().key.hex() not in repr(keys())

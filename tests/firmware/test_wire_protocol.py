"""Wire protocol v1 (firmware/protocol.py): framing, CRC, every message, and rejection.

The same file runs on the Pico, so the last tests feed one corpus of lines to it in the
MicroPython unix port and check that it decides exactly as CPython does.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware import protocol
from firmware.protocol import (
    MAX_CHANNELS,
    MAX_LEDS,
    MAX_LEVEL_CHANNELS,
    MAX_LINE,
    AskCalibration,
    AskHello,
    AskLevels,
    AskSensors,
    Calibrate,
    Calibration,
    Err,
    Frame,
    Hello,
    Levels,
    LineSplitter,
    Ok,
    ProtocolError,
    Sensors,
    Unreadable,
    crc16,
    decode,
    encode,
)
from firmware.sim.harness import FIRMWARE_DIR, find_micropython

numbers = st.integers(0, 65535)


def table_lines(kind: Any, states: str) -> st.SearchStrategy[Any]:
    """``L`` or ``K`` lines (``kind``): 1 to 50 channels, each a state of ``states`` and
    three levels, its off at most its on."""
    return st.integers(1, MAX_LEVEL_CHANNELS).flatmap(
        lambda count: st.lists(
            st.tuples(
                st.sampled_from(states),
                st.integers(0, 4095),
                st.integers(0, 4095),
                st.integers(0, 4095),
            ),
            min_size=count,
            max_size=count,
        ).map(
            lambda cells: kind(
                "".join(c[0] for c in cells),
                tuple(c[1] for c in cells),
                tuple(min(c[2], c[3]) for c in cells),
                tuple(max(c[2], c[3]) for c in cells),
            )
        )
    )


versions = st.text(protocol.FIRMWARE_VERSION_CHARS, min_size=1, max_size=32)
reasons = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=60)
messages = st.one_of(
    st.builds(Hello, numbers, versions, st.integers(1, MAX_CHANNELS), st.integers(0, MAX_LEDS)),
    st.builds(AskHello),
    st.builds(Sensors, numbers, st.integers(0, 2**MAX_CHANNELS - 1)),
    st.builds(AskSensors),
    st.integers(1, MAX_LEDS).flatmap(
        lambda count: st.builds(
            Frame,
            numbers,
            st.tuples(*[st.integers(0, 0xFFFFFF)] * count),
            st.integers(0, 2**count - 1),
        )
    ),
    st.builds(Ok, numbers),
    st.builds(Err, numbers, reasons.filter(lambda r: r.strip() == r)),
    st.builds(Unreadable, st.integers(0, 2**MAX_CHANNELS - 1)),
    st.builds(AskLevels),
    table_lines(Levels, protocol.LEVEL_STATES),
    st.builds(AskCalibration),
    st.tuples(
        st.integers(0, MAX_LEVEL_CHANNELS - 1),
        st.integers(0, 4095),
        st.integers(1, 4094),
        st.integers(1, 4095),
    )
    .filter(lambda c: c[2] < c[3])
    .map(lambda c: Calibrate(*c)),
    table_lines(Calibration, protocol.CALIBRATION_STATES),
)


def test_crc_is_ccitt_false() -> None:
    # The catalogue check value of CRC-16/CCITT-FALSE (a.k.a. CRC-16/IBM-3740).
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF


def test_lines_as_the_design_spells_them() -> None:
    assert encode(AskHello()) == b"HELLO?*C851\n"
    assert encode(AskSensors()) == b"S?*815F\n"
    assert encode(Hello(1, "1.0.0", 36, 37)) == b"HELLO pyramid 1 1.0.0 36 37*41AD\n"
    assert encode(Sensors(65535, 0x1F)).startswith(b"S 65535 1F*")
    assert encode(Ok(12)) == b"OK 12*" + b"%04X" % crc16(b"OK 12") + b"\n"
    line = encode(Frame(7, (0x102030, 0xFFFFFF), 0b10))
    assert line.startswith(b"F 7 102030FFFFFF 2*")
    assert encode(AskLevels()).startswith(b"L?*")
    assert encode(AskCalibration()).startswith(b"K?*")
    assert encode(Calibrate(14, 186, 174, 223)).startswith(b"K 14 186 174 223*")
    assert encode(Calibration("CL", (186, 149), (174, 173), (223, 223))).startswith(
        b"K C0BA0AE0DFL0950AD0DF*"
    )
    for wrong in (b"K 14 186 223 174", b"K 14 186 0 10", b"K 50 1 2 3", b"K 1 2 3", b"K X"):
        with pytest.raises(ProtocolError):
            decode(protocol.frame_line(wrong.decode()))
    assert encode(Unreadable(0x10)).startswith(b"U 10*")
    cells = Levels("PEU-", (400, 12, 4095, 0), (300, 160, 160, 0), (350, 210, 210, 0))
    assert encode(cells).startswith(b"L P19012C15EE00C0A00D2UFFF0A00D2-000000000*")


@given(messages)
def test_every_message_round_trips_in_one_spelling(message: tuple[object, ...]) -> None:
    line = encode(message)
    assert decode(line) == message
    assert type(decode(line)) is type(message)
    assert encode(decode(line)) == line


@given(messages)
def test_lines_are_short_printable_ascii_without_ctrl_c(message: tuple[object, ...]) -> None:
    line = encode(message)
    assert len(line) - 1 <= MAX_LINE
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert all(0x20 <= byte <= 0x7E for byte in line[:-1])
    assert 0x03 not in line


def test_the_largest_frames_and_bitmaps_fit_and_one_more_does_not() -> None:
    widest = Frame(65535, (0xFFFFFF,) * MAX_LEDS, 2**MAX_LEDS - 1)
    assert len(encode(widest)) - 1 <= MAX_LINE
    with pytest.raises(ValueError, match="longer than"):
        encode(Frame(65535, (0xFFFFFF,) * (MAX_LEDS + 1), 2 ** (MAX_LEDS + 1) - 1))
    assert len(encode(Sensors(65535, 2**MAX_CHANNELS - 1))) - 1 <= MAX_LINE
    with pytest.raises(ValueError):
        encode(Sensors(65535, 2 ** (MAX_CHANNELS + 4) - 1))
    most = MAX_LEVEL_CHANNELS
    assert len(encode(Levels("U" * most, (4095,) * most, (0,) * most, (4095,) * most))) <= 512
    with pytest.raises(ValueError, match=r"1\.\.50 channels"):
        encode(Levels("E" * (most + 1), (0,) * (most + 1), (0,) * (most + 1), (0,) * (most + 1)))


@pytest.mark.parametrize(
    "message",
    [
        Sensors(65536, 0),
        Sensors(-1, 0),
        Sensors(1, -1),
        Frame(1, (), 0),
        Frame(1, (0x1000000,), 0),
        Frame(1, (0,), 0b10),
        Ok(True),
        Err(1, ""),
        Err(1, " padded"),
        Err(1, "café"),
        Hello(1, "1.0 beta", 1, 1),
        Hello(1, "1.0", 0, 1),
        Hello(1, "1.0", 1, MAX_LEDS + 1),
        Unreadable(-1),
        Levels("", (), (), ()),
        Levels("X", (0,), (0,), (0,)),
        Levels("E", (4096,), (0,), (0,)),
        Levels("E", (0,), (11,), (10,)),
        Levels("EE", (0,), (0,), (0,)),
        ("S", 1, 2),
    ],
)
def test_bad_fields_are_refused_when_encoding(message: tuple[object, ...]) -> None:
    with pytest.raises(ValueError):
        encode(message)


def line(body: bytes) -> bytes:
    return body + b"*%04X\n" % crc16(body)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"S 01 1", "bad number"),
        (b"S +1 1", "bad number"),
        (b"S 65536 1", "number out of range"),
        (b"S 1 0A", "bad hex"),
        (b"S 1 a", "bad hex"),
        (b"S 1 0x1", "bad hex"),
        (b"S 1  1", "unknown message"),
        (b"S 1 1 ", "unknown message"),
        (b"S  1 1", "unknown message"),
        (b"s 1 1", "unknown message"),
        (b"F 1 FF00 0", "bad colours"),
        (b"F 1 ff0000 0", "bad colours"),
        (b"F 1 FF0000 2", "blink names a missing LED"),
        (b"OK", "unknown message"),
        (b"OK 1 2", "unknown message"),
        (b"ERR 1", "unknown message"),
        (b"ERR 1  spaced", "bad ERR"),
        (b"HELLO pyramid 1 1.0 0 5", "no channels"),
        (b"HELLO pyramid 1 1.0 8 80", "number out of range"),
        (b"HELLO other 1 1.0 8 5", "unknown message"),
        (b"HELLO pyramid 1 1,0 8 5", "bad firmware version"),
        (b"HELLO? ", "unknown message"),
        (b"S? 1", "unknown message"),
        (b"L? 1", "unknown message"),
        (b"U", "unknown message"),
        (b"U 01", "bad hex"),
        (b"L E000000", "bad levels"),
        (b"L X000000000", "bad levels"),
        (b"L E00000000g", "bad levels"),
        (b"L E000100010", "bad levels"),
        (b"L E00000000FE", "bad levels"),
    ],
)
def test_lines_that_match_no_message_exactly_are_refused(body: bytes, reason: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        decode(line(body))
    assert refused.value.args[0] == reason


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"S 1 1*ABCD\n", "bad CRC"),
        (b"S 1 1\n", "no CRC"),
        (b"S 1 1*abcd\n", "no CRC"),
        (b"S 1 1 *12345\n", "no CRC"),
        (b"*1234\n", "no CRC"),
        (b"\n", "no CRC"),
        (b"S 1 \x031*0000\n", "not ASCII"),
        (b"S 1 \xff*0000\n", "not ASCII"),
    ],
)
def test_lines_without_a_valid_crc_are_refused(raw: bytes, reason: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        decode(raw)
    assert refused.value.args[0] == reason


def test_every_single_byte_error_is_caught() -> None:
    good = encode(Frame(300, (0x123456, 0xABCDEF), 0b01))
    for index in range(len(good) - 1):  # every byte but the newline
        for value in range(256):
            if value == good[index] or value == 0x0A:
                continue
            damaged = good[:index] + bytes([value]) + good[index + 1 :]
            with pytest.raises(ProtocolError):
                decode(damaged)


def test_a_cr_before_the_lf_is_ignored() -> None:
    assert decode(encode(Ok(5))[:-1] + b"\r\n") == Ok(5)


def test_line_length_limit() -> None:
    body = b"ERR 1 " + b"x" * (MAX_LINE - 5 - 6)
    longest = line(body)
    assert len(longest) - 1 == MAX_LINE
    assert decode(longest) == Err(1, "x" * (MAX_LINE - 11))
    with pytest.raises(ProtocolError, match="too long"):
        decode(line(body + b"x"))


def test_the_splitter_gives_the_same_lines_however_the_bytes_arrive() -> None:
    stream = b"".join(encode(m) for m in (Ok(1), Sensors(2, 0xFF), AskHello(), Ok(3)))
    whole = LineSplitter().feed(stream)
    assert [decode(x) for x in whole] == [Ok(1), Sensors(2, 0xFF), AskHello(), Ok(3)]
    rng = random.Random(4)
    for _ in range(50):
        splitter = LineSplitter()
        got: list[bytes] = []
        start = 0
        while start < len(stream):
            end = start + rng.randint(1, 9)
            got += splitter.feed(stream[start:end])
            start = end
        assert got == whole


def test_an_overlong_line_is_handed_on_once_cut_short_and_the_next_line_survives() -> None:
    splitter = LineSplitter()
    out = splitter.feed(b"Z" * 300)
    out += splitter.feed(b"Z" * 300)  # now over the limit: handed on at once
    assert len(out) == 1 and len(out[0]) == MAX_LINE + 2
    with pytest.raises(ProtocolError, match="too long"):
        decode(out[0])
    out = splitter.feed(b"Z" * 5000 + b"\n" + encode(Ok(9)))
    assert out == [encode(Ok(9))]  # the rest of the long line vanished, memory stayed small


def test_an_overlong_line_in_one_read_is_refused() -> None:
    (long_line,) = LineSplitter().feed(b"Y" * 2000 + b"\n")
    with pytest.raises(ProtocolError, match="too long"):
        decode(long_line)


def test_clear_forgets_a_partial_line() -> None:
    splitter = LineSplitter()
    splitter.feed(b"S 1 ")
    splitter.clear()
    assert splitter.feed(encode(Ok(1))) == [encode(Ok(1))]


# -- the same file under MicroPython ------------------------------------------------------

MICROPYTHON = find_micropython()
needs_micropython = pytest.mark.skipif(
    MICROPYTHON is None, reason="the MicroPython unix port does not run on this machine"
)

DECIDE = """
import sys, json
sys.path.insert(0, {dir!r})
import protocol
out = []
for text in json.loads(open({corpus!r}).read()):
    line = bytes([int(text[i:i + 2], 16) for i in range(0, len(text), 2)])
    try:
        message = protocol.decode(line)
    except protocol.ProtocolError as error:
        out.append("refused " + error.args[0])
        continue
    again = protocol.encode(message)
    out.append(type(message).__name__ + " " + repr(tuple(message)) + " " + str(again == line))
print(json.dumps(out))
"""


def cpython_decision(raw: bytes) -> str:
    try:
        message = decode(raw)
    except ProtocolError as error:
        reason = error.args[0]
        assert isinstance(reason, str)
        return "refused " + reason
    return f"{type(message).__name__} {tuple(message)!r} {encode(message) == raw}"


@needs_micropython
@pytest.mark.micropython
def test_micropython_decides_every_line_as_cpython_does(tmp_path: Path) -> None:
    rng = random.Random(11)
    corpus: list[bytes] = []
    samples = [
        Hello(1, "1.0.0", 36, 37),
        AskHello(),
        Sensors(65535, 2**200 - 1),
        AskSensors(),
        Frame(1, tuple(rng.randrange(2**24) for _ in range(MAX_LEDS)), 2**MAX_LEDS - 1),
        Ok(0),
        Err(77, "frame has 3 LEDs, board has 37"),
        Unreadable(0x10),
        AskLevels(),
        Levels("PEU-" * 9, tuple(range(0, 3600, 100)), (160,) * 36, (210,) * 36),
        AskCalibration(),
        Calibrate(14, 186, 174, 223),
        Calibration("CNL-" * 9, tuple(range(0, 3600, 100)), (160,) * 36, (210,) * 36),
    ]
    for message in samples:
        good = encode(message)
        corpus.append(good)
        for _ in range(30):
            damaged = bytearray(good)
            damaged[rng.randrange(len(good) - 1)] = rng.randrange(256)
            corpus.append(bytes(damaged))
        corpus.append(good[: rng.randrange(len(good))])
    corpus.append(b"x" * 600 + b"\n")
    corpus.extend(bytes(rng.randrange(256) for _ in range(rng.randint(0, 40))) for _ in range(50))
    corpus_file = tmp_path / "corpus.json"
    corpus_file.write_text(json.dumps([c.hex() for c in corpus]))
    assert MICROPYTHON is not None
    script = DECIDE.format(dir=str(FIRMWARE_DIR), corpus=str(corpus_file))
    done = subprocess.run(
        [MICROPYTHON, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    micropython = json.loads(done.stdout)
    assert micropython == [cpython_decision(raw) for raw in corpus]
    assert sum(d.startswith("refused") for d in micropython) > len(corpus) // 2

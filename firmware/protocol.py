"""Wire protocol v1 between the host and the Pico sensor/LED board.

One file, imported by the firmware (MicroPython, as ``protocol``) and by the host's serial
adapter (CPython, as ``firmware.protocol``). It is pure: it never reads or writes a port.

Every line is ``BODY*CRC\\n``: CRC is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of the
BODY bytes as 4 upper-case hex digits. A line is at most :data:`MAX_LINE` bytes before its
``\\n``; a longer one, one without a valid CRC, or one that does not match a known message
exactly raises :class:`ProtocolError` and must be dropped and counted, never acted on.
Only printable ASCII is ever encoded, so byte 0x03 (which interrupts MicroPython) is never
sent.

Messages are small named tuples; :func:`encode` turns one into a line, :func:`decode`
turns a line back into one:

>>> encode(Sensors(7, 0b1010))
b'S 7 A*C394\\n'
>>> decode(b'S 7 A*C394\\n')
Sensors(seq=7, bitmap=10)
>>> decode(b'S 7 B*C394\\n')
Traceback (most recent call last):
...
firmware.protocol.ProtocolError: bad CRC

Device to host: :class:`Hello`, :class:`Sensors`, :class:`Ok`, :class:`Err`, since
firmware 1.1.0 :class:`Has` and :class:`Stats`, from a reflective board (``HAS levels``)
:class:`Unreadable` and :class:`Levels`, and from one that keeps its cells' calibration
(``HAS calib``) :class:`Calibration`.
Host to device: :class:`AskHello`, :class:`Frame`, :class:`AskSensors`, since firmware
1.1.0 :class:`Tune`, to a board whose ``HAS`` named ``levels`` :class:`AskLevels`, and to
one that named ``calib`` :class:`Calibrate` and :class:`AskCalibration`.

Lines added later keep protocol 1 working both ways: a host drops (and counts) device
lines it does not know, firmware host lines; a host sends ``T``, ``L?``, ``K`` or ``K?``
only to a board whose ``HAS`` named ``buzzer``, ``levels`` or ``calib``
(docs/architecture.md).

Numbers (``seq``, command number ``n``, channel and LED counts) are decimal without
leading zeros; bitmaps and colours are upper-case hex (bitmaps without leading zeros).
Each message therefore has exactly one spelling, and ``encode(decode(line)) == line``.

MicroPython has neither ``__future__``, ``typing`` nor dataclasses, so the values are
immutable ``collections.namedtuple`` subclasses; MicroPython ignores the annotations.
"""

from collections import namedtuple

try:  # noqa: SIM105 - MicroPython has no contextlib
    from typing import Any
except ImportError:  # MicroPython never evaluates annotations, so Any need not exist there
    pass

PROTOCOL = 1
"""The protocol version this file speaks; sent in :class:`Hello`."""

MAX_LINE = 512
"""Most bytes in ``BODY*CRC`` (the line without its ``\\n``)."""

SEQ_MODULO = 65536
"""``seq`` and command numbers count up modulo this."""

# The longest frame that fits a line: "F 65535 " + 6 hex digits per LED + " " + blink
# mask (one hex digit per 4 LEDs) + "*XXXX" <= MAX_LINE.
MAX_LEDS = 79
"""Most LEDs one ``F`` line can carry (the longest command number and a full blink mask)."""

# "S 65535 " + one hex digit per 4 channels + "*XXXX" <= MAX_LINE.
MAX_CHANNELS = 1996
"""Most channels one ``S`` line can carry."""

FIRMWARE_VERSION_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.+-_"
"""Characters allowed in a firmware version (one word, at most 32 of them)."""

MAX_NOTES = 32
"""Most notes in one :class:`Tune` (the longest tune of the host has 4)."""

COUNTER_LIMIT = 1 << 30
"""Counters in :class:`Stats` wrap below this (a small int on MicroPython)."""

LEVEL_STATES = "EPU-"  # empty, present, unreadable, not a reflective sensor
CALIBRATION_STATES = "CNL-"  # calibrated and stored, set but not stored, learning, none
LEVEL_LIMIT = 4096  # levels are ADC counts
MAX_LEVEL_CHANNELS = 50  # "L " + 10 per channel + "*XXXX" <= MAX_LINE

_HEX = "0123456789ABCDEF"
_FEATURE_CHARS = "abcdefghijklmnopqrstuvwxyz_"
_DIGITS = "0123456789"


class Hello(namedtuple("Hello", ("protocol", "firmware", "channels", "leds"))):
    """``HELLO pyramid <protocol> <firmware> <channels> <leds>``: the device says who it is.

    Sent at boot and in reply to :class:`AskHello`. ``protocol`` is the wire protocol version
    (1), ``firmware`` the firmware version word, ``channels`` and ``leds`` the board's counts.
    """

    __slots__ = ()


class AskHello(namedtuple("AskHello", ())):
    """``HELLO?``: the host asks the device to send :class:`Hello`."""

    __slots__ = ()


class Sensors(namedtuple("Sensors", ("seq", "bitmap"))):
    """``S <seq> <bitmap>``: the debounced state of every channel.

    Bit n of ``bitmap`` is channel n. ``seq`` counts up by one per ``S`` line, modulo 65536.
    """

    __slots__ = ()


class AskSensors(namedtuple("AskSensors", ())):
    """``S?``: the host asks for a :class:`Sensors` line now."""

    __slots__ = ()


class Frame(namedtuple("Frame", ("n", "colours", "blink"))):
    """``F <n> <colours> <blink>``: a whole LED frame, command number ``n``.

    ``colours`` is a tuple of ``0xRRGGBB`` ints in LED order (one per LED, at least one);
    bit i of ``blink`` makes LED i blink. A frame replaces the previous one whole.
    """

    __slots__ = ()


class Ok(namedtuple("Ok", ("n",))):
    """``OK <n>``: the device carried out host command number ``n``."""

    __slots__ = ()


class Err(namedtuple("Err", ("n", "reason"))):
    """``ERR <n> <reason>``: the device refused host command ``n``; ``reason`` is a short phrase."""

    __slots__ = ()


class Has(namedtuple("Has", ("features",))):
    """``HAS <feature> ...``: what the board has beyond sensors and LEDs, after each HELLO.

    ``features`` is a tuple of lower-case words, e.g. ``("buzzer",)``; a board with nothing
    extra sends no ``HAS`` line.
    """

    __slots__ = ()


class Stats(namedtuple("Stats", ("dropped", "held", "cut"))):
    """``STATS <dropped> <held> <cut>``: the device's own counters since it booted.

    ``dropped``: host lines it dropped (too long, bad CRC, unknown); ``held``: lines it did
    not write because the host was not reading (USB's buffer full); ``cut``: lines cut
    short because a write timed out. Sent after each HELLO and after an ``S`` line
    whenever one of them changed.
    """

    __slots__ = ()


class Tune(namedtuple("Tune", ("n", "volume", "notes"))):
    """``T <n> <volume> <hz>:<ms>,...``: play a tune on the buzzer, command number ``n``.

    ``volume`` is 0–100 (per cent of the loudest); ``notes`` a tuple of ``(hz, ms)``, one to
    :data:`MAX_NOTES`, ``hz`` 0 (a rest) or 20–20000, ``ms`` 1–5000. A new tune replaces
    one still playing. Answered ``OK <n>``, or ``ERR <n> no buzzer``.
    """

    __slots__ = ()


class Unreadable(namedtuple("Unreadable", ("bitmap",))):
    """``U <bitmap>``: the channels too bright to read (each keeps its state in ``S``);
    after ``S`` when it changed, and with every ``S`` while not 0."""

    __slots__ = ()


class Levels(namedtuple("Levels", ("states", "levels", "off", "on"))):
    """``L <cells>``: the answer to ``L?``; per channel its state (:data:`LEVEL_STATES`)
    and 3 hex digits each of its level, off and on threshold (docs/architecture.md)."""

    __slots__ = ()


class AskLevels(namedtuple("AskLevels", ())):
    """``L?``: the host asks for a :class:`Levels` line."""

    __slots__ = ()


class Calibration(namedtuple("Calibration", ("states", "empty", "off", "on"))):
    """``K <cells>``: the answer to ``K?`` and to each :class:`Calibrate`; per channel its
    state (:data:`CALIBRATION_STATES`: ``C`` calibrated and kept on the flash, ``N`` set
    but the flash would not keep it, ``L`` learning with the config's marks, ``-`` not a
    reflective sensor) and 3 hex digits each of its empty level, and its off and on mark
    over that level (docs/architecture.md)."""

    __slots__ = ()


class Calibrate(namedtuple("Calibrate", ("channel", "empty", "off", "on"))):
    """``K <channel> <empty> <off> <on>``: the host sets a reflective sensor's empty level
    and its marks over it (ADC counts, ``off`` below ``on``), kept on the board's flash;
    answered with a :class:`Calibration` line."""

    __slots__ = ()


class AskCalibration(namedtuple("AskCalibration", ())):
    """``K?``: the host asks for a :class:`Calibration` line."""

    __slots__ = ()


class ProtocolError(ValueError):
    """A line that must be dropped; ``args[0]`` is a short reason such as ``"bad CRC"``."""


def _crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


# Table-driven: one lookup per byte keeps a full F line well under a millisecond on a Pico.
_CRC_TABLE = _crc_table()


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE of ``data``.

    >>> '%04X' % crc16(b'123456789')
    '29B1'
    """
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


def frame_line(body: str) -> bytes:
    """``BODY*CRC\\n`` for a body of printable ASCII; raises ValueError if it cannot be sent.

    >>> frame_line('HELLO?')
    b'HELLO?*C851\\n'
    """
    data = body.encode()
    for byte in data:
        if byte < 0x20 or byte > 0x7E:
            raise ValueError("a line body must be printable ASCII")
    if len(data) + 5 > MAX_LINE:
        raise ValueError(f"line of {len(data) + 5} bytes is longer than {MAX_LINE}")
    return data + b"*" + f"{crc16(data):04X}".encode() + b"\n"


def unframe_line(line: bytes) -> str:
    """The BODY of one received line (with or without its ``\\n``), after checking its CRC.

    A CR before the LF is ignored (a terminal may add one); anything else wrong raises
    :class:`ProtocolError`.
    """
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    if len(line) > MAX_LINE:
        raise ProtocolError("too long")
    if len(line) < 6 or line[-5] != 0x2A:  # 0x2A is "*"
        raise ProtocolError("no CRC")
    body = line[:-5]
    for byte in body:
        if byte < 0x20 or byte > 0x7E:
            raise ProtocolError("not ASCII")
    digits = line[-4:]
    expected = 0
    for byte in digits:
        value = _HEX.find(chr(byte))
        if value < 0:
            raise ProtocolError("no CRC")
        expected = (expected << 4) | value
    if crc16(body) != expected:
        raise ProtocolError("bad CRC")
    return body.decode()


def _dec(token: str, limit: int) -> int:
    """A decimal number 0..limit-1 spelled canonically (no sign, no leading zero)."""
    if not token or (len(token) > 1 and token[0] == "0"):
        raise ProtocolError("bad number")
    for char in token:
        if char not in _DIGITS:
            raise ProtocolError("bad number")
    value = int(token)
    if value >= limit:
        raise ProtocolError("number out of range")
    return value


def _hex(token: str) -> int:
    """An upper-case hex bitmap spelled canonically (no leading zero)."""
    if not token or (len(token) > 1 and token[0] == "0"):
        raise ProtocolError("bad hex")
    for char in token:
        if char not in _HEX:
            raise ProtocolError("bad hex")
    return int(token, 16)


def _colours(token: str) -> tuple[int, ...]:
    if not token or len(token) % 6:
        raise ProtocolError("bad colours")
    for char in token:
        if char not in _HEX:
            raise ProtocolError("bad colours")
    return tuple(int(token[i : i + 6], 16) for i in range(0, len(token), 6))


def _notes(token: str) -> tuple[tuple[int, int], ...]:
    parts = token.split(",")
    if len(parts) > MAX_NOTES:
        raise ProtocolError("too many notes")
    notes = []
    for part in parts:
        halves = part.split(":")
        if len(halves) != 2:
            raise ProtocolError("bad note")
        hz = _dec(halves[0], 20001)
        ms = _dec(halves[1], 5001)
        if (hz and hz < 20) or not ms:
            raise ProtocolError("bad note")
        notes.append((hz, ms))
    return tuple(notes)


def _levels(token: str, known: str = LEVEL_STATES, kind: Any = None) -> Any:
    count = len(token) // 10
    if not count or len(token) % 10 or count > MAX_LEVEL_CHANNELS:
        raise ProtocolError("bad levels")
    states = []
    levels = []
    off = []
    on = []
    for i in range(0, len(token), 10):
        states.append(token[i])
        if token[i] not in known:
            raise ProtocolError("bad levels")
        for char in token[i + 1 : i + 10]:
            if char not in _HEX:
                raise ProtocolError("bad levels")
        levels.append(int(token[i + 1 : i + 4], 16))
        off.append(int(token[i + 4 : i + 7], 16))
        on.append(int(token[i + 7 : i + 10], 16))
        if off[-1] > on[-1]:
            raise ProtocolError("bad levels")
    return (kind or Levels)("".join(states), tuple(levels), tuple(off), tuple(on))


def _check_feature(word: str, error: type) -> None:
    if not word:
        raise error("bad feature")
    for char in word:
        if char not in _FEATURE_CHARS:
            raise error("bad feature")


def check_firmware_version(word: str) -> None:
    if not 0 < len(word) <= 32:
        raise ValueError("firmware version must be 1 to 32 characters")
    for char in word:
        if char not in FIRMWARE_VERSION_CHARS:
            raise ValueError(f"firmware version {word!r} has a character outside [A-Za-z0-9.+-_]")


def _check_number(name: str, value: int, limit: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < limit:
        raise ValueError(f"{name} must be a whole number 0..{limit - 1}, not {value!r}")


def _check_reason(reason: str) -> None:
    if not reason or reason[0] == " " or reason[-1] == " ":
        raise ValueError("an ERR reason must be a non-empty phrase without outer spaces")


def decode(line: bytes) -> Any:
    """The message on one received line; raises :class:`ProtocolError` for anything else.

    >>> decode(b'HELLO pyramid 1 1.0.0 36 37*41AD\\n')
    Hello(protocol=1, firmware='1.0.0', channels=36, leds=37)
    >>> decode(b'F 3 FF0000000000 2*5D50')
    Frame(n=3, colours=(16711680, 0), blink=2)
    """
    body = unframe_line(line)
    words = body.split(" ")
    kind = words[0]
    count = len(words)
    if kind == "S" and count == 3:
        return Sensors(_dec(words[1], SEQ_MODULO), _hex(words[2]))
    if kind == "F" and count == 4:
        colours = _colours(words[2])
        blink = _hex(words[3])
        if blink >> len(colours):
            raise ProtocolError("blink names a missing LED")
        return Frame(_dec(words[1], SEQ_MODULO), colours, blink)
    if kind == "OK" and count == 2:
        return Ok(_dec(words[1], SEQ_MODULO))
    if kind == "ERR" and count >= 3:
        reason = body.split(" ", 2)[2]
        if not reason or reason[0] == " " or reason[-1] == " ":
            raise ProtocolError("bad ERR")
        return Err(_dec(words[1], SEQ_MODULO), reason)
    if kind == "HELLO" and count == 6 and words[1] == "pyramid":
        version = words[3]
        try:
            check_firmware_version(version)
        except ValueError:
            raise ProtocolError("bad firmware version") from None
        protocol = _dec(words[2], SEQ_MODULO)
        channels = _dec(words[4], MAX_CHANNELS + 1)
        leds = _dec(words[5], MAX_LEDS + 1)
        if channels < 1:
            raise ProtocolError("no channels")
        return Hello(protocol, version, channels, leds)
    if kind == "T" and count == 4:
        volume = _dec(words[2], 101)
        return Tune(_dec(words[1], SEQ_MODULO), volume, _notes(words[3]))
    if kind == "STATS" and count == 4:
        return Stats(
            _dec(words[1], COUNTER_LIMIT),
            _dec(words[2], COUNTER_LIMIT),
            _dec(words[3], COUNTER_LIMIT),
        )
    if kind == "U" and count == 2:
        return Unreadable(_hex(words[1]))
    if kind == "L" and count == 2:
        return _levels(words[1])
    if kind == "K" and count == 2:
        return _levels(words[1], CALIBRATION_STATES, Calibration)
    if kind == "K" and count == 5:
        values = [_dec(word, LEVEL_LIMIT) for word in words[1:]]
        if values[0] >= MAX_LEVEL_CHANNELS or not 0 < values[2] < values[3]:
            raise ProtocolError("bad calibration")
        return Calibrate(*values)
    if kind == "HAS" and count >= 2:
        features = tuple(words[1:])
        for feature in features:
            _check_feature(feature, ProtocolError)
        return Has(features)
    if body == "HELLO?":
        return AskHello()
    if body == "S?":
        return AskSensors()
    if body == "L?":
        return AskLevels()
    if body == "K?":
        return AskCalibration()
    raise ProtocolError("unknown message")


def encode(message: Any) -> bytes:
    """The line (with CRC and ``\\n``) for one message; raises ValueError for bad fields.

    >>> encode(Frame(3, (0xFF0000, 0x000000), 0b10))
    b'F 3 FF0000000000 2*5D50\\n'
    >>> encode(Err(4, 'leds'))
    b'ERR 4 leds*7FDF\\n'
    """
    kind = type(message)
    if kind is Sensors:
        _check_number("seq", message.seq, SEQ_MODULO)
        if not isinstance(message.bitmap, int) or message.bitmap < 0:
            raise ValueError("bitmap must be a whole number from 0 up")
        return frame_line(f"S {message.seq} {message.bitmap:X}")
    if kind is Frame:
        _check_number("n", message.n, SEQ_MODULO)
        colours = message.colours
        if not colours:
            raise ValueError("a frame needs at least one LED")
        parts = []
        for colour in colours:
            _check_number("colour", colour, 0x1000000)
            parts.append(f"{colour:06X}")
        if not isinstance(message.blink, int) or message.blink < 0 or message.blink >> len(colours):
            raise ValueError("blink must be a bitmask of the frame's LEDs")
        return frame_line(f"F {message.n} {''.join(parts)} {message.blink:X}")
    if kind is Ok:
        _check_number("n", message.n, SEQ_MODULO)
        return frame_line(f"OK {message.n}")
    if kind is Err:
        _check_number("n", message.n, SEQ_MODULO)
        _check_reason(message.reason)
        return frame_line(f"ERR {message.n} {message.reason}")
    if kind is Hello:
        _check_number("protocol", message.protocol, SEQ_MODULO)
        check_firmware_version(message.firmware)
        _check_number("channels", message.channels, MAX_CHANNELS + 1)
        if message.channels < 1:
            raise ValueError("a board has at least one channel")
        _check_number("leds", message.leds, MAX_LEDS + 1)
        return frame_line(
            f"HELLO pyramid {message.protocol} {message.firmware} {message.channels} {message.leds}"
        )
    if kind is Tune:
        _check_number("n", message.n, SEQ_MODULO)
        _check_number("volume", message.volume, 101)
        notes = message.notes
        if not notes or len(notes) > MAX_NOTES:
            raise ValueError(f"a tune has 1 to {MAX_NOTES} notes")
        parts = []
        for hz, ms in notes:
            _check_number("hz", hz, 20001)
            _check_number("ms", ms, 5001)
            if (hz and hz < 20) or not ms:
                raise ValueError("a note is 0 (a rest) or 20..20000 Hz, for 1..5000 ms")
            parts.append(f"{hz}:{ms}")
        return frame_line(f"T {message.n} {message.volume} {','.join(parts)}")
    if kind is Stats:
        for name in ("dropped", "held", "cut"):
            _check_number(name, getattr(message, name), COUNTER_LIMIT)
        return frame_line(f"STATS {message.dropped} {message.held} {message.cut}")
    if kind is Unreadable:
        if not isinstance(message.bitmap, int) or message.bitmap < 0:
            raise ValueError("bitmap must be a whole number from 0 up")
        return frame_line(f"U {message.bitmap:X}")
    if kind is Levels:
        return frame_line("L " + levels_cells(message))
    if kind is Calibration:
        return frame_line("K " + levels_cells(message, CALIBRATION_STATES))
    if kind is Calibrate:
        _check_number("channel", message.channel, MAX_LEVEL_CHANNELS)
        for name in ("empty", "off", "on"):
            _check_number(name, getattr(message, name), LEVEL_LIMIT)
        if not 0 < message.off < message.on:
            raise ValueError("the off mark must be above 0 and below the on mark")
        return frame_line(f"K {message.channel} {message.empty} {message.off} {message.on}")
    if kind is Has:
        if not message.features:
            raise ValueError("HAS names at least one feature")
        for feature in message.features:
            _check_feature(feature, ValueError)
        return frame_line("HAS " + " ".join(message.features))
    if kind is AskHello:
        return frame_line("HELLO?")
    if kind is AskSensors:
        return frame_line("S?")
    if kind is AskLevels:
        return frame_line("L?")
    if kind is AskCalibration:
        return frame_line("K?")
    raise ValueError(f"not a protocol message: {message!r}")


def levels_cells(message: Any, known: str = LEVEL_STATES) -> str:
    """The ``cells`` word of a :class:`Levels` (or :class:`Calibration`) line; raises
    ValueError for bad fields.

    >>> levels_cells(Levels("PE", (400, 12), (300, 160), (350, 210)))
    'P19012C15EE00C0A00D2'
    """
    states = message.states
    count = len(states)
    if not 0 < count <= MAX_LEVEL_CHANNELS:
        raise ValueError(f"a levels line carries 1..{MAX_LEVEL_CHANNELS} channels, not {count}")
    for column in (message[1], message.off, message.on):
        if len(column) != count:
            raise ValueError("levels, off and on need one entry per state")
    parts = []
    for k in range(count):
        if states[k] not in known:
            raise ValueError(f"state {states[k]!r} is not one of {known}")
        level, off, on = message[1][k], message.off[k], message.on[k]
        _check_number("level", level, LEVEL_LIMIT)
        _check_number("off", off, LEVEL_LIMIT)
        _check_number("on", on, LEVEL_LIMIT)
        if off > on:
            raise ValueError("the off level is above the on level")
        parts.append(f"{states[k]}{level:03X}{off:03X}{on:03X}")
    return "".join(parts)


def levels_of(
    count: int,
    channels: list[int],
    unreadable: int,
    present: list[bool],
    readings: list[int],
    baseline: list[int],
    off: list[int],
    on: list[int],
) -> Any:
    """The firmware's :class:`Levels` of ``count`` channels: per sensor ``i`` its channel,
    whether present, its reading, baseline and marks (``off``, ``on``: over the
    baseline); ``unreadable`` a bitmap of channels."""
    states = bytearray(b"-" * count)
    levels = [0] * count
    offs = [0] * count
    ons = [0] * count
    top = LEVEL_LIMIT - 1
    for i, channel in enumerate(channels):
        states[channel] = 85 if unreadable >> channel & 1 else 80 if present[i] else 69  # U P E
        levels[channel] = min(max(readings[i], 0), top)
        offs[channel] = min(baseline[i] + off[i], top)
        ons[channel] = min(baseline[i] + on[i], top)
    return Levels(bytes(states).decode(), levels, offs, ons)


class LineSplitter:
    """Cuts a byte stream into lines, however the bytes arrive, in bounded memory.

    A line longer than :data:`MAX_LINE` is handed on cut short (so that :func:`decode`
    rejects it as too long and the caller counts it once); the rest of it, up to its
    ``\\n``, is skipped.

    >>> splitter = LineSplitter()
    >>> splitter.feed(b'S 1 0*1'), splitter.feed(b'F82\\nOK')
    ([], [b'S 1 0*1F82\\n'])
    """

    def __init__(self, limit: int = MAX_LINE) -> None:
        # One spare byte for a CR before the LF, one more to see that a line is too long.
        self._keep = limit + 2
        self._buffer = bytearray()
        self._skipping = False

    def feed(self, data: bytes) -> list[bytes]:
        """Add received bytes; return the complete lines (each ending in ``\\n``) they end."""
        lines = []
        buffer = self._buffer + data if self._buffer else bytearray(data)
        start = 0
        while True:
            end = buffer.find(b"\n", start)
            if end < 0:
                break
            if self._skipping:
                self._skipping = False
            else:
                lines.append(bytes(buffer[start : end + 1]))
            start = end + 1
        rest = buffer[start:]
        if self._skipping:
            rest = bytearray()
        elif len(rest) >= self._keep:
            lines.append(bytes(rest[: self._keep]))
            rest = bytearray()
            self._skipping = True
        self._buffer = rest
        return lines

    def clear(self) -> None:
        """Forget a partial line (after a reconnect its start is gone)."""
        self._buffer = bytearray()
        self._skipping = False

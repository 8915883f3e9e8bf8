"""Each reflective cell's calibration, kept on the Pico's flash across power cycles (issue
35, "Every cell calibrated").

``pyramid diag --check`` measures each cell's empty level and its level with the family's
darkest pearl, puts the cell's two marks between them and sends them (``K <channel>
<empty> <off> <on>``, firmware/protocol.py); :meth:`Calibration.set` applies them to the
scan's :class:`~debounce.Levels` at once and writes every calibrated cell to
:data:`FILE` in the Pico's littlefs, atomically: the whole table goes to a file beside
it (``calib.txt.tmp``), which is then renamed over the old file, so a power cut leaves
the old table or the new one. At boot :class:`Calibration` loads it; a missing file, or
one that is not whole and right to the last byte (a CRC guards it), loads nothing: the
cells then learn their empty level as before, with the config's marks.

A calibrated cell starts from its measured empty level (not from ``BASELINE_MAX``), and
its learnt empty level stays within half its off mark of it, either way: drift is
followed, and neither a pearl left on it at power-up nor a lamp switched on moves it far.

The file, text, one line per calibrated channel (decimal), and the CRC of what is before
it (as a protocol line's)::

    pyramid calibration 1
    14 186 174 224
    *1A2B

This file runs on the Pico (MicroPython) and on the host. main.py calls :func:`load`,
:func:`dump` and :func:`levels_line`; the code is here, compiled after main.py (whose
compile is the peak of the Pico's heap).
"""

import os

try:
    import protocol
except ImportError:  # on the host, as firmware.calib (its doctests)
    from firmware import protocol

try:  # noqa: SIM105 - MicroPython has no contextlib
    from typing import Any
except ImportError:  # MicroPython never evaluates annotations, so Any need not exist there
    pass

FILE = "calib.txt"
"""The table, in the flash's root (beside main.py)."""
TEMP = ".tmp"
"""Added to the table's name: where a new table is written before it replaces it."""
HEADER = "pyramid calibration 1"


def parse(text: str, channels: list[int]) -> Any:
    """``{channel: (empty, off, on)}`` from a table's text, or None when it is not whole
    and right (a CRC that does not match, a channel that is not a sensor, a mark out of
    order).

    >>> parse(table({14: (186, 174, 224)}), [13, 14])
    {14: (186, 174, 224)}
    >>> parse(table({14: (186, 174, 224)}).replace("186", "187"), [13, 14]) is None
    True
    """
    lines = text.split("\n")
    if len(lines) < 3 or lines[0] != HEADER or lines[-1] != "" or lines[-2][:1] != "*":
        return None
    body = "\n".join(lines[:-2]) + "\n"
    if f"{protocol.crc16(body.encode()):04X}" != lines[-2][1:]:
        return None
    cells = {}
    for line in lines[1:-2]:
        words = line.split(" ")
        if len(words) != 4:
            return None
        try:
            channel, empty, off, on = [protocol._dec(word, protocol.LEVEL_LIMIT) for word in words]
        except ValueError:
            return None
        if channel not in channels or not 0 < off < on:
            return None
        cells[channel] = (empty, off, on)
    return cells


def table(cells: dict) -> str:
    """The text of a table of ``{channel: (empty, off, on)}``."""
    body = HEADER + "\n"
    for channel in sorted(cells):
        empty, off, on = cells[channel]
        body += f"{channel} {empty} {off} {on}\n"
    return body + f"*{protocol.crc16(body.encode()):04X}\n"


def load(scanner: Any) -> None:
    """Give main.py's ``Reflective`` ``scanner`` its :class:`Calibration` (as
    ``scanner.calibration``), loaded from :data:`FILE`."""
    scanner.calibration = Calibration(scanner.levels, scanner.sensor_channels, scanner.channels)


def dump(firmware: Any, line: bytes) -> bool:
    """Answer one host line for main.py's ``Firmware`` if it is ``K?`` or ``K`` (to a
    reflective board): True when it was (and the answer is sent), else False (the
    firmware handles the line, and drops what it does not know)."""
    if line[:1] != b"K" or not firmware.has_levels():
        return False
    try:
        message = protocol.decode(line)
    except ValueError:
        return False
    table = firmware.matrix.calibration
    kind = type(message)
    if kind is protocol.Calibrate:
        firmware.send(table.set(message))
    elif kind is protocol.AskCalibration:
        firmware.send(table.line())
    else:
        return False
    return True


def levels_line(scanner: Any, unreadable: int) -> Any:
    """main.py's ``Reflective`` ``scanner``'s :class:`~protocol.Levels` (``unreadable``: a
    bitmap of the channels it cannot read)."""
    lv = scanner.levels
    return protocol.levels_of(scanner.channels, scanner.sensor_channels, unreadable,
                              lv.present, scanner.readings, lv.baseline, lv.off,
                              lv.on)  # fmt: skip


class Calibration:
    """The calibrated cells of a scan's ``levels`` (a :class:`~debounce.Levels`), whose
    sensor ``i`` is channel ``channels[i]``; loaded from ``path`` at once."""

    def __init__(self, levels: Any, channels: list[int], count: int, path: str = FILE) -> None:
        self.levels = levels
        self.channels = channels
        self.count = count  # the board's channels (a K line names each)
        self.path = path
        self.cells = {}
        self.stored = True
        """False after the flash would not keep the last change."""
        try:
            with open(path) as handle:
                text = handle.read()
        except (OSError, UnicodeError):  # no table yet (or not text): learn
            text = ""
        cells = parse(text, channels) if text else None
        for channel, (empty, off, on) in (cells or {}).items():
            self._apply(channel, empty, off, on)

    def _apply(self, channel: int, empty: int, off: int, on: int) -> None:
        i = self.channels.index(channel)
        levels = self.levels
        levels.baseline[i] = empty
        levels.low[i] = max(0, empty - off // 2)
        levels.high[i] = empty + off // 2
        levels.off[i] = off
        levels.on[i] = on
        self.cells[channel] = (empty, off, on)

    def set(self, message: Any) -> Any:
        """Apply a :class:`~protocol.Calibrate` and keep the table on the flash; the
        :class:`~protocol.Calibration` line that answers it (a channel that is not a
        sensor changes nothing: the line shows it as ``-``)."""
        if message.channel in self.channels:
            self._apply(message.channel, message.empty, message.off, message.on)
            self.stored = self._store()
        return self.line()

    def _store(self) -> bool:
        try:
            with open(self.path + TEMP, "w") as handle:
                handle.write(table(self.cells))
            os.rename(self.path + TEMP, self.path)
        except OSError:  # a full or failing flash: the cells keep the figures until reset
            return False
        return True

    def line(self) -> Any:
        """Every channel's :class:`~protocol.Calibration` (learning cells: the empty level
        learnt so far and the config's marks)."""
        count = self.count
        states = bytearray(b"-" * count)
        empty, offs, ons = [0] * count, [0] * count, [0] * count
        levels = self.levels
        for i, channel in enumerate(self.channels):
            if channel in self.cells:
                states[channel] = 67 if self.stored else 78  # C N
            else:
                states[channel] = 76  # L
            empty[channel] = min(max(levels.baseline[i], 0), protocol.LEVEL_LIMIT - 1)
            offs[channel] = levels.off[i]
            ons[channel] = levels.on[i]
        return protocol.Calibration(bytes(states).decode(), empty, offs, ons)

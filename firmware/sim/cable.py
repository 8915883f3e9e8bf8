"""A USB cable between a (simulated) Pico's serial port and the host, that a test can
pull out, plug back in, and make noisy.

The host side is a fresh pty each time the cable is plugged in, reached through a stable
symlink (:attr:`Cable.port`), as udev's ``/dev/serial/by-id/...`` link follows a Pico
that comes back as another ``ttyACM``. Unplugged, the host's open port fails with EIO and
the link path is gone; the Pico's output falls on the floor, as USB drops it.

Noise works on whole lines, in both directions: a share of them (``Noise.rate``) is
damaged in one of the ways a bad line is damaged (a flipped bit, a wrong byte, a wrong
CRC, cut short so that it runs into the next, replaced by garbage, lost). Extra garbage
and overlong lines can be thrown in, duplicates sent, and every line delivered in random
pieces so that no read sees a whole line. Toward the Pico no byte 0x03 is ever made up:
on a real Pico it would be Ctrl-C, and USB's own CRC keeps noise from inventing one.

>>> with SimPico() as pico, Cable(pico.port, Path("/tmp/pico")) as cable:  # doctest: +SKIP
...     cable.noise = Noise(rate=0.15, split=True)
...     board = SerialBoard(cable.port, channels=36, leds=37)
...     cable.unplug(); cable.plug()
"""

from __future__ import annotations

import errno
import fcntl
import itertools
import logging
import os
import random
import select
import threading
import time
import tty
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

log = logging.getLogger(__name__)

DAMAGE = ("flip", "byte", "crc", "cut", "garbage", "drop")
"""The ways :class:`Noise` damages a line (chosen evenly)."""


@dataclass(frozen=True)
class Noise:
    """What the cable does to the lines passing through it."""

    rate: float = 0.0
    """Share of lines damaged (each of :data:`DAMAGE` equally often). Which lines is random,
    but never fewer than ``rate * lines - 1`` of them: a test can count on its share."""
    garbage: float = 0.0
    """Chance of an extra line of random bytes before a line."""
    long_lines: float = 0.0
    """Share of lines preceded by an extra line of 513 to 2000 printable bytes (over the
    512 limit); like ``rate``, never fewer than ``long_lines * lines - 1`` of them."""
    duplicates: float = 0.0
    """Chance that a good line arrives twice."""
    split: bool = False
    """Deliver every line in 1 to 4 random pieces, a little apart."""
    toward: Literal["both", "host", "device"] = "both"
    """Which direction the damage, garbage and duplicates go (splitting goes both ways)."""

    def __post_init__(self) -> None:
        for name in ("rate", "garbage", "long_lines", "duplicates"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"Noise.{name} must be 0..1, not {value!r}")
        if self.toward not in ("both", "host", "device"):
            raise ValueError(f"Noise.toward must be both, host or device, not {self.toward!r}")


QUIET = Noise()


class Cable:
    """The cable; see the module docstring. Counters are in :attr:`stats`."""

    def __init__(
        self, device_port: str, link: Path, *, noise: Noise = QUIET, seed: int = 0
    ) -> None:
        self.device_port = device_port
        self.link = Path(link)
        self.noise = noise
        self.stats: Counter[str] = Counter()
        self._random = random.Random(seed)
        self._debt = {"to_host": 0.0, "to_device": 0.0}  # damage owed, per direction
        self._long_debt = {"to_host": 0.0, "to_device": 0.0}  # long lines owed, likewise
        self._lock = threading.Lock()
        self._device = os.open(device_port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self._device)
        self._host_master: int | None = None
        self._host_slave: int | None = None
        self._from_device = b""
        self._from_host = b""
        self._wake_read, self._wake_write = os.pipe()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> str:
        """The path the host opens (a symlink to the current pty)."""
        return str(self.link)

    @property
    def plugged(self) -> bool:
        return self._host_master is not None

    def start(self) -> None:
        self.plug()
        self._thread = threading.Thread(target=self._run, name="cable", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stopping.set()
        os.write(self._wake_write, b"x")
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.unplug()
        for fd in (self._device, self._wake_read, self._wake_write):
            os.close(fd)

    def __enter__(self) -> Cable:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def plug(self) -> None:
        """Plug in: a new pty for the host, the link pointing at it."""
        with self._lock:
            if self._host_master is not None:
                return
            master, slave = os.openpty()
            tty.setraw(slave)
            flags = fcntl.fcntl(master, fcntl.F_GETFL)
            fcntl.fcntl(master, fcntl.F_SETFL, flags | os.O_NONBLOCK)
            temporary = self.link.with_name(self.link.name + ".new")
            temporary.unlink(missing_ok=True)
            temporary.symlink_to(os.ttyname(slave))
            os.replace(temporary, self.link)
            self._host_master, self._host_slave = master, slave
            self._from_host = b""
            self.stats["plugs"] += 1
        os.write(self._wake_write, b"x")

    def unplug(self) -> None:
        """Pull the cable: the host's port fails, the link path disappears."""
        with self._lock:
            if self._host_master is None:
                return
            self.link.unlink(missing_ok=True)
            for fd in (self._host_master, self._host_slave):
                if fd is not None:
                    os.close(fd)
            self._host_master = self._host_slave = None
            self.stats["unplugs"] += 1
        os.write(self._wake_write, b"x")

    # -- the wire ------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stopping.is_set():
            with self._lock:
                host = self._host_master
            watched = [self._device, self._wake_read] + ([host] if host is not None else [])
            try:
                readable, _, _ = select.select(watched, [], [], 0.5)
            except OSError as error:
                if error.errno != errno.EBADF:
                    raise
                continue  # unplugged between reading the host's pty and watching it: look again
            if self._wake_read in readable:
                os.read(self._wake_read, 1024)
            if self._device in readable:
                data = self._read(self._device)
                with self._lock:
                    if self._host_master is None:
                        self.stats["bytes_lost_unplugged"] += len(data)
                        continue
                self._from_device = self._pass(self._from_device + data, to_device=False)
            if host is not None and host in readable:
                self._from_host = self._pass(self._from_host + self._read(host), to_device=True)

    @staticmethod
    def _read(fd: int) -> bytes:
        try:
            return os.read(fd, 65536)
        except OSError as error:
            if error.errno in (errno.EAGAIN, errno.EIO, errno.EBADF):
                return b""
            raise

    def _pass(self, data: bytes, *, to_device: bool) -> bytes:
        """Send the complete lines in ``data`` on; return the unfinished rest."""
        *lines, rest = data.split(b"\n")
        direction = "to_device" if to_device else "to_host"
        for line in lines:
            self.stats[f"lines_{direction}"] += 1
            for piece in self._spoil(line + b"\n", to_device=to_device, direction=direction):
                self._deliver(piece, to_device=to_device)
        return rest

    def _spoil(self, line: bytes, *, to_device: bool, direction: str) -> list[bytes]:
        noise = self.noise
        if noise.toward in ("both", "device" if to_device else "host"):
            out = self._noisy(line, to_device=to_device, direction=direction)
        else:
            out = [line]  # this direction is left clean
        if not noise.split:
            return [b"".join(out)]
        pieces: list[bytes] = []
        for chunk in out:
            cuts = sorted(self._random.sample(range(1, len(chunk)), min(len(chunk) - 1, 3)))
            cuts = cuts[: self._random.randint(0, len(cuts))]
            edges = [0, *cuts, len(chunk)]
            pieces.extend(chunk[a:b] for a, b in itertools.pairwise(edges))
        return pieces

    def _noisy(self, line: bytes, *, to_device: bool, direction: str) -> list[bytes]:
        """The line as it arrives: damaged or not, with garbage, long lines or a twin."""
        noise = self.noise
        chance = self._random.random
        out: list[bytes] = []
        if chance() < noise.garbage:
            out.append(self._garbage(to_device, self._random.randint(1, 80)) + b"\n")
            self.stats[f"garbage_{direction}"] += 1
        self._long_debt[direction] += noise.long_lines
        long_owed = self._long_debt[direction]
        if long_owed >= 1.0 or (long_owed > 0.0 and chance() < noise.long_lines):
            self._long_debt[direction] -= 1.0
            length = self._random.randint(513, 2000)
            out.append(bytes(self._random.randint(0x20, 0x7E) for _ in range(length)) + b"\n")
            self.stats[f"long_{direction}"] += 1
        self._debt[direction] += noise.rate
        owed = self._debt[direction]
        if owed >= 1.0 or (owed > 0.0 and chance() < noise.rate):
            self._debt[direction] -= 1.0
            damaged = self._damage(line, to_device)
            self.stats[f"damaged_{direction}"] += 1
            if damaged:
                out.append(damaged)
        else:
            out.append(line)
            if chance() < noise.duplicates:
                out.append(line)
                self.stats[f"duplicates_{direction}"] += 1
        return out

    def _damage(self, line: bytes, to_device: bool) -> bytes:
        kind = self._random.choice(DAMAGE)
        body = bytearray(line[:-1])
        self.stats[f"damage_{kind}"] += 1
        if kind == "drop" or not body:
            return b""
        index = self._random.randrange(len(body))
        if kind == "flip":
            for _ in range(8):
                flipped = body[index] ^ (1 << self._random.randrange(8))
                if flipped not in (0x0A, 0x03):
                    body[index] = flipped
                    break
        elif kind == "byte":
            body[index] = self._garbage(to_device, 1)[0]
        elif kind == "crc":
            star = body.rfind(b"*")
            if star >= 0 and len(body) - star == 5:
                wrong = (int(body[star + 1 :], 16) + self._random.randint(1, 0xFFFE)) & 0xFFFF
                body[star + 1 :] = f"{wrong:04X}".encode()
            else:
                body[index] ^= 0x01
        elif kind == "cut":
            return bytes(body[:index])  # no newline: it runs into the next line
        elif kind == "garbage":
            return self._garbage(to_device, self._random.randint(1, 80)) + b"\n"
        return bytes(body) + b"\n"

    def _garbage(self, to_device: bool, length: int) -> bytes:
        forbidden = {0x0A, 0x03} if to_device else {0x0A}
        out = bytearray()
        while len(out) < length:
            byte = self._random.randrange(256)
            if byte not in forbidden:
                out.append(byte)
        return bytes(out)

    def _deliver(self, piece: bytes, *, to_device: bool) -> None:
        if not piece:
            return
        if self.noise.split:
            time.sleep(self._random.uniform(0.0, 0.002))
        if to_device:
            fd: int | None = self._device
        else:
            with self._lock:
                fd = self._host_master
        if fd is None:
            return
        try:
            os.write(fd, piece)
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.EIO, errno.EBADF):
                raise
            self.stats["bytes_lost_full"] += len(piece)

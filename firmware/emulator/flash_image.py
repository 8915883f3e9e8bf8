"""The 2 MiB flash of an emulated Pico: MicroPython from its UF2, the firmware in littlefs.

A Pico's flash holds MicroPython's code from offset 0 and, from :data:`FS_OFFSET` to the
end, the littlefs (v2) filesystem that ``mpremote fs cp`` writes and that MicroPython
mounts at boot (MicroPython v1.28.0, board ``RPI_PICO``: 352 blocks of 4,096 bytes,
program size 256, as ../shared/rp2040/README.md measured). This module makes that image
on the host: the UF2's blocks (each 512 bytes with a 256-byte payload and its flash
address) copied to their places, and a littlefs image made with PyPI's
``littlefs-python`` copied to its offset. ``files=None`` leaves the filesystem erased,
as on a Pico that has MicroPython and nothing else (MicroPython formats it at boot).

>>> image = build_image(uf2, {"main.py": b"print('hi')"})  # doctest: +SKIP
>>> len(image) == FLASH_SIZE                                # doctest: +SKIP
True
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from pathlib import Path

FLASH_SIZE = 2 * 1024 * 1024
"""The W25Q16JV on a Pico: 2 MiB."""
FLASH_BASE = 0x10000000
"""Where the flash appears in the RP2040's address space (XIP)."""
FS_OFFSET = 0xA0000
"""MicroPython's littlefs starts here (the last 1,408 KiB)."""
FS_BLOCK_SIZE = 4096
FS_BLOCK_COUNT = (FLASH_SIZE - FS_OFFSET) // FS_BLOCK_SIZE
FS_PROG_SIZE = 256

UF2_MAGIC = (0x0A324655, 0x9E5D5157, 0x0AB16F30)
UF2_BLOCK = 512
UF2_FLAG_NOT_MAIN_FLASH = 0x00000001
RP2040_FAMILY = 0xE48BFF56


class ImageError(ValueError):
    """A UF2 that is not MicroPython for an RP2040's flash, or files that do not fit."""


def uf2_payload(uf2: bytes) -> dict[int, bytes]:
    """The UF2's payloads by flash offset; raises :class:`ImageError` for anything else."""
    if not uf2 or len(uf2) % UF2_BLOCK:
        raise ImageError(f"a UF2 is a whole number of 512-byte blocks, not {len(uf2)} bytes")
    blocks: dict[int, bytes] = {}
    for start in range(0, len(uf2), UF2_BLOCK):
        block = uf2[start : start + UF2_BLOCK]
        magic0, magic1, flags, address, size, _number, _total, family = struct.unpack_from(
            "<8I", block
        )
        (magic_end,) = struct.unpack_from("<I", block, UF2_BLOCK - 4)
        if (magic0, magic1, magic_end) != UF2_MAGIC:
            raise ImageError(f"block {start // UF2_BLOCK} of the UF2 has no UF2 magic")
        if flags & UF2_FLAG_NOT_MAIN_FLASH:
            continue
        if family != RP2040_FAMILY:
            raise ImageError(f"the UF2 is for family {family:#010x}, not the RP2040's")
        offset = address - FLASH_BASE
        if size > 476 or not 0 <= offset <= FS_OFFSET - size:
            raise ImageError(f"UF2 block at {address:#x} ({size} bytes) lies outside the code")
        blocks[offset] = block[32 : 32 + size]
    return blocks


def littlefs_image(files: Mapping[str, bytes]) -> bytes:
    """A littlefs image of ``files`` (names in the root) as MicroPython mounts it."""
    from littlefs import LittleFS  # only the emulated tests need littlefs-python

    fs = LittleFS(block_size=FS_BLOCK_SIZE, block_count=FS_BLOCK_COUNT, prog_size=FS_PROG_SIZE)
    for name, data in files.items():
        if "/" in name or not name:
            raise ImageError(f"only files in the root are modelled, not {name!r}")
        with fs.open(name, "wb") as handle:
            handle.write(data)
    image = bytes(fs.context.buffer)
    if len(image) != FLASH_SIZE - FS_OFFSET:
        raise ImageError(f"littlefs made {len(image)} bytes, not {FLASH_SIZE - FS_OFFSET}")
    return image


def build_image(uf2: bytes, files: Mapping[str, bytes] | None) -> bytearray:
    """The whole flash: erased (0xFF), the UF2's code, and the files (``None``: none)."""
    image = bytearray(b"\xff" * FLASH_SIZE)
    for offset, payload in uf2_payload(uf2).items():
        image[offset : offset + len(payload)] = payload
    if files is not None:
        image[FS_OFFSET:] = littlefs_image(files)
    return image


def read_files(image: bytes | bytearray) -> dict[str, bytes]:
    """The files in the root of an image's littlefs (after an emulated ``mpremote fs cp``)."""
    from littlefs import LittleFS

    fs = LittleFS(
        block_size=FS_BLOCK_SIZE, block_count=FS_BLOCK_COUNT, prog_size=FS_PROG_SIZE, mount=False
    )
    fs.context.buffer[:] = image[FS_OFFSET:]
    fs.mount()
    out = {}
    for name in fs.listdir("/"):
        with fs.open(name, "rb") as handle:
            out[name] = handle.read()
    return out


def write_image(path: Path, image: bytes) -> None:
    path.write_bytes(bytes(image))

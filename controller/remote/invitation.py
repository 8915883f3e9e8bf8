"""Invitation codes: twelve characters to read out on the phone, the last a check.

A code is three groups of four characters from 32 that cannot be mistaken for one another
read aloud or on a screen: the letters without I and O, and the digits 2 to 9 (no 0 or
1). Eleven characters are chosen by :mod:`secrets` (55 bits); the twelfth is a check
over them in GF(32), so every single mistyped character and every swap of two
characters is told at once, before the slow key derivation runs.

>>> code = new_code()
>>> len(code), code.count("-")
(14, 2)
>>> parse_code(code.lower().replace("-", " ")) == code
True
>>> parse_code("ABCD-EFGH-JKLM")
Traceback (most recent call last):
...
controller.remote.invitation.InvitationError: a character is mistyped, or two are swapped
>>> parse_code("ABCD-EFGH-JKL0")
Traceback (most recent call last):
...
controller.remote.invitation.InvitationError: codes have no 0 (zero) or O: read it again
"""

from __future__ import annotations

import secrets
from typing import Final

__all__ = ["ALPHABET", "CODE_BITS", "CODE_LENGTH", "InvitationError", "new_code", "parse_code"]

ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""32 symbols, 5 bits each: no I, O, 0 or 1."""
CODE_LENGTH: Final = 12
"""Characters in a code, the check included (three groups of four)."""
CODE_BITS: Final = 5 * (CODE_LENGTH - 1)
"""The secret in a code: 55 bits."""
_GROUP: Final = 4
_VALUE: Final = {c: i for i, c in enumerate(ALPHABET)}
_CONFUSED: Final = {
    "0": "0 (zero) or O",
    "O": "0 (zero) or O",
    "1": "1 (one) or I",
    "I": "1 (one) or I",
}


class InvitationError(ValueError):
    """Text that is not an invitation code; the message says what to do."""


def _times(a: int, b: int) -> int:
    """Multiplication in GF(32) = GF(2)[x] / (x⁵ + x² + 1)."""
    product = 0
    while b:
        if b & 1:
            product ^= a
        b >>= 1
        a <<= 1
        if a & 0b100000:
            a ^= 0b100101
    return product


def _check(values: list[int]) -> int:
    """Σ αⁱ⁺¹·vᵢ over GF(32), α = x: a code is valid when that sum plus its check (weight
    α⁰ = 1) is zero. The twelve weights differ (α has order 31), so one changed
    character (wᵢ·d ≠ 0) or two different ones swapped ((wᵢ - wⱼ)·d ≠ 0) break it."""
    total, power = 0, 2
    for value in values:
        total ^= _times(power, value)
        power = _times(power, 2)
    return total


def _grouped(text: str) -> str:
    return "-".join(text[i : i + _GROUP] for i in range(0, len(text), _GROUP))


def new_code() -> str:
    """A fresh code such as ``7KQM-X4PA-9HZD``, 55 random bits from :mod:`secrets`."""
    values = [secrets.randbelow(len(ALPHABET)) for _ in range(CODE_LENGTH - 1)]
    values.append(_check(values))
    return _grouped("".join(ALPHABET[v] for v in values))


def parse_code(text: str) -> str:
    """The code in ``text`` in its one spelling (upper case, grouped by dashes).

    Case, spaces and dashes do not matter. Raises :class:`InvitationError` for anything
    else, saying what is wrong.
    """
    letters = "".join(text.split()).replace("-", "").upper()
    for char in letters:
        if char in _CONFUSED:
            raise InvitationError(f"codes have no {_CONFUSED[char]}: read it again")
        if char not in _VALUE:
            raise InvitationError(f"codes have only letters and the digits 2-9, not {char!r}")
    if len(letters) != CODE_LENGTH:
        raise InvitationError(
            f"a code has {CODE_LENGTH} characters in three groups of four, not {len(letters)}"
        )
    values = [_VALUE[c] for c in letters]
    if values[-1] != _check(values[:-1]):
        raise InvitationError("a character is mistyped, or two are swapped")
    return _grouped(letters)

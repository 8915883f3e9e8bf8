"""MicroPython's ``time.ticks_*`` and ``sleep_ms``/``sleep_us`` for CPython.

The firmware imports these only where ``time`` lacks them, i.e. when the MicroPython unix
port cannot run and the tests run the firmware under CPython. They keep MicroPython's
arithmetic: ticks wrap at 2**30 and ``ticks_diff`` is signed.

>>> ticks_diff(ticks_add(TICKS_PERIOD - 1, 5), TICKS_PERIOD - 1)
5
"""

import time

TICKS_PERIOD = 1 << 30
_HALF = TICKS_PERIOD // 2


def ticks_ms() -> int:
    return (time.monotonic_ns() // 1000000) % TICKS_PERIOD


def ticks_us() -> int:
    return (time.monotonic_ns() // 1000) % TICKS_PERIOD


def ticks_add(ticks: int, delta: int) -> int:
    return (ticks + delta) % TICKS_PERIOD


def ticks_diff(end: int, start: int) -> int:
    return ((end - start + _HALF) % TICKS_PERIOD) - _HALF


def sleep_ms(ms: int) -> None:
    time.sleep(ms / 1000)


def sleep_us(us: int) -> None:
    time.sleep(us / 1000000)

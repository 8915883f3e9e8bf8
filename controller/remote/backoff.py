"""How long the shell waits before the next try to reach the broker: a pure value.

Equal jitter over a doubling cap: the n-th wait after a failure is between half and all of
``min(most_s, first_s · 2ⁿ)``, drawn from a number in [0, 1) the shell passes (so two
boards that lost the same broker do not knock at the same moment, and a test can draw
what it likes). A connection that the broker took starts it again from ``first_s``.
With the defaults (0.1 s doubling to 1 s) a board reaches a broker that is back within
a second of its return, however long it was away; a try costs one TCP handshake.

>>> b = Backoff()
>>> waits = []
>>> for _ in range(6):
...     waits.append(b.wait(1.0)); b = b.failed()
>>> waits
[0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
>>> b.wait(0.0), b.settled, b.failed() == b.failed().failed(), Backoff().settled
(0.5, True, True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

__all__ = ["FIRST_S", "MOST_S", "Backoff"]

FIRST_S: Final = 0.1
"""The first wait after a connection is lost or refused."""
MOST_S: Final = 1.0
"""The longest wait: a broker that is back is reached within this (and a handshake)."""


@dataclass(frozen=True, slots=True)
class Backoff:
    first_s: float = FIRST_S
    most_s: float = MOST_S
    failures: int = 0
    """Tries that failed since the last connection."""

    @property
    def cap(self) -> float:
        growth: float = 2.0 ** min(self.failures, 60)
        return min(self.most_s, self.first_s * growth)

    def wait(self, draw: float) -> float:
        """The wait before the next try, for ``draw`` in [0, 1]."""
        if not 0.0 <= draw <= 1.0:
            raise ValueError(f"draw must be in [0, 1], not {draw}")
        return self.cap / 2 + draw * self.cap / 2

    def failed(self) -> Backoff:
        """One more try failed (once the waits are :attr:`settled`, nothing changes)."""
        return self if self.settled else replace(self, failures=self.failures + 1)

    def connected(self) -> Backoff:
        return replace(self, failures=0)

    @property
    def settled(self) -> bool:
        """The waits have reached ``most_s``: from here on a failed try leaves the backoff
        as it is, so an outage of 3 s and one of 17 s leave the same state."""
        return self.cap >= self.most_s

"""Percentiles as every benchmark in bench/ reports them (one method, so figures compare).

>>> percentile([1.0, 2.0, 3.0, 4.0], 50)
2.5
>>> latency_ms([0.001] * 99 + [0.010])
(1.0, 1.09, 10.0)
"""

from __future__ import annotations

import statistics


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (0–100), interpolated between samples ("inclusive")."""
    if not values:
        raise ValueError("no samples")
    if len(values) == 1 or p <= 0:
        return min(values)
    if p >= 100:
        return max(values)
    cuts = statistics.quantiles(values, n=1000, method="inclusive")
    return cuts[round(p * 10) - 1]


def latency_ms(values: list[float]) -> tuple[float, float, float]:
    """p50, p99 and the maximum of durations in seconds, in milliseconds."""
    return (
        round(percentile(values, 50) * 1000, 6),
        round(percentile(values, 99) * 1000, 6),
        round(max(values) * 1000, 6),
    )

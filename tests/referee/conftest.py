"""The referee's tests are pure: :class:`rigs.referee.Play`, virtual time."""

from __future__ import annotations

import pytest

from rigs.referee import Play


@pytest.fixture
def p() -> Play:
    """A Perlen-Pyramide game of Anna, Ben and Cleo, just started."""
    return Play().new()

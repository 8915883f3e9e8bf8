"""The referee's tests are pure: :class:`tests.support.referee.Play`, virtual time."""

from __future__ import annotations

import pytest

from tests.support.referee import Play


@pytest.fixture
def p() -> Play:
    """A Perlen-Pyramide game of Anna, Ben and Cleo, just started."""
    return Play().new()

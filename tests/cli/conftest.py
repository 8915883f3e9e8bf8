"""The commands' tests open boards as the hardware tests do: the same fixtures
(tests/hardware/conftest.py), a fresh gpiozero MockFactory or the lgpio model's Pi."""

from tests.hardware.conftest import lgpio_pi, mock_factory

__all__ = ["lgpio_pi", "mock_factory"]

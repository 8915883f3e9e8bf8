"""A stand-in for MicroPython's ``machine`` on a Raspberry Pi Pico (RP2040), for the
simulator: the firmware imports it unchanged in the MicroPython unix port or CPython.

Only what the firmware uses is here, with the rp2 port's signatures and limits (GPIO
0–29, watchdog timeout at most 8388 ms). Pin levels come from :mod:`chip`, which models
the switch matrix; the watchdog and timers report to the test harness, which plays the
hardware watchdog and resets the "chip" (restarts the process) when it is not fed.
"""

import sys

import chip

WATCHDOG_MAX_MS = 8388


class Pin:
    """A GPIO. ``Pin(id, mode=-1, pull=None, *, value=None)`` as on the rp2 port."""

    IN = chip.IN
    OUT = chip.OUT
    OPEN_DRAIN = chip.OPEN_DRAIN
    PULL_UP = chip.PULL_UP
    PULL_DOWN = chip.PULL_DOWN

    def __init__(self, id, mode=-1, pull=None, *, value=None) -> None:
        if not isinstance(id, int) or not 0 <= id < chip.GPIO_COUNT:
            raise ValueError(f"unknown pin {id!r}")
        self.id = id
        self._chip = chip.get()
        self.init(mode, pull, value=value)

    def init(self, mode=-1, pull=None, *, value=None) -> None:
        if mode not in (-1, chip.IN, chip.OUT, chip.OPEN_DRAIN):
            raise ValueError(f"invalid pin mode {mode!r}")
        if pull not in (None, chip.PULL_UP, chip.PULL_DOWN):
            raise ValueError(f"invalid pin pull {pull!r}")
        self._chip.configure(self.id, mode, pull, value)

    def value(self, value=None):
        if value is None:
            return self._chip.level(self.id)
        self._chip.drive(self.id, 1 if value else 0)
        return None

    __call__ = value

    def on(self) -> None:
        self._chip.drive(self.id, 1)

    def off(self) -> None:
        self._chip.drive(self.id, 0)

    high = on
    low = off

    def __repr__(self) -> str:
        return f"Pin(GPIO{self.id})"


class ADC:
    """An ADC input, ``ADC(pin)`` as on the rp2 port (GP26–GP29). The simulator models no
    light: every reading is 0, an empty board in the dark (the reflective build's sensing
    is modelled on the emulated chip, tests/firmware/test_emulated_reflective.py)."""

    def __init__(self, pin) -> None:
        gpio = pin.id if isinstance(pin, Pin) else pin
        if gpio not in (26, 27, 28, 29):
            raise ValueError(f"GPIO{gpio} has no ADC")
        self.id = gpio

    def read_u16(self) -> int:
        return 0


class PWM:
    """A PWM output, ``PWM(pin, *, freq, duty_u16)`` as on the rp2 port; each change of
    frequency or duty is reported to the harness (the buzzer's tone)."""

    def __init__(self, dest, *, freq=0, duty_u16=0) -> None:
        if not hasattr(dest, "id"):
            raise TypeError("PWM needs a machine.Pin")
        self.pin = dest
        self._chip = chip.get()
        self._freq = 0
        self._duty = 0
        if freq:
            self.freq(freq)
        self.duty_u16(duty_u16)

    def freq(self, value=None):
        if value is None:
            return self._freq
        if not 8 <= value <= 62500000:  # what an RP2040's PWM divider reaches at 125 MHz
            raise ValueError("freq out of range")
        self._freq = value
        self._chip.pwm_changed(self.pin.id, self._freq, self._duty)
        return None

    def duty_u16(self, value=None):
        if value is None:
            return self._duty
        if not 0 <= value <= 65535:
            raise ValueError("duty_u16 must be 0..65535")
        self._duty = value
        self._chip.pwm_changed(self.pin.id, self._freq, self._duty)
        return None

    def deinit(self) -> None:
        self.duty_u16(0)


class WDT:
    """The hardware watchdog: once started it cannot be stopped, only fed."""

    def __init__(self, id=0, timeout=5000) -> None:
        if id != 0:
            raise ValueError(f"WDT({id}) doesn't exist")
        if not 1 <= timeout <= WATCHDOG_MAX_MS:
            raise ValueError(f"timeout exceeds {WATCHDOG_MAX_MS}")
        self._chip = chip.get()
        self._chip.watchdog_started(timeout)

    def feed(self) -> None:
        self._chip.watchdog_fed()


class Timer:
    """A soft timer; in the simulator its callback fires while the chip idles at the REPL."""

    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id=-1, *, mode=PERIODIC, period=-1, callback=None) -> None:
        if period < 1 or callback is None:
            raise ValueError("a simulated timer needs a period and a callback")
        self.mode = mode
        self.period = period
        self.callback = callback
        self._chip = chip.get()
        self._due = chip.ticks_add(chip.ticks_ms(), period)
        self._active = True
        self._chip.timer_started(self)

    def fire_if_due(self, now: int) -> None:
        if self._active and chip.ticks_diff(now, self._due) >= 0:
            self._due = chip.ticks_add(now, self.period)
            if self.mode == Timer.ONE_SHOT:
                self._active = False
            self.callback(self)

    def deinit(self) -> None:
        self._active = False


def reset() -> None:
    """Reset the chip: the harness starts the firmware again from the top."""
    chip.get().report("reset")
    sys.exit(0)

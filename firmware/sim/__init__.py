"""A simulated Pico for the firmware, and the tools a test uses to drive it.

Device side (runs inside the firmware's interpreter, MicroPython unix port or CPython):
:mod:`chip` (GPIO and the switch matrix), :mod:`machine` and :mod:`neopixel` (fakes with
the rp2 port's interface), :mod:`ticks` (MicroPython's ``time.ticks_*`` for CPython) and
:mod:`pico_boot` (what the Pico does after reset). Host side (CPython):
:mod:`firmware.sim.harness` starts the real firmware on that simulated chip behind a pty,
and :mod:`firmware.sim.cable` is a USB cable that can be pulled out and made noisy.
"""

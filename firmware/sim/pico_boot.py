"""What a Pico does when it comes out of reset, for the simulator: run main.py from its
flash, then sit at the REPL (where soft timers keep firing).

    micropython firmware/sim/pico_boot.py FLASH_DIR
    python firmware/sim/pico_boot.py FLASH_DIR      (where MicroPython cannot run)

FLASH_DIR holds the files `pyramid flash` would copy to the Pico (main.py, protocol.py,
debounce.py, config.py). The fake ``machine`` and ``neopixel`` come from this directory.
The firmware's USB serial is this process's stdin and stdout.
"""

import os
import sys

import chip

flash = sys.argv[1]
os.chdir(flash)
sys.path.insert(0, flash)
the_chip = chip.get()
try:
    with open("main.py") as source:
        code = compile(source.read(), "main.py", "exec")
    exec(code, {"__name__": "__main__"})
except KeyboardInterrupt:
    print("KeyboardInterrupt")
except Exception as error:  # as the Pico does: print it and drop to the REPL
    if hasattr(sys, "print_exception"):
        sys.print_exception(error)
    else:
        import traceback

        traceback.print_exception(error)
while True:  # the REPL, where Ctrl-C does nothing harmful
    try:  # noqa: SIM105 - MicroPython has no contextlib
        the_chip.idle(1000)
    except KeyboardInterrupt:
        pass

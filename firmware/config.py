"""How this Pico sensor/LED board is wired. Edit it to match your build; `pyramid flash`
copies it onto the Pico with the rest of the firmware.

The switches (reed switches under the cells, targets and buttons) sit in a diode matrix
wired exactly as for the Pi build, so one board works behind either: the firmware pulls
one ROW pin low at a time (open-drain: the others are released, never driven high) and
reads every COLUMN pin, which the Pico pulls up. Each switch has a diode, anode on the
column side, cathode on the row side, so that three closed switches never make a fourth
look closed. The switch between row ``r`` and column ``c`` is channel
``r * len(COLUMN_PINS) + c``; hardware/README.md lists which channel is which cell.

The default 6 x 6 matrix has 36 channels, named as on the Pi (``ChannelMap.matrix()``,
configs/matrix.toml): rows 0–4 are the ranks 1–5 and columns 0–4 the files a–e (a1 is
channel 0, a2 channel 6), column 5 the Pyramidos targets t1–t4 and the top, row 5 the
three buttons (30–32; 33–35 spare). The WS2812 chain has one LED per cell, target and
button and one per seat (37), in the Pi's chain order. The firmware checks these values
at boot and prints what is wrong.
"""

VERSION = "1.2.0"
"""The firmware version sent in HELLO (letters, digits and ``.+-_``, at most 32): the
project's version in pyproject.toml (a test checks that they agree)."""

SENSING = "reflective"
"""How the cells are sensed: ``"reflective"`` (an IR reflective sensor under every cell and
target, read through two CD74HC4067 into the ADC: the printed pico board, the build
hardware/README.md, "Sensing the cells", chose) or ``"matrix"`` (switches in the diode
matrix below: the reed board; ``pyramid flash --sensing matrix``)."""

ROW_PINS = (2, 3, 4, 5, 6, 7)
"""GPIO numbers of the matrix rows, row 0 first (pulled low one at a time, open-drain)."""

COLUMN_PINS = (8, 9, 10, 11, 12, 13)
"""GPIO numbers of the matrix columns, column 0 first (inputs with the pull-up on)."""

# -- the reflective build (SENSING = "reflective") ----------------------------------------
# Channels keep the matrix's numbers (row r, column c is r * 6 + c), so the host's config
# (configs/serial.toml) is the same for both. tests/firmware/test_reflective.py checks
# these against hardware/geometry.toml's [sensors.cell-ir].

CHANNELS = 36
"""Channels reported in HELLO and S (the matrix's 6 × 6)."""

MUX_SELECT_PINS = (8, 9, 10, 11)
"""S0–S3 of both multiplexers."""

MUX_ADC_PINS = (26, 27)
"""The COM (SIG) pin of multiplexer 0 and 1, each on an ADC input."""

EMITTER_PINS = (2, 3, 4, 5, 6)
"""One per emitter group, high = lit (the gate of its MOSFET): group g is rank g + 1 and
its target (the matrix's row g)."""

SENSORS = tuple((channel, channel // 16, channel % 16, channel // 6) for channel in range(30))
"""(channel, multiplexer, input, emitter group) of every sensor: the cells a1–e5, the
targets t1–t4 (channels 5, 11, 17, 23) and the top (29), wired to mux input channel % 16
of mux channel // 16; the targets and the top through the Pyramidos module's cable."""

USB_CC_INPUTS = ((1, 14), (1, 15))
"""(multiplexer, input) of the LED supply's USB-C CC1 and CC2, each through 10 kΩ from
its 5.1 kΩ Rd on the printed pico board: the voltage across the Rd says whether the
charger offers only default USB power, 1.5 A or 3 A (firmware/usbpower.py)."""

SWITCHES = ((30, 13), (31, 14), (32, 17))
"""(channel, GPIO) of the switches on their own pins, closed = low: the buttons confirm,
end turn, undo (30–32)."""

ON_COUNTS = 223
"""A pearl is there above this many ADC counts over the sensor's baseline (an uncalibrated
one: `pyramid diag --check` sets each cell's own): 18 µA through
the 10 kΩ load (12.41 counts per µA). Between a hand 5 mm over an empty hollow (skin
about 0.5 at 950 nm: 12 µA on a typical part) and the darkest pearl at its weakest rest
(32 µA on a minimum part) less what a baseline at BASELINE_MAX hides of it
(hardware/README.md, "A reading room light cannot fool")."""

OFF_COUNTS = 173
"""… and gone again below this (14 µA: still above the hand)."""

BASELINE_MAX = 149
"""The empty reading is at most this (12 µA): the data sheet's 1 µA cross talk and a
window wall of reflectance 0.3 (8.4 µA on a minimum part); a sensor's baseline starts
here (a pearl on it at power-up is seen) and never rises above, until `pyramid diag
--check` calibrates the cell (its own empty level and marks, kept in calib.txt)."""

BASELINE_CREEP = 250
"""Empty scans before the baseline may rise by one count (a slow drift is followed); it
falls a count a scan, after three readings in a row below it."""

AMBIENT_MAX = 3000
"""A dark reading above this (242 µA: room light near the 10 kΩ load's saturation at
0.30 mA, where the lit reading has no room left above it) makes the sensor unreadable."""

EMITTER_SETTLE_US = 600
"""After lighting or darkening a group, before its first sensor is read: three times the
slowest phototransistor's lag (τ = 200 µs at 10 kΩ), so the timing costs at most 10 % of
the signal."""

MUX_SETTLE_US = 5
"""After a new multiplexer address, before the ADC reads."""

SAMPLES = 1
"""ADC readings averaged per reading (each costs time in every phase: a longer phase lets
more of the mains ripple through; the five readings of a scan already average the
noise)."""

LED_PIN = 16
"""GPIO number of the WS2812 data line (through a level shifter to 5 V LEDs)."""

BUZZER_PIN = 15
"""GPIO number of the speaker's driver (PWM), or None: GP15 on the printed pico board."""

MAINTENANCE_CHANNEL = 30
"""Held at power-up, this switch (30: the confirm button) keeps the firmware at the REPL
without the watchdog, for mpremote and Thonny. None: no such way in."""

LED_COUNT = 37
"""LEDs in the chain (at most 79, what one protocol line can carry)."""

SCAN_MS = 4
"""A whole matrix scan starts every SCAN_MS milliseconds."""

DEBOUNCE_SCANS = 3
"""A channel changes only after this many consecutive scans agree (at least 2)."""

SETTLE_US = 22
"""Microseconds between driving a row and reading the columns (wires and diodes settle):
twice the 11 µs a column needs on the Pico's own pull-ups at 150 pF of wire, to rise to
V_IH after the row before let it go (hardware/README.md, "Timing")."""

REPORT_MS = 1000
"""An ``S`` line goes out at least this often even when nothing changes (at most 1000)."""

BLINK_MS = 250
"""Blinking LEDs are on for BLINK_MS, then off for BLINK_MS (2 Hz, as the gpio adapter)."""

BLANK_AFTER_MS = 10000
"""All LEDs go dark after this long without a frame from the host."""

WATCHDOG_MS = 2000
"""The hardware watchdog resets the Pico if the main loop stalls this long (at most 8388)."""

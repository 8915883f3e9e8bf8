"""The firmware on MicroPython for RP2040 in rp2040js: see pico.py (host side) and pico.mjs."""

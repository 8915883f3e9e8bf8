# Typed stub of the part of magpylib the magnet model uses (tests/hardware/physics/):
# the functional field interface. magpylib ships no type information.
from magpylib import func as func

mu_0: float

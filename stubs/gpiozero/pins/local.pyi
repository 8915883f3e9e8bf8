# gpiozero/pins/local.py of gpiozero 2.0.1. LocalPiFactory's pins and _reservations are
# class attributes (:61-62) that every instance shares (:71-73); they are declared on
# PiFactory and Factory.
from gpiozero.pins.pi import PiFactory, PiPin

class LocalPiFactory(PiFactory): ...
class LocalPiPin(PiPin): ...

# gpiozero/pins/spi.py of gpiozero 2.0.1: the bit-banged SPI (:19).
from gpiozero.pins import SPI

class SPISoftware(SPI): ...

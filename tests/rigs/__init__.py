"""Test rigs: models of other people's code and of the physical world.

Nothing here ships: the wheel holds ``controller``, ``web_ui`` and ``firmware`` only, and
no product module imports this package or asks whether it runs on it.

- :mod:`.lgpio_model` and :mod:`.lgpio_lines`: the ``lgpio`` module and the Pi's header
  it drives, under gpiozero's real ``LGPIOFactory``;
- :mod:`.circuits`: the wiring (a diode matrix, multiplexers, direct sensors, an APA102
  strip), on gpiozero's ``MockFactory`` or on the lgpio model;
- :mod:`.contacts`: contacts that bounce and glitch; :mod:`.pearls`: pearls placed by a
  person, with the mistakes between a magnet and its switch;
- :mod:`.fake_mpremote`: mpremote as the simulated Pico (``firmware/sim``) answers it.

The physical models that the maker's files are made from live in ``hardware/``
(``geometry``, ``electrical``, ``spice``) and ``tools/`` (the magnets).
"""

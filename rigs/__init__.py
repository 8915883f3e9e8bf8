"""The rigs the tests and the benchmarks share: models of other people's code and of the
physical world, and the harnesses that drive the product as people would.

Nothing here ships: the wheel holds ``controller``, ``web_ui``, ``firmware`` and
``pyramid_board`` only, and no product module imports this package or asks whether it runs
on it (tests/test_wheel.py checks both). ``tests/`` and ``bench/`` import it; it imports
neither.

- :mod:`.lgpio_model` and :mod:`.lgpio_lines`: the ``lgpio`` module and the Pi's header
  it drives, under gpiozero's real ``LGPIOFactory``;
- :mod:`.circuits`: the wiring (a diode matrix, multiplexers, direct sensors, an APA102
  strip), on gpiozero's ``MockFactory`` or on the lgpio model;
- :mod:`.contacts`: contacts that bounce and glitch; :mod:`.pearls`: pearls placed by a
  person, with the mistakes between a magnet and its switch;
- :mod:`.fake_mpremote`: mpremote as the simulated Pico (``firmware/sim``) answers it;
- :mod:`.mosquitto`: a real MQTT broker on loopback; :mod:`.network`: two pure links over a
  modelled broker in virtual time; :mod:`.journal`: the link's journal in memory;
- :mod:`.referee`: the referee alone in virtual time; :mod:`.table`: a real Table on a
  simulated or gpio board; :mod:`.scripts`: whole games to play through either;
  :mod:`.program`: ``pyramid run`` in a process of its own; :mod:`.person`: a scripted
  person for ``pyramid diag --check``; :mod:`.pins`, :mod:`.poll`: a pin factory put back,
  and the one poller.

The physical models that the maker's files are made from live in ``hardware/``
(``geometry``, ``electrical``, ``spice``) and ``tools/`` (the magnets).
"""

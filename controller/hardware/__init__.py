"""The Board port (:mod:`~controller.hardware.port`) and its adapters: the simulated board
(:mod:`~controller.hardware.sim`), the Pi's GPIO (:mod:`~controller.hardware.gpio`) and a
Pico over USB serial (:mod:`~controller.hardware.serial`), chosen in one place:
:func:`controller.hardware.adapters.build_board`."""

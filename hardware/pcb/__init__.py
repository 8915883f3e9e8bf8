"""The printed boards as code: ``make board`` writes them, ``tests/hardware/pcb`` checks them."""

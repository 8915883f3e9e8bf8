"""The physical board: geometry, drawings and the printed circuits (``hardware/pcb``)."""

"""Two boards in two homes playing one game, linked through an MQTT broker.

The pure parts — :mod:`~controller.remote.invitation` (codes),
:mod:`~controller.remote.wire` (keys, topics, the sealed envelope),
:mod:`~controller.remote.link` (the state machine) and
:mod:`~controller.remote.journal` (its persistence port) and
:mod:`~controller.remote.backoff` (the waits between tries) — have no threads, clock or
I/O; :mod:`~controller.remote.mqtt` carries a link over paho-mqtt, and
:mod:`~controller.remote.seats` plugs it into the Table as one more kind of seat
(docs/architecture.md).
"""

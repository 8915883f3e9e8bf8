"""The Board port's promises, checked the same way over every adapter.

Each adapter comes with a *rig*: the board plus a way to move its sensors and to see its
LEDs the way a person would (the sim board's recorded frames, the gpio board's decoded
APA102 strip). To add an adapter (e.g. ``serial`` over a pty to the firmware in the
MicroPython unix port), write a context manager that yields a :class:`Rig` and add it to
:data:`RIGS`; every test below then runs over it too.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field

import pytest
from gpiozero import Device
from gpiozero.pins import Factory
from gpiozero.pins.mock import MockFactory

from controller.config import (
    Config,
    ConfigError,
    GpioConfig,
    LedConfig,
    SerialConfig,
    config_from_toml,
)
from controller.hardware import adapters
from controller.hardware.adapters import build_board
from controller.hardware.apa102 import apparent
from controller.hardware.channels import ChannelMap
from controller.hardware.gpio import BLINK_HALF_PERIOD_S, GpioBoard
from controller.hardware.port import (
    Board,
    Colour,
    Led,
    LedFrame,
    LedMode,
    LinkState,
    SensorFrame,
)
from controller.hardware.serial import LinkTiming, SerialBoard
from controller.hardware.sim import SimBoard
from firmware.sim.harness import SimConfig, SimPico
from rigs.circuits import (
    Apa102Strip,
    DiodeMatrix,
    DirectWiring,
    Header,
    MuxBank,
    Switches,
)
from rigs.lgpio_model import LgpioModel, close_factory, lgpio_factory
from rigs.pins import mock_pins
from rigs.poll import wait_until

LED_COUNT = 6
TIMEOUT = 2.0


@dataclass
class Rig:
    """An adapter under test and the world around it."""

    board: Board
    set_sensor: Callable[[int, bool], object]
    """Make channel n's sensor read active (a pearl on it) or not."""
    seen: Callable[[], list[Colour]]
    """What the LEDs look like to a person right now."""
    looks_like: Callable[[Colour], Colour] = lambda colour: colour
    """What a requested colour looks like once shown (brightness limit applied)."""
    blinks_visibly: bool = True
    """False where blinking is left to the viewer (the sim board records frames only)."""
    channels: tuple[int, ...] = (0, 1, 5)
    frames: list[SensorFrame] = field(default_factory=list)
    arrived: threading.Condition = field(default_factory=threading.Condition)
    """Notified on each new entry of ``frames`` (once :func:`started`)."""


@contextmanager
def sim_rig() -> Iterator[Rig]:
    board = SimBoard(channels=8, leds=LED_COUNT)

    def seen() -> list[Colour]:
        frame = board.shown[-1] if board.shown else LedFrame.blank(LED_COUNT)
        return [led.colour for led in frame.leds]

    yield Rig(board, board.set_channel, seen, blinks_visibly=False)
    board.close()


@contextmanager
def lgpio_pins() -> Iterator[tuple[LgpioModel, Factory]]:
    """gpiozero's real LGPIOFactory over the lgpio model (SPI0 on), as a Pi's default."""
    saved_module = sys.modules.get("lgpio")
    model = LgpioModel(spi_devices={"/dev/spidev0.0"})
    factory = lgpio_factory(model)
    saved, Device.pin_factory = Device.pin_factory, factory
    try:
        yield model, factory
    finally:
        Device.pin_factory = saved
        close_factory(factory)
        if saved_module is not None:
            sys.modules["lgpio"] = saved_module


def gpio_rig(
    config: GpioConfig, circuit: Callable[[Header], Switches], on_lgpio: bool = False
) -> AbstractContextManager[Rig]:
    """The gpio board on MockFactory pins, or (``on_lgpio``) on the lgpio model."""

    @contextmanager
    def rig() -> Iterator[Rig]:
        with ExitStack() as stack:
            header: Header
            factory: Factory
            if on_lgpio:
                header, factory = stack.enter_context(lgpio_pins())
            else:
                factory = header = stack.enter_context(mock_pins())
            switches = circuit(header)
            strip = Apa102Strip(header, LED_COUNT)
            leds = LedConfig(brightness=0.5)
            board = GpioBoard(config, leds, LED_COUNT, pin_factory=factory)
            stack.callback(board.close)

            def set_sensor(channel: int, active: bool) -> None:
                (switches.press if active else switches.release)(channel)

            yield Rig(
                board,
                set_sensor,
                strip.colours,
                looks_like=lambda colour: apparent(colour, leds.brightness),
            )

    return rig()


ROWS, COLS = (4, 17, 27), (13, 19, 26)
SELECT, SIGNALS = (5, 6, 13, 19), (26,)
PINS = (4, 17, 27, 22, 5, 6)


def matrix_rig(on_lgpio: bool = False) -> AbstractContextManager[Rig]:
    return gpio_rig(
        GpioConfig(rows=ROWS, cols=COLS),
        lambda header: DiodeMatrix(header, ROWS, COLS).switches,
        on_lgpio,
    )


def mux_rig(on_lgpio: bool = False) -> AbstractContextManager[Rig]:
    return gpio_rig(
        GpioConfig("mux", select=SELECT, signals=SIGNALS),
        lambda header: MuxBank(header, SELECT, SIGNALS).sensors,
        on_lgpio,
    )


def direct_rig(on_lgpio: bool = False) -> AbstractContextManager[Rig]:
    return gpio_rig(
        GpioConfig("direct", pins=PINS),
        lambda header: DirectWiring(header, PINS).switches,
        on_lgpio,
    )


@contextmanager
def serial_rig() -> Iterator[Rig]:
    """The serial adapter and the firmware's own files on a simulated Pico behind a pty.

    The firmware runs in the MicroPython unix port (CPython where that cannot run); its
    LEDs are what the fake ``neopixel`` was last told to write. The Pico reports four
    times a second, so the adapter may call a second of silence a lost link.
    """
    config = SimConfig(
        rows=(2, 3),
        columns=(8, 9, 10, 11),
        led_count=LED_COUNT,
        blink_ms=round(BLINK_HALF_PERIOD_S * 1000),
        report_ms=250,
    )
    timing = LinkTiming(silence=1.0, handshake=0.3, backoff_max=0.5, refresh=1.0)
    brightness = 0.5
    with SimPico(config) as pico:
        board = SerialBoard(pico.port, 8, LED_COUNT, brightness=brightness, timing=timing)

        def seen() -> list[Colour]:
            writes = pico.leds
            colours = writes[-1].colours if writes else (0,) * LED_COUNT
            return [((c >> 16) & 0xFF, (c >> 8) & 0xFF, c & 0xFF) for c in colours]

        def looks_like(colour: Colour) -> Colour:
            red, green, blue = (round(component * brightness) for component in colour)
            return (red, green, blue)

        try:
            yield Rig(board, pico.set_switch, seen, looks_like=looks_like)
        finally:
            board.close()


RIGS: dict[str, Callable[[], AbstractContextManager[Rig]]] = {
    "sim": sim_rig,
    "gpio-matrix": matrix_rig,
    "gpio-mux": mux_rig,
    "gpio-direct": direct_rig,
    "lgpio-matrix": lambda: matrix_rig(on_lgpio=True),
    "lgpio-mux": lambda: mux_rig(on_lgpio=True),
    "lgpio-direct": lambda: direct_rig(on_lgpio=True),
    "serial": serial_rig,
}


@pytest.fixture(params=sorted(RIGS))
def rig(request: pytest.FixtureRequest) -> Iterator[Rig]:
    with RIGS[request.param]() as made:
        yield made


def started(rig: Rig) -> Rig:
    def on_frame(frame: SensorFrame) -> None:
        with rig.arrived:
            rig.frames.append(frame)
            rig.arrived.notify_all()

    rig.board.start(on_frame)
    return rig


def wait_for(rig: Rig, active: set[int]) -> SensorFrame:
    with rig.arrived:
        ok = rig.arrived.wait_for(
            lambda: bool(rig.frames) and rig.frames[-1].active == active, TIMEOUT
        )
    assert ok, f"no frame with {sorted(active)}; frames: {rig.frames}"
    return rig.frames[-1]


# -- sensors -----------------------------------------------------------------------------------


def test_nothing_is_active_before_start(rig: Rig) -> None:
    frame = rig.board.read()
    assert frame.active == frozenset()
    assert frame.seq == 0


def test_a_sensor_change_delivers_one_frame(rig: Rig) -> None:
    started(rig)
    channel = rig.channels[1]
    rig.set_sensor(channel, True)
    frame = wait_for(rig, {channel})
    assert frame.seq == 1
    assert rig.board.read() == frame
    rig.set_sensor(channel, False)
    assert wait_for(rig, set()).seq == 2


def test_frames_carry_every_active_channel_in_order(rig: Rig) -> None:
    started(rig)
    first, second, third = rig.channels
    rig.set_sensor(first, True)
    wait_for(rig, {first})
    rig.set_sensor(second, True)
    rig.set_sensor(third, True)
    wait_for(rig, {first, second, third})
    rig.set_sensor(first, False)
    wait_for(rig, {second, third})
    seqs = [f.seq for f in rig.frames]
    assert seqs == list(range(1, len(seqs) + 1))
    times = [f.at for f in rig.frames]
    assert times == sorted(times)


def test_no_frame_without_a_change(rig: Rig) -> None:
    started(rig)
    first, second = rig.channels[:2]
    rig.set_sensor(first, True)
    wait_for(rig, {first})
    count = len(rig.frames)
    rig.set_sensor(first, True)  # already active
    rig.set_sensor(second, True)  # a change that comes after: its frame is the next one
    wait_for(rig, {first, second})
    assert [f.active for f in rig.frames[count:]] == [{first, second}]


def test_status_counts_toggles(rig: Rig) -> None:
    started(rig)
    channel = rig.channels[2]
    for active in (True, False, True):
        rig.set_sensor(channel, active)
        wait_for(rig, {channel} if active else set())
    status = rig.board.status()
    assert status.adapter == rig.board.adapter
    assert status.link is LinkState.CONNECTED
    assert status.toggles.get(channel) == 3
    assert status.detail


def test_no_frames_after_close(rig: Rig) -> None:
    before = set(threading.enumerate())
    started(rig)
    rig.board.close()
    # Every thread the board started has ended: no frame can come later than the next line.
    assert set(threading.enumerate()) <= before
    count = len(rig.frames)
    rig.set_sensor(rig.channels[0], True)
    assert len(rig.frames) == count
    rig.board.close()  # closing twice is harmless


# -- LEDs --------------------------------------------------------------------------------------


def test_led_frames_are_shown(rig: Rig) -> None:
    started(rig)
    picture = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (0, 0, 0), (10, 20, 30)]
    frame = LedFrame(tuple(Led(c) for c in picture))
    rig.board.show(frame)
    assert rig.board.led_frame == frame
    wanted = [rig.looks_like(c) for c in picture]
    wait_until(lambda: rig.seen() == wanted, TIMEOUT, interval=0.005, what=rig.seen)


def test_a_new_frame_replaces_the_old_whole(rig: Rig) -> None:
    started(rig)
    rig.board.show(LedFrame((Led((255, 0, 0)),) * LED_COUNT))
    rig.board.show(LedFrame((Led((0, 0, 255)),) + (Led(),) * (LED_COUNT - 1)))
    wanted = [rig.looks_like((0, 0, 255))] + [(0, 0, 0)] * (LED_COUNT - 1)
    wait_until(lambda: rig.seen() == wanted, TIMEOUT, interval=0.005, what=rig.seen)


def test_frames_of_the_wrong_length_are_refused(rig: Rig) -> None:
    with pytest.raises(ValueError):
        rig.board.show(LedFrame.blank(LED_COUNT + 1))


def test_blinking_leds_go_on_and_off(rig: Rig) -> None:
    if not rig.blinks_visibly:
        pytest.skip(f"{rig.board.adapter} leaves blinking to whoever shows its frames")
    started(rig)
    lit = rig.looks_like((0, 255, 0))
    rig.board.show(LedFrame((Led((0, 255, 0), LedMode.BLINK),) + (Led(),) * (LED_COUNT - 1)))
    states = set()

    def both_seen() -> bool:
        states.add(rig.seen()[0])
        return len(states) >= 2

    wait_until(both_seen, TIMEOUT, interval=0.01, what=lambda: states)
    assert states == {lit, (0, 0, 0)}


# -- the one place that names adapters ----------------------------------------------------------


def test_build_board_gives_the_sim_board_by_default() -> None:
    board, cmap = build_board(Config())
    assert isinstance(board, SimBoard)
    assert (board.channels, board.leds) == (cmap.channel_count, cmap.led_count) == (33, 37)


def test_build_board_gives_the_gpio_board(mock_factory: MockFactory) -> None:
    config = config_from_toml('[board]\nadapter = "gpio"\n[leds]\nspi = false\n')
    DiodeMatrix(mock_factory, config.board.gpio.rows, config.board.gpio.cols)
    board, cmap = build_board(config, pin_factory=mock_factory)
    with board:
        assert isinstance(board, GpioBoard)
        assert board.channels == 36 and board.leds == cmap.led_count


def test_gpio_without_a_pin_factory_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    with pytest.raises(ConfigError) as caught:
        build_board(config_from_toml('[board]\nadapter = "gpio"\n'))
    assert caught.value.key == "board.adapter"
    assert "not a Raspberry Pi, or lgpio is missing" in caught.value.problem


def test_serial_adapter_gets_its_section_map_and_brightness(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = []

    class Recorder:
        @classmethod
        def from_config(cls, serial: SerialConfig, cmap: ChannelMap, brightness: float) -> object:
            calls.append((serial, cmap, brightness))
            return cls()

    monkeypatch.setattr(adapters, "SerialBoard", Recorder)
    config = config_from_toml(
        '[board]\nadapter = "serial"\n[board.serial]\nport = "loop://"\n[leds]\nbrightness = 0.6'
    )
    board, cmap = build_board(config)
    assert isinstance(board, Recorder)
    assert calls == [(config.board.serial, cmap, 0.6)]

"""APA102/SK9822 LEDs: the bytes, and a mock strip on gpiozero's SPI that decodes them."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given
from hypothesis import strategies as st

from controller.config import GpioConfig, LedConfig, SpiConfig
from controller.hardware.apa102 import Apa102Chain, apparent, brightness_split, encode
from controller.hardware.gpio import GpioBoard
from controller.hardware.port import Colour, Led, LedFrame, LedMode
from rigs.circuits import Apa102Strip, DiodeMatrix

components = st.integers(min_value=0, max_value=255)
colours = st.tuples(components, components, components)
brightness = st.floats(min_value=0.0, max_value=1.0)


# -- the bytes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("count", "end_bytes"), [(1, 1), (16, 1), (17, 2), (37, 3), (64, 4)])
def test_frame_layout(count: int, end_bytes: int) -> None:
    data = encode([(1, 2, 3)] * count, brightness=1.0)
    assert data[:4] == bytes(4)  # start frame
    leds = data[4 : 4 + 4 * count]
    assert all(leds[i : i + 4] == bytes((0xFF, 3, 2, 1)) for i in range(0, len(leds), 4))
    assert data[4 + 4 * count :] == bytes(4 + end_bytes)  # latch, then n/2 clock edges


def test_colour_order() -> None:
    assert encode([(10, 20, 30)], 1.0, "bgr")[4:8] == bytes((0xFF, 30, 20, 10))
    assert encode([(10, 20, 30)], 1.0, "rgb")[4:8] == bytes((0xFF, 10, 20, 30))
    assert encode([(10, 20, 30)], 1.0, "grb")[4:8] == bytes((0xFF, 20, 10, 30))


def test_dark_leds_have_brightness_zero() -> None:
    assert encode([(0, 0, 0)], 1.0)[4:8] == bytes((0xE0, 0, 0, 0))
    assert encode([(255, 255, 255)], 0.0)[4:8] == bytes((0xE0, 0, 0, 0))


@pytest.mark.parametrize(
    ("bad", "call"),
    [
        ("brightness", lambda: encode([(0, 0, 0)], 1.5)),
        ("order", lambda: encode([(0, 0, 0)], 1.0, "bgrx")),
        ("component", lambda: encode([(256, 0, 0)], 1.0)),
        ("component", lambda: encode([(1, 2)], 1.0)),  # type: ignore[list-item]
    ],
)
def test_bad_input_is_refused(bad: str, call: Callable[[], bytes]) -> None:
    with pytest.raises(ValueError):
        call()


@given(colour=colours, limit=brightness)
def test_brightness_limit_scales_every_colour(colour: Colour, limit: float) -> None:
    level, scale = brightness_split(limit)
    assert 0 <= level <= 31 and 0.0 <= scale <= 1.0
    seen = apparent(colour, limit)
    for got, wanted in zip(seen, colour, strict=True):
        assert abs(got - wanted * limit) <= 1.0


@given(limit=st.floats(min_value=0.04, max_value=1.0))
def test_dim_colours_keep_their_resolution(limit: float) -> None:
    """The 5-bit level carries the coarse dimming: the colour bytes lose at most 1/level."""
    level, scale = brightness_split(limit)
    assert level == math.ceil(limit * 31)
    assert (level - 1) / level < scale <= 1.0


# -- through gpiozero's SPI to the mock strip --------------------------------------------------


def chain_on(factory: MockFactory, count: int, limit: float, order: str = "bgr") -> Apa102Chain:
    spi = factory.spi(clock_pin=11, mosi_pin=10, miso_pin=None, select_pin=8)
    return Apa102Chain(spi, count, limit, order)


def test_strip_decodes_what_the_chain_sends(mock_factory: MockFactory) -> None:
    strip = Apa102Strip(mock_factory, 5)
    chain = chain_on(mock_factory, 5, 1.0)
    picture = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (1, 2, 3)]
    assert chain.show(picture)
    assert strip.colours() == picture
    assert strip.malformed == 0
    assert not chain.show(picture)  # unchanged: nothing sent
    assert len(strip.pictures) == 1
    chain.close()
    assert strip.colours() == [(0, 0, 0)] * 5  # closing blanks the chain
    chain.close()


def test_brightness_limit_reaches_the_leds(mock_factory: MockFactory) -> None:
    strip = Apa102Strip(mock_factory, 3)
    chain = chain_on(mock_factory, 3, 0.25)
    picture = [(255, 255, 255), (200, 100, 0), (0, 0, 0)]
    chain.show(picture)
    assert strip.colours() == [apparent(c, 0.25) for c in picture]
    assert strip.pixels[0].level == 8
    chain.close()


def test_wrong_colour_order_shows_wrong_colours(mock_factory: MockFactory) -> None:
    """A clone strip with RGB order, configured as BGR: red shows as blue."""
    strip = Apa102Strip(mock_factory, 1, order="rgb")
    chain = chain_on(mock_factory, 1, 1.0, order="bgr")
    chain.show([(255, 0, 0)])
    assert strip.colours() == [(0, 0, 255)]
    chain.close()


def test_a_longer_strip_keeps_its_tail(mock_factory: MockFactory) -> None:
    """Config says 2 LEDs, the strip has 3: the third keeps its colour (a visible hint)."""
    strip = Apa102Strip(mock_factory, 3)
    chain_on(mock_factory, 3, 1.0).show([(9, 9, 9)] * 3)
    mock_factory.reset()  # a second chain object on the same pins, as after a restart
    strip2 = Apa102Strip(mock_factory, 3)
    strip2.pixels = list(strip.pixels)
    chain_on(mock_factory, 2, 1.0).show([(1, 1, 1), (2, 2, 2)])
    assert strip2.colours() == [(1, 1, 1), (2, 2, 2), (9, 9, 9)]
    assert not strip2.pictures  # never a complete update of all three


# -- the gpio board's LEDs ----------------------------------------------------------------------


def board_with_strip(
    factory: MockFactory, count: int, leds: LedConfig, clock: list[float] | None = None
) -> tuple[GpioBoard, Apa102Strip]:
    """A gpio board and the strip it drives; ``clock``: a virtual clock ([seconds])."""
    DiodeMatrix(factory, (4, 17), (13, 19))
    spi = leds.spi or SpiConfig()
    strip = Apa102Strip(factory, count, clock=spi.clock, mosi=spi.mosi, select=spi.chip_select)
    config = GpioConfig(rows=(4, 17), cols=(13, 19))
    if clock is None:
        board = GpioBoard(config, leds, count)
    else:
        board = GpioBoard(config, leds, count, clock=lambda: clock[0])
    return board, strip


def test_board_frames_reach_the_strip(mock_factory: MockFactory) -> None:
    board, strip = board_with_strip(mock_factory, 8, LedConfig(brightness=0.5))
    assert strip.colours() == [(0, 0, 0)] * 8  # blanked when the board opened
    picture = [(i * 30, 255 - i * 30, i) for i in range(8)]
    board.show(LedFrame(tuple(Led(c) for c in picture)))
    assert strip.colours() == [apparent(c, 0.5) for c in picture]
    board.close()
    assert strip.colours() == [(0, 0, 0)] * 8


def test_bit_banged_spi_on_other_pins(mock_factory: MockFactory) -> None:
    leds = LedConfig(brightness=1.0, spi=SpiConfig(clock=21, mosi=20, select=12))
    board, strip = board_with_strip(mock_factory, 2, leds)
    board.show(LedFrame((Led((5, 6, 7)), Led((8, 9, 10)))))
    assert strip.colours() == [(5, 6, 7), (8, 9, 10)]
    assert "bit-banged" in board.status().detail
    board.close()


def test_blinking_leds_blink_at_two_hertz(mock_factory: MockFactory) -> None:
    # Virtual seconds in sixteenths (exact in binary): the board's clock moves only here.
    now = [1 / 16]
    board, strip = board_with_strip(mock_factory, 3, LedConfig(brightness=1.0), clock=now)
    board.show(LedFrame((Led((0, 255, 0), LedMode.BLINK), Led((0, 0, 255)), Led())))
    start = len(strip.pictures)
    flips = []
    for step in range(2, 25):  # up to 1.5 s, looking as often as the scan thread might
        now[0] = step / 16
        before = len(strip.pictures)
        board.blink(now[0])
        if len(strip.pictures) > before:
            flips.append(now[0])
    pictures = [[p.apparent for p in picture] for picture in list(strip.pictures)[start - 1 :]]
    board.close()
    # Alternates on and off, one picture per half period, while the steady LED stays lit.
    assert [picture[0] for picture in pictures] == [(0, 255, 0), (0, 0, 0)] * 3 + [(0, 255, 0)]
    assert flips == [0.25, 0.5, 0.75, 1.0, 1.25, 1.5]
    assert all(picture[1] == (0, 0, 255) for picture in pictures)


def test_steady_pictures_are_not_resent(mock_factory: MockFactory) -> None:
    now = [1 / 16]
    board, strip = board_with_strip(mock_factory, 3, LedConfig(brightness=1.0), clock=now)
    frame = LedFrame((Led((255, 0, 0)), Led(), Led()))
    board.show(frame)
    board.show(frame)
    sent = len(strip.pictures)
    for step in range(2, 25):  # 1.5 s of the scan thread's looking, in virtual time
        assert board.blink(step / 16) is None  # nothing blinks: no flip is ever due
    assert len(strip.pictures) == sent
    board.close()


def test_frame_of_the_wrong_length_is_refused(mock_factory: MockFactory) -> None:
    board, _strip = board_with_strip(mock_factory, 3, LedConfig())
    with pytest.raises(ValueError):
        board.show(LedFrame.blank(4))
    board.close()


def test_no_leds_wired(mock_factory: MockFactory) -> None:
    DiodeMatrix(mock_factory, (4, 17), (13, 19))
    with GpioBoard(GpioConfig(rows=(4, 17), cols=(13, 19)), LedConfig(spi=None), 4) as board:
        board.show(LedFrame.blank(4))  # accepted and dropped
        assert "no LEDs" in board.status().detail
        assert board.led_frame == LedFrame.blank(4)

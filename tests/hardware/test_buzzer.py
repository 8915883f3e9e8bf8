"""The piezo buzzer: the tunes of ``port.TUNES`` as PWM pitch and duty, off the scan thread."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.config import BuzzerConfig, ConfigError, GpioConfig, LedConfig, config_from_toml
from controller.hardware.adapters import build_board
from controller.hardware.buzzer import duty_for
from controller.hardware.gpio import GpioBoard
from controller.hardware.port import TUNES, Sound
from controller.hardware.sim import SimBoard
from controller.hardware.wiring import DEFAULT_COLS, DEFAULT_ROWS
from rigs.circuits import DiodeMatrix

from .conftest import LgpioRig

NO_LEDS = LedConfig(spi=None)
BUZZER = BuzzerConfig(pin=18)


def notes_played(settings: list[tuple[float, float, float]]) -> list[tuple[float, float]]:
    """(hz, duty %) of every setting that sounds, repeats merged."""
    sounding: list[tuple[float, float]] = []
    for _at, hz, duty in settings:
        if hz and duty and (not sounding or sounding[-1] != (hz, duty)):
            sounding.append((hz, duty))
    return sounding


def test_each_tune_plays_its_notes_at_full_volume(lgpio_pi: LgpioRig) -> None:
    DiodeMatrix(lgpio_pi.model, DEFAULT_ROWS, DEFAULT_COLS)
    with GpioBoard(GpioConfig(), NO_LEDS, 0, pin_factory=lgpio_pi.factory, buzzer=BUZZER) as board:
        assert board.has_buzzer
        lgpio_pi.model.pwm_threads.clear()
        for sound in Sound:
            lgpio_pi.model.pwm.clear()
            board.sound(sound, 1.0)
            assert board.buzzer_idle(3.0)
            wanted = [(float(n.hz), 50.0) for n in TUNES[sound] if n.hz]
            settings = lgpio_pi.model.pwm[18]
            assert notes_played(settings) == wanted, sound
            assert settings[-1][1] == 0  # PWM stopped after the tune
        assert "buzzer on GPIO 18" in board.status().detail
        assert lgpio_pi.model.pwm_threads == {"pyramid-buzzer"}  # never the caller's thread


def test_volume_is_the_duty_cycle(lgpio_pi: LgpioRig) -> None:
    DiodeMatrix(lgpio_pi.model, DEFAULT_ROWS, DEFAULT_COLS)
    with GpioBoard(GpioConfig(), NO_LEDS, 0, pin_factory=lgpio_pi.factory, buzzer=BUZZER) as board:
        board.sound(Sound.WRONG, 0.25)
        assert board.buzzer_idle(3.0)
        # gpiozero's lgpio pins give lgpio whole per cent: int(0.0804 * 100) = 8
        assert notes_played(lgpio_pi.model.pwm[18]) == [(220.0, 8.0)]
        with pytest.raises(ValueError):
            board.sound(Sound.WRONG, 1.5)


def test_a_new_cue_cuts_the_playing_one_short(lgpio_pi: LgpioRig) -> None:
    DiodeMatrix(lgpio_pi.model, DEFAULT_ROWS, DEFAULT_COLS)
    with GpioBoard(GpioConfig(), NO_LEDS, 0, pin_factory=lgpio_pi.factory, buzzer=BUZZER) as board:
        board.sound(Sound.WINNER, 1.0)  # 660 ms
        board.sound(Sound.TURN, 1.0)
        assert board.buzzer_idle(3.0)
        played = notes_played(lgpio_pi.model.pwm[18])
    assert played[-1] == (880.0, 50.0)
    assert (1047.0, 50.0) not in played  # the winner's last note never came


def test_the_buzzer_on_mock_pins_records_its_duty(mock_factory: MockFactory) -> None:
    """gpiozero's MockPWMPin keeps the duty history (MockFactory hands out PWM pins only
    when every pin is one, so this board reads one plain sensor pin)."""
    mock_factory.pin_class = MockPWMPin
    direct = GpioConfig("direct", pins=(4,))
    with GpioBoard(direct, NO_LEDS, 0, pin_factory=mock_factory, buzzer=BUZZER) as board:
        pin = mock_factory.pin(18)
        pin.clear_states()
        board.sound(Sound.BONUS, 0.5)
        assert board.buzzer_idle(3.0)
        duties = [round(state.state, 3) for state in pin.states]
        assert pin.frequency is None  # PWM stopped
    assert round(duty_for(0.5), 3) in duties
    assert duties[-1] == 0


def test_closing_the_board_lets_the_buzzer_pin_go(lgpio_pi: LgpioRig) -> None:
    DiodeMatrix(lgpio_pi.model, DEFAULT_ROWS, DEFAULT_COLS)
    board = GpioBoard(GpioConfig(), NO_LEDS, 0, pin_factory=lgpio_pi.factory, buzzer=BUZZER)
    board.sound(Sound.WINNER, 1.0)
    board.close()
    assert lgpio_pi.model.drive(18) in (None, False)  # silent
    board.sound(Sound.TURN, 1.0)  # a closed board plays nothing, and does not fail


def test_without_a_buzzer_nothing_plays(lgpio_pi: LgpioRig) -> None:
    DiodeMatrix(lgpio_pi.model, DEFAULT_ROWS, DEFAULT_COLS)
    with GpioBoard(GpioConfig(), NO_LEDS, 0, pin_factory=lgpio_pi.factory) as board:
        assert not board.has_buzzer
        board.sound(Sound.WINNER)
    assert 18 not in lgpio_pi.model.pwm


def test_the_sim_board_records_the_cues_it_is_asked_for() -> None:
    board = SimBoard(4, 0)
    board.sound(Sound.TURN)
    board.sound(Sound.WRONG, 0.3)
    assert board.sounds == [(Sound.TURN, 1.0), (Sound.WRONG, 0.3)]
    assert board.wait_for_sound(2) == (Sound.WRONG, 0.3)
    assert not board.has_buzzer


# -- the config -------------------------------------------------------------------------------

GPIO = '[board]\nadapter = "gpio"\n[leds]\nspi = false\n'


def test_no_buzzer_section_means_no_buzzer() -> None:
    assert config_from_toml(GPIO).buzzer is None


def test_buzzer_section_reaches_the_board(lgpio_pi: LgpioRig) -> None:
    config = config_from_toml(GPIO + "[buzzer]\npin = 18\n")
    assert config.buzzer == BuzzerConfig(18)
    DiodeMatrix(lgpio_pi.model, DEFAULT_ROWS, DEFAULT_COLS)
    board, _cmap = build_board(config, pin_factory=lgpio_pi.factory)
    with board:
        assert board.has_buzzer


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        (GPIO + "[buzzer]\n", "buzzer.pin", "is required"),
        (GPIO + "[buzzer]\npin = 13\n", "buzzer.pin", "already used by board.gpio.cols[0]"),
        (
            GPIO.replace("false", "{ clock = 11, mosi = 10 }") + "[buzzer]\npin = 9\n",
            "buzzer.pin",
            "already used by leds.spi",
        ),
        (GPIO + "[buzzer]\npin = 40\n", "buzzer.pin", "not on the 40-pin header"),
        (GPIO + "[buzzer]\npin = 18\nvolume = 3\n", "buzzer.volume", "unknown key"),
        ('[board]\nadapter = "serial"\n[buzzer]\npin = 18\n', "buzzer", "firmware/config.py"),
    ],
)
def test_buzzer_errors_name_the_key(text: str, key: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_toml(text)
    assert caught.value.key == key
    assert problem in caught.value.problem


def test_a_factory_without_pwm_names_the_buzzer_key(mock_factory: MockFactory) -> None:
    """MockFactory's plain pins have no PWM (as GPIOZERO_PIN_FACTORY=mock gives)."""
    DiodeMatrix(mock_factory, DEFAULT_ROWS, DEFAULT_COLS)
    config = config_from_toml(GPIO + "[buzzer]\npin = 18\n")
    with pytest.raises(ConfigError) as caught:
        build_board(config, pin_factory=mock_factory)
    assert caught.value.key == "buzzer.pin"
    assert "GPIO 18 cannot play tones with MockFactory" in caught.value.problem
    build_board(config_from_toml(GPIO), pin_factory=mock_factory)[0].close()  # pins let go

"""The config file: defaults, where it is found, shipped examples, and every error's key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import controller.config
from controller.config import (
    Config,
    ConfigError,
    ConfigErrors,
    GpioConfig,
    SpiConfig,
    config_from_toml,
    default_data_dir,
    find_config,
    load_config,
)
from controller.hardware.channels import CELLS, SEATS, ChannelMap

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "configs").glob("*.toml"))
SEARCHED = controller.config.default_config_paths  # before the fixture replaces it


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No config or data dir from the machine running the tests leaks in."""
    for name in ("PYRAMID_CONFIG", "PYRAMID_DATA_DIR", "STATE_DIRECTORY", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(
        controller.config,
        "default_config_paths",
        lambda: (tmp_path / "xdg-config" / "pyramid-board" / "config.toml",),
    )


def error(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        config_from_toml(text)
    return caught.value


GPIO = '[board]\nadapter = "gpio"\n'


# -- defaults and locations ------------------------------------------------------------------


def test_no_file_gives_the_sim_board_and_the_default_map() -> None:
    config = load_config(None)
    assert config == Config()
    assert config.source is None
    assert config.board.adapter == "sim"
    assert config.board.channel_map == ChannelMap.default()
    assert config.leds.brightness == 0.25
    assert config.seats.hex(0) == "#d62728"
    assert (config.web.host, config.web.port) == ("0.0.0.0", 8080)


def test_an_empty_file_is_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "empty.toml"
    path.write_text("")
    config = load_config(path)
    assert config.board == Config().board
    assert config.source == path


def test_pyramid_config_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "mine.toml"
    path.write_text("[web]\nport = 9000\nnames = ['Pyramid.Fritz.Box.']\n")
    monkeypatch.setenv("PYRAMID_CONFIG", str(path))
    assert find_config() == path
    assert load_config(None).web.port == 9000
    assert load_config(None).web.names == ("pyramid.fritz.box",)


def test_pyramid_config_naming_a_missing_file_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYRAMID_CONFIG", str(tmp_path / "nope.toml"))
    with pytest.raises(ConfigError) as caught:
        load_config(None)
    assert caught.value.key == "PYRAMID_CONFIG"


def test_the_user_config_is_found(tmp_path: Path) -> None:
    path = tmp_path / "xdg-config" / "pyramid-board" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text("[leds]\nbrightness = 0.5\n")
    assert load_config(None).leds.brightness == 0.5


def test_default_search_order_is_documented() -> None:
    paths = SEARCHED()
    assert paths[-1] == Path("/etc/pyramid-board/config.toml")
    assert paths[0].parts[-2:] == ("pyramid-board", "config.toml")


def test_a_missing_named_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "absent.toml")
    assert "no such config file" in str(caught.value)


def test_store_defaults_to_the_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYRAMID_DATA_DIR", str(tmp_path / "data"))
    assert default_data_dir() == tmp_path / "data"
    assert load_config(None).store.path == tmp_path / "data" / "pyramid.sqlite3"
    relative = config_from_toml('[store]\npath = "games/g.sqlite3"\n')
    assert relative.store.path == tmp_path / "data" / "games" / "g.sqlite3"
    absolute = config_from_toml(f'[store]\npath = "{tmp_path}/x.sqlite3"\n')
    assert absolute.store.path == tmp_path / "x.sqlite3"


def test_systemd_state_directory_is_the_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/pyramid-board:/var/lib/other")
    assert default_data_dir() == Path("/var/lib/pyramid-board")


def test_xdg_data_home_is_the_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    assert default_data_dir() == tmp_path / "share" / "pyramid-board"


# -- shipped examples ------------------------------------------------------------------------


def test_every_topology_and_adapter_has_a_shipped_example() -> None:
    names = {path.stem for path in SHIPPED}
    assert {"matrix", "mux", "direct", "sim", "serial"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_shipped_configs_load(path: Path) -> None:
    config = load_config(path)
    assert config.board.adapter == {"sim": "sim", "serial": "serial"}.get(path.stem, "gpio")
    if config.board.adapter == "gpio":
        assert config.board.gpio.topology == path.stem
        # Every named channel exists in the wiring.
        assert config.board.channel_map.channel_count <= config.board.gpio.capacity


def test_matrix_example_puts_ranks_on_rows() -> None:
    config = load_config(ROOT / "configs" / "matrix.toml")
    cmap = config.board.channel_map
    assert cmap.channel("t1") == 5 and cmap.led("e2") == 5
    assert config.board.gpio == GpioConfig()  # the shipped default wiring
    assert [cmap.channel(f"{f}1") for f in "abcde"] == [0, 1, 2, 3, 4]
    assert cmap.channel("c3") == 2 * 6 + 2
    assert cmap.led_count == 37
    assert cmap.led("seat:3") == 36


def test_led_map_follows_the_channels_when_absent() -> None:
    config = config_from_toml(
        '[board.channels]\nt1 = 4\nt2 = 3\nt3 = 2\nt4 = 1\ntop = 0\n"button:undo" = 7\n'
    )
    cmap = config.board.channel_map
    order = [cmap.name_by_led[i] for i in range(cmap.led_count)]
    assert order == ["top", "t4", "t3", "t2", "t1", "button:undo", *SEATS]


# -- errors name the key and the problem -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("[bord]\nadapter = 'sim'", "bord", "unknown key"),
        ("[board]\nadaptor = 'sim'", "board.adaptor", "unknown key"),
        (GPIO + "[board.gpio]\nrowz = [4]", "board.gpio.rowz", "unknown key"),
        ("[board.serial]\nbaud = 9600", "board.serial.baud", "unknown key"),
        ("[board.serial]\nbaudrate = 9600.5", "board.serial.baudrate", "whole number"),
        ("[board.serial]\nport = ' '", "board.serial.port", "pyserial URL"),
        ("[board]\nadapter = 'gpoi'", "board.adapter", "must be one of"),
        ("[board]\nadapter = 3", "board.adapter", "must be text"),
        ("board = 1", "board", "must be a table"),
        ("[web]\nport = '80'", "web.port", "whole number"),
        ("[web]\nport = 70000", "web.port", "from 1 to 65535"),
        ("[web]\nhost = ''", "web.host", "address"),
        ("[web]\nnames = 'pyramid.fritz.box'", "web.names", "list of the host names"),
        ("[web]\nnames = ['evil..example']", "web.names", "is not a host name"),
        ("[leds]\nbrightness = 1.5", "leds.brightness", "from 0 to 1"),
        ("[leds]\nbrightness = true", "leds.brightness", "must be a number"),
        ("[leds]\norder = 'bgrw'", "leds.order", "must be one of"),
        ("[store]\npath = 5", "store.path", "must be text"),
        ("[seats]\ncolours = ['#d62728']", "seats.colours", "must list 4"),
        (
            "[seats]\ncolours = ['red', '#1f77b4', '#f2c500', '#2ca02c']",
            "seats.colours[0]",
            "#d62728",
        ),
        (
            "[seats]\ncolours = ['#d62728', '#1f77b4', '#D62728', '#2ca02c']",
            "seats.colours[2]",
            "already the colour of seat 0",
        ),
    ],
)
def test_bad_values_name_their_key(text: str, key: str, words: str) -> None:
    problem = error(text)
    assert problem.key == key
    assert words in problem.problem
    assert str(problem).startswith(f"{key}: ")


@pytest.mark.parametrize(
    ("gpio", "key", "words"),
    [
        ("rows = [4, 17, 28]", "board.gpio.rows[2]", "GPIO 28 is not on the 40-pin header"),
        ("rows = [1, 17]", "board.gpio.rows[0]", "BCM GPIO 2–27"),
        ("rows = [4, true]", "board.gpio.rows[1]", "BCM GPIO number"),
        ("rows = 4", "board.gpio.rows", "must be a list"),
        ("rows = []", "board.gpio.rows", "must list 1 to 16"),
        (
            "rows = [4, 17]\ncols = [13, 17]",
            "board.gpio.cols[1]",
            "GPIO 17 is already used by board.gpio.rows[1]",
        ),
        (
            "rows = [4, 17]\ncols = [13, 9]",
            "board.gpio.cols[1]",
            "GPIO 9 is already used by leds.spi",
        ),
        ("topology = 'grid'", "board.gpio.topology", "must be one of"),
        ("topology = 'direct'", "board.gpio.pins", "required for topology 'direct'"),
        (
            "topology = 'direct'\npins = [4]\nrows = [5]",
            "board.gpio.rows",
            "belongs to topology matrix",
        ),
        (
            "topology = 'mux'\nselect = [4, 5, 6]\nsignals = [13]",
            "board.gpio.select",
            "must list 4",
        ),
        ("topology = 'mux'\nselect = [4, 5, 6, 12]", "board.gpio.signals", "required"),
        (
            "topology = 'mux'\nselect = [4, 5, 6, 12]\nsignals = [13]\nenable = 4",
            "board.gpio.enable",
            "already used by board.gpio.select[0]",
        ),
        (
            "topology = 'direct'\npins = [2, 4]\nactive = 'high'",
            "board.gpio.pins[0]",
            "fixed 1.8 kΩ pull-up",
        ),
        ("agree = 1", "board.gpio.agree", "from 2 to 16"),
        ("idle_ms = 5\nfast_ms = 6", "board.gpio.fast_ms", "must not be longer than idle_ms"),
        ("idle_ms = 'fast'", "board.gpio.idle_ms", "must be a number"),
    ],
)
def test_bad_wiring_names_its_key(gpio: str, key: str, words: str) -> None:
    problem = error(GPIO + "[board.gpio]\n" + gpio)
    assert problem.key == key
    assert words in problem.problem


def test_pins_are_checked_even_when_another_adapter_is_chosen() -> None:
    problem = error("[board.gpio]\nrows = [30]")
    assert problem.key == "board.gpio.rows[0]"


@pytest.mark.parametrize(
    ("spi", "key", "words"),
    [
        ("spi = { clock = 21, mosi = 20 }", "leds.spi.select", "is required"),
        ("spi = { clock = 11, mosi = 10, select = 12 }", "leds.spi.select", "CE0 (GPIO 8) or CE1"),
        ("spi = { port = 0, clock = 11 }", "leds.spi", "either port and device"),
        ("spi = { port = 1 }", "leds.spi.port", "from 0 to 0"),
        ("spi = { device = 2 }", "leds.spi.device", "from 0 to 1"),
        ("spi = { clock = 21, mosi = 21, select = 12 }", "leds.spi", "three different GPIOs"),
        (
            "spi = { clock = 40, mosi = 20, select = 12 }",
            "leds.spi.clock",
            "not on the 40-pin header",
        ),
        ("spi = { mosi = 10, miso = 9 }", "leds.spi.miso", "unknown key"),
        ("spi = true", "leds.spi", "or false"),
        ("spi = { clock = 21, mosi = 20, select = 12, rate = 5 }", "leds.spi.rate", "from 10000"),
    ],
)
def test_bad_spi_names_its_key(spi: str, key: str, words: str) -> None:
    problem = error(f"[leds]\n{spi}")
    assert problem.key == key
    assert words in problem.problem


def test_spi_forms() -> None:
    ce1 = config_from_toml("[leds]\nspi = { port = 0, device = 1 }").leds.spi
    assert ce1 is not None and (ce1.chip_select, ce1.spidev, ce1.hardware) == (7, 1, True)
    assert SpiConfig(select=7).spidev == 1
    soft = config_from_toml("[leds]\nspi = { clock = 21, mosi = 20, select = 12 }").leds.spi
    assert soft is not None and not soft.hardware
    assert config_from_toml("[leds]\nspi = false").leds.spi is None


def test_software_spi_pins_collide_with_sensors() -> None:
    problem = error(
        GPIO
        + "[board.gpio]\nrows = [4, 17]\ncols = [13, 21]\n"
        + "[leds]\nspi = { clock = 21, mosi = 20, select = 12 }"
    )
    assert problem.key == "board.gpio.cols[1]"
    assert "leds.spi.clock" in problem.problem


def test_channel_map_errors_name_their_key() -> None:
    twice = error("[board.channels]\nt1 = 0\nt2 = 0\nt3 = 2\nt4 = 3\ntop = 4")
    assert twice.key == "board.channels.t2"
    assert "already used by channels.t1" in twice.problem

    cells = "\n".join(f"{name} = {i}" for i, name in enumerate(CELLS) if name != "c3")
    missing = error(f"[board.channels]\n{cells}")
    assert missing.key == "board.channels.c3"
    assert "missing" in missing.problem

    unknown = error("[board.channels]\nf6 = 0")
    assert unknown.key == "board.channels.f6"

    led = error("[board.leds]\n'seat:9' = 0")
    assert led.key == "board.leds.seat:9"


def test_a_cell_named_twice_in_toml_is_a_syntax_error_with_the_file(tmp_path: Path) -> None:
    path = tmp_path / "twice.toml"
    path.write_text("[board.channels]\nc3 = 0\nc3 = 1\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.key == str(path)
    assert "not valid TOML" in caught.value.problem


def test_a_channel_beyond_the_wiring_is_an_error() -> None:
    problem = error(
        GPIO
        + "[board.gpio]\ntopology = 'direct'\npins = [4, 17, 27, 22]\n"
        + "[board.channels]\nt1 = 0\nt2 = 1\nt3 = 2\nt4 = 3\ntop = 4"
    )
    assert problem.key == "board.channels.top"
    assert "channels 0–3" in problem.problem


def test_serial_section_is_read() -> None:
    serial = config_from_toml('[board.serial]\nport = "loop://"\nbaudrate = 921600').board.serial
    assert (serial.port, serial.baudrate) == ("loop://", 921600)
    assert Config().board.serial.port == "auto"


def test_scan_timing_is_read() -> None:
    config = config_from_toml(GPIO + "[board.gpio]\nidle_ms = 10\nfast_ms = 0.5\nagree = 3\n")
    timing = config.board.gpio
    assert (timing.idle_ms, timing.fast_ms, timing.agree) == (10, 0.5, 3)
    assert timing.worst_latency_ms == 11.0
    assert timing.glitch_window_ms == 1.0


def test_every_mistake_is_named_at_once() -> None:
    """Three sections, four mistakes, one run: each with its key, one per line."""
    problem = error(
        "[board]\nadapter = 'gpoi'\n[board.gpio]\nrows = [4, 17, 28]\n"
        "[web]\nport = 0\n[remote]\nname = 'Oma'\n"
    )
    assert isinstance(problem, ConfigErrors)
    keys = [e.key for e in problem.errors]
    assert keys == ["board.adapter", "board.gpio.rows[2]", "web.port", "remote.broker"]
    lines = str(problem).splitlines()
    assert lines[0] == "4 mistakes:"
    assert lines[1:] == [f"  {e.key}: {e.problem}" for e in problem.errors]
    assert "GPIO 28 is not on the 40-pin header" in lines[2]
    assert (problem.key, problem.problem) == (keys[0], problem.errors[0].problem)


def test_every_broken_rule_across_keys_is_named_at_once() -> None:
    """Once every key has its type, the rules across keys report all they find too."""
    problem = error(
        GPIO
        + "[board.gpio]\nrows = [4, 17, 27, 22, 5, 6]\ncols = [13, 19, 26, 16, 17, 4]\n"
        + "[buzzer]\npin = 13\n"
    )
    assert [(e.key, e.problem) for e in problem.errors] == [
        ("board.gpio.cols[4]", "GPIO 17 is already used by board.gpio.rows[1]"),
        ("board.gpio.cols[5]", "GPIO 4 is already used by board.gpio.rows[0]"),
        ("buzzer.pin", "GPIO 13 is already used by board.gpio.cols[0]"),
    ]


def test_one_mistake_reads_as_before() -> None:
    problem = error("[web]\nport = 0\n")
    assert len(problem.errors) == 1
    assert str(problem) == "web.port: must be from 1 to 65535, not 0"


def test_the_command_line_reads_no_schema_until_a_config_is_read() -> None:
    """pydantic costs `pyramid --help` a quarter of a second (docs/performance.md); the
    defaults (no file) are the schema's values too."""
    code = (
        "import sys, pyramid_board.cli as cli; cli.build_parser(); "
        "from controller.config import load_config; print('pydantic' in sys.modules, end=' '); "
        "load_config(None); print('pydantic' in sys.modules, end=' '); "
        "load_config(__import__('pathlib').Path('configs/sim.toml')); "
        "print('pydantic' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
        env={k: v for k, v in os.environ.items() if k != "PYRAMID_CONFIG"},
    )  # fmt: skip
    assert done.stdout.strip() == "False True True"


def test_config_error_is_a_value_error() -> None:
    assert issubclass(ConfigError, ValueError)


def test_config_is_frozen() -> None:
    config = Config()
    with pytest.raises(AttributeError):
        config.board = config.board  # type: ignore[misc]


def test_the_source_is_not_a_key_of_the_file() -> None:
    """``Config.source`` says which file a config came from; a file cannot say it."""
    problem = error('source = "/etc/passwd"\n[board.gpio]\nscan = 1\n')
    assert [(e.key, e.problem.split(" (")[0]) for e in problem.errors] == [
        ("board.gpio.scan", "unknown key"),
        ("source", "unknown key"),
    ]
    assert "board, leds, buzzer, seats, web, store, remote)" in problem.errors[1].problem

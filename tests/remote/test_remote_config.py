"""The ``[remote]`` section of the config file: the broker, its login, and this board's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import ConfigError, RemoteConfig, config_from_toml, load_config


def remote(text: str) -> RemoteConfig | None:
    return config_from_toml("[remote]\n" + text).remote


def test_no_section_is_no_link() -> None:
    assert config_from_toml("").remote is None


def test_a_plain_and_a_tls_broker_with_their_default_ports() -> None:
    plain = remote('broker = "mqtt://192.0.2.7"\nname = "Oma and Opa"')
    assert plain == RemoteConfig(broker="mqtt://192.0.2.7:1883", name="Oma and Opa")
    assert plain is not None and plain.broker == "mqtt://192.0.2.7:1883"
    tls = remote('broker = "mqtts://broker.example.net"\nname = "Tim"\nusername = "tim"\n'
                 'password = "s3cret"')  # fmt: skip
    assert tls is not None and (tls.host, tls.port, tls.tls) == ("broker.example.net", 8883, True)
    assert (tls.username, tls.password) == ("tim", "s3cret")
    assert "s3cret" not in repr(tls)
    six = remote('broker = "mqtts://[::1]:18883"\nname = "Tim"')
    assert six is not None and six.host == "::1" and six.broker == "mqtts://[::1]:18883"


def test_the_ca_file_is_found_beside_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "ca.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    config = tmp_path / "config.toml"
    config.write_text('[remote]\nbroker = "mqtts://h:8883"\nname = "Oma"\nca_file = "ca.pem"\n')
    loaded = load_config(config).remote
    assert loaded is not None and loaded.ca_file == tmp_path / "ca.pem"


@pytest.mark.parametrize(
    ("text", "key", "said"),
    [
        ('name = "Oma"', "remote.broker", "is required, e.g. 'mqtts://"),
        ('broker = "mqtt://h"', "remote.name", "is required"),
        ('broker = "http://h"\nname = "x"', "remote.broker", "must be mqtt://host:port or"),
        ('broker = "h:1883"\nname = "x"', "remote.broker", "must be mqtt://host:port or"),
        ('broker = "mqtt://h:99999"\nname = "x"', "remote.broker", "is not an address"),
        ('broker = "mqtt://h:0"\nname = "x"', "remote.broker", "port 0 is no port"),
        ('broker = "mqtt://u:p@h"\nname = "x"', "remote.broker", "name the user in username"),
        ('broker = "mqtt://h/topic"\nname = "x"', "remote.broker", "just the scheme, host"),
        ('broker = "mqtt://:1883"\nname = "x"', "remote.broker", "names no host"),
        ("broker = 1883\nname = 'x'", "remote.broker", "must be text in quotes"),
        ('broker = "mqtt://h"\nname = ""', "remote.name", "1 to 64 printable"),
        ('broker = "mqtt://h"\nname = "a\\tb"', "remote.name", "1 to 64 printable"),
        ('broker = "mqtt://h"\nname = "x"\npassword = "p"', "remote.password", "needs a user"),
        ('broker = "mqtt://h"\nname = "x"\nusername = ""', "remote.username", "1 to 256"),
        ('broker = "mqtt://h"\nname = "x"\nca_file = "/c"', "remote.ca_file", "for mqtts://"),
        ('broker = "mqtts://h"\nname = "x"\nca_file = "/no/such"', "remote.ca_file",
         "'/no/such' is not a file"),
        ('broker = "mqtt://h"\nname = "x"\nport = 1', "remote.port", "unknown key"),
    ],
)  # fmt: skip
def test_each_mistake_names_its_key(text: str, key: str, said: str) -> None:
    with pytest.raises(ConfigError) as raised:
        remote(text)
    assert raised.value.key == key
    assert said in str(raised.value)


def test_remote_must_be_a_table() -> None:
    with pytest.raises(ConfigError, match="remote: must be a table"):
        config_from_toml('remote = "mqtt://h"')

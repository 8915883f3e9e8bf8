"""The pure cores of the page's limits, in virtual time: wrong PINs, Host names, a
device's connections and requests (tests/web/test_attacks.py runs them on waitress)."""

from __future__ import annotations

import pytest

from web_ui.connections import over_limit, too_slow
from web_ui.hosts import allowed, split_host
from web_ui.security import Guard, Limits, admit, device_of, succeeded, wait_of

LIMITS = Limits(free=3, base=1.0, cap=900.0, burst=10, per_hour=10.0, lockout=100)


def tries(guard: Guard, device: str, now: float, count: int) -> tuple[Guard, list[bool]]:
    allowed_ = []
    for _ in range(count):
        guard, verdict = admit(guard, LIMITS, device, now, wrong_so_far=0)
        allowed_.append(verdict.allowed)
    return guard, allowed_


def test_a_device_gets_three_free_then_waits_doubling_up_to_the_cap() -> None:
    guard, answers = tries(Guard(), "10.0.0.7", 0.0, 6)
    assert answers == [True, True, True, True, False, False]
    assert wait_of(guard, "10.0.0.7", 0.0) == 1
    waits = []
    now = 0.0
    for _ in range(12):
        now += wait_of(guard, "10.0.0.7", now)
        guard, verdict = admit(guard, LIMITS, "10.0.0.7", now, wrong_so_far=0)
        assert verdict.allowed
        waits.append(wait_of(guard, "10.0.0.7", now))
        guard = Guard(guard.devices, None, now)  # a full bucket: only the device counts
    assert waits[:6] == [2, 4, 8, 16, 32, 64] and max(waits) == 900


def test_all_devices_share_ten_then_ten_an_hour() -> None:
    guard = Guard()
    checked = 0
    for n in range(100):
        guard, answers = tries(guard, f"10.0.1.{n}", 0.0, 3)
        checked += sum(answers)
    assert checked == 10
    guard, verdict = admit(guard, LIMITS, "10.0.2.1", 0.0, wrong_so_far=10)
    assert not verdict.allowed and verdict.retry_after == 360
    guard, verdict = admit(guard, LIMITS, "10.0.2.1", 360.0, wrong_so_far=10)
    assert verdict.allowed  # one back after 6 minutes
    guard, verdict = admit(guard, LIMITS, "10.0.2.2", 360.0, wrong_so_far=11)
    assert not verdict.allowed


def test_a_right_pin_gives_its_try_back_and_clears_its_device() -> None:
    guard, _ = tries(Guard(), "10.0.0.7", 0.0, 4)
    guard = succeeded(guard, LIMITS, "10.0.0.7", 0.0)
    assert wait_of(guard, "10.0.0.7", 0.0) == 0 and guard.tokens == 7.0


def test_the_lockout_refuses_even_a_fresh_device_with_a_full_bucket() -> None:
    guard, verdict = admit(Guard(), LIMITS, "10.0.0.7", 0.0, wrong_so_far=100)
    assert verdict.locked_out and not verdict.allowed and guard == Guard()


def test_a_device_is_forgotten_after_a_day_and_the_oldest_when_too_many() -> None:
    guard, _ = tries(Guard(), "10.0.0.7", 0.0, 5)
    day = LIMITS.forget_after + 1
    guard, verdict = admit(Guard(guard.devices), LIMITS, "10.0.0.7", day, wrong_so_far=0)
    assert verdict.allowed and guard.devices["10.0.0.7"].failures == 1
    few = Limits(max_devices=2)
    guard = Guard()
    for device in ("a", "b", "c"):
        guard, _verdict = admit(guard, few, device, 0.0, wrong_so_far=0)
    assert list(guard.devices) == ["b", "c"]


@pytest.mark.parametrize(
    ("address", "device"),
    [
        ("192.0.2.7", "192.0.2.7"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("not an address", "not an address"),
        ("", "unknown"),
    ],
)
def test_a_device_is_an_ipv4_address_or_an_ipv6_64(address: str, device: str) -> None:
    assert device_of(address) == device


@pytest.mark.parametrize(
    ("host", "ok"),
    [
        ("pyramid.local", True),
        ("Pyramid.Local.:8080", True),
        ("kitchen", True),
        ("localhost:8080", True),
        ("127.0.0.1", True),
        ("[::1]:8080", True),
        ("192.168.1.23:8080", True),  # the address the request arrived on
        ("192.168.1.24", False),
        ("attacker.example", False),
        ("pyramid.local.attacker.example", False),
        ("kitchen.attacker.example", False),
        ("", False),
        (":8080", False),
    ],
)
def test_only_the_boards_own_names(host: str, ok: bool) -> None:
    assert allowed(host, own={"kitchen"}, local_address="192.168.1.23") is ok


def test_a_hosts_port_and_brackets_come_off() -> None:
    assert split_host("[2001:DB8::1]:8080") == "2001:db8::1"
    assert split_host("Pyramid.local:8080") == "pyramid.local"
    assert split_host("2001:db8::1") == "2001:db8::1"


def test_a_devices_connections_and_a_requests_deadline() -> None:
    assert not over_limit(15, 16) and over_limit(16, 16)
    assert not too_slow(None, 100.0, 10.0)
    assert not too_slow(90.0, 100.0, 10.0) and too_slow(89.9, 100.0, 10.0)

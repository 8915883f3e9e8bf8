"""Only the board's own names: a request whose Host is any other name gets 400.

A web page someone at home opens could otherwise point its own name at the board's
address (DNS rebinding) and then read every page and the API as if it were the board's,
and try PINs from that person's browser. Such a request still carries the attacker's
name in its Host, so the page answers only to names that are the board's own:

- this machine's host name, with or without ``.local`` (and any ``*.local``: mDNS names
  are the home network's own, no web page can make a browser resolve one to the board);
- ``localhost``;
- an address literal that is loopback, or the address the request arrived on (the
  machine's own; waitress tells it, :mod:`web_ui.server`), or the address the page is
  bound to;
- the names in the config's ``[web] names`` (a router's name for the board, such as
  ``pyramid.fritz.box``).

A request without a Host (HTTP/1.0 from a script) is let through: no browser sends one.

>>> allowed("pyramid.local:8080", own=("pyramid",), local_address=None)
True
>>> allowed("attacker.example", own=("pyramid",), local_address=None)
False
>>> allowed("[::1]:8080", own=(), local_address=None)
True
>>> allowed("10.0.0.5", own=(), local_address="10.0.0.5")  # the address it arrived on
True
>>> allowed("10.0.0.6", own=(), local_address="10.0.0.5")
False
>>> allowed("10.0.0.5", own=(), local_address="::ffff:10.0.0.5")
True
>>> own = own_names(["pyramid.fritz.box"], "0.0.0.0")  # [web] names, every address
>>> allowed("pyramid.fritz.box", own=own, local_address=None)
True
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Collection

from flask import abort, request
from flask_babel import gettext

from web_ui.state import web_state

LOCAL_ADDRESS = "pyramid.local_address"
"""The WSGI environ key of the address the request arrived on (:mod:`web_ui.server`)."""


def split_host(host: str) -> str:
    """The name or address of a Host header, without its port, lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def allowed(host: str, *, own: Collection[str], local_address: str | None) -> bool:
    """Whether ``host`` (a Host header) names this board; ``own`` are its names."""
    name = split_host(host)
    if not name:
        return False
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return name == "localhost" or name.endswith(".local") or name in own
    if address.is_loopback or name in own:  # the bound address is one of ``own``
        return True
    if local_address is None:
        return False
    try:
        local = ipaddress.ip_address(local_address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(local, ipaddress.IPv6Address) and local.ipv4_mapped is not None:
        local = local.ipv4_mapped  # a dual-stack socket's IPv4 peer
    return address == local


def own_names(configured: Collection[str], bound: str | None) -> frozenset[str]:
    """This board's names: the machine's host name (short and ``.local``), the configured
    ones and the bound address (unless every address)."""
    hostname = socket.gethostname().lower().rstrip(".")
    names = {hostname, hostname.split(".", 1)[0], *configured}
    if bound and bound not in ("0.0.0.0", "::", ""):
        names.add(bound.lower())
    return frozenset(n for n in names if n)


def check_host() -> None:
    """Before every request: 400 unless the Host names this board."""
    host = request.environ.get("HTTP_HOST")
    if host is None:
        return
    web = web_state()
    local = request.environ.get(LOCAL_ADDRESS)
    if allowed(host, own=web.host_names, local_address=local):
        return
    abort(
        400,
        gettext(
            "This board does not answer to the name %(host)s. Open it by its own name or "
            "address, or add the name to “names” in the [web] section of its config file.",
            host=split_host(host)[:100] or "?",
        ),
    )

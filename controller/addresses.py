"""Where on the home network the page can be opened: this machine's addresses and the
page's URLs at them (``pyramid run``'s ready box and ``pyramid label`` say the same)."""

from __future__ import annotations

import fcntl
import socket
import struct

SIOCGIFADDR = 0x8915
"""Linux ioctl: the IPv4 address of a network interface."""


def interface_addresses() -> list[str]:
    """IPv4 addresses of this machine's network interfaces, loopback last."""
    found: list[str] = []
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        names = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for name in names:
            request = struct.pack("256s", name.encode()[:15])
            try:
                reply = fcntl.ioctl(probe.fileno(), SIOCGIFADDR, request)
            except OSError:
                continue  # an interface without an IPv4 address (or down)
            address = socket.inet_ntoa(reply[20:24])
            if address not in found:
                found.append(address)
    if not found:
        try:
            infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        except OSError:
            infos = []
        found = sorted({str(info[4][0]) for info in infos})
    return sorted(found, key=lambda a: (a.startswith("127."), a))


WILDCARDS = ("0.0.0.0", "", "::")
"""Hosts that mean every address of the machine."""


def page_url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def page_urls(host: str, port: int) -> list[str]:
    """Where people on the home network can open the page.

    >>> page_urls("192.168.1.20", 8080)
    ['http://192.168.1.20:8080/']
    """
    if host not in WILDCARDS:
        return [page_url(host, port)]
    urls = [f"http://{socket.gethostname()}.local:{port}/"]
    urls += [page_url(address, port) for address in interface_addresses()]
    return urls

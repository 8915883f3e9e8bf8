"""A real Mosquitto broker for the tests: on a free loopback port, its config in a temporary
folder, stopped and started again on the same port when a test says so.

Missing Mosquitto skips the test with the package to install, and fails it under CI=true
(.ci/run installs it), as the firmware tests do for the emulator.
"""

from __future__ import annotations

import datetime
import functools
import getpass
import os
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from rigs.poll import wait_until


def find_mosquitto() -> str:
    """The broker's path, or skip (fail in CI) saying what to install."""
    found = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/sbin")
    if found is None:
        problem = "mosquitto is not installed: apt-get install mosquitto"
        if os.environ.get("CI") == "true":
            pytest.fail(f"the broker tests cannot run in CI: {problem}")
        pytest.skip(problem)
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class Tls:
    """A CA made for one test, and the broker's certificate for ``localhost`` signed by it."""

    ca_file: Path
    cert_file: Path
    key_file: Path

    @classmethod
    def make(cls, folder: Path) -> Tls:
        now = datetime.datetime.now(datetime.UTC)
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pyramid-board test CA")])
        ca = (
            x509.CertificateBuilder()
            .subject_name(ca_name)
            .issuer_name(ca_name)
            .public_key(ca_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(
                x509.KeyUsage(False, False, False, False, False, True, True, False, False),
                critical=True,
            )
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
            .sign(ca_key, hashes.SHA256())
        )
        key = ec.generate_private_key(ec.SECP256R1())
        server = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
            )
            .add_extension(x509.ExtendedKeyUsage([x509.OID_SERVER_AUTH]), False)
            .sign(ca_key, hashes.SHA256())
        )
        tls = cls(folder / "ca.pem", folder / "server.pem", folder / "server.key")
        tls.ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
        tls.cert_file.write_bytes(server.public_bytes(serialization.Encoding.PEM))
        tls.key_file.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        return tls


class Mosquitto:
    """One broker process on 127.0.0.1 (no persistence: a restart forgets every session and
    retained message, the worst a home server's restart can do)."""

    def __init__(
        self,
        folder: Path,
        *,
        tls: Tls | None = None,
        users: dict[str, str] | None = None,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.binary = find_mosquitto()
        self.folder = folder
        self.port = free_port()
        self.log = folder / "mosquitto.log"
        self.config = folder / "mosquitto.conf"
        self.settings = [
            "persistence false",
            *extra,
            f"user {getpass.getuser()}",  # as root it would switch to 'mosquitto' otherwise
        ]
        if users:
            passwords = folder / "passwords"
            passwords.write_text("".join(f"{u}:{p}\n" for u, p in users.items()))
            subprocess.run(["mosquitto_passwd", "-U", str(passwords)], check=True)
            self.settings += ["allow_anonymous false", f"password_file {passwords}"]
        else:
            self.settings.append("allow_anonymous true")
        if tls is not None:
            self.settings += [f"cafile {tls.ca_file}", f"certfile {tls.cert_file}",
                              f"keyfile {tls.key_file}"]  # fmt: skip
        self.process: subprocess.Popen[bytes] | None = None
        self.started = False

    def start(self) -> None:
        """Start the broker; the first start takes another free port should someone else
        have taken this one meanwhile (the machine is shared), a restart keeps its port."""
        for _ in range(5):
            lines = [f"listener {self.port} 127.0.0.1", *self.settings]
            self.config.write_text("\n".join(lines) + "\n")
            with self.log.open("ab") as log:
                offset = log.tell()
                self.process = subprocess.Popen(
                    [self.binary, "-c", str(self.config)], stdout=log, stderr=subprocess.STDOUT
                )
            said = wait_until(
                functools.partial(self._said, offset), 10.0, interval=0.02, what=self._tail
            )
            if said == "running":
                self.started = True
                return
            if self.started or "in use" not in self._tail():
                break
            self.port = free_port()
        raise AssertionError(f"mosquitto ended: {self._tail()}")

    def _tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:]

    def _said(self, offset: int) -> str | None:
        """'running' once this start's listeners are open (Mosquitto logs it after binding
        them), 'ended' if the process ended first."""
        with self.log.open("rb") as log:
            log.seek(offset)
            if b" running" in log.read():
                return "running"
        assert self.process is not None
        return "ended" if self.process.poll() is not None else None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self.process = None

    def __enter__(self) -> Mosquitto:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

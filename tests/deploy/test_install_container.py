"""deploy/install-pi.sh on a booted Debian 12 and 13, as a maker runs it (``make test-install``).

Debian 12 and 13 (amd64; what Raspberry Pi OS Bookworm and Trixie are built on, with
Python 3.11 and 3.13) are each debootstrapped once into a
cache folder keyed by its inputs (``PYRAMID_CACHE_DIR``, default
``~/.cache/pyramid-board``), copied, and booted with systemd as PID 1 in a container
(``systemd-nspawn --boot``), set up as the Raspberry Pi Imager leaves a card: the host
name ``raspberrypi``, a first user ``maker`` with sudo, python3. The project's files go
into the maker's home as a release archive would put them. Then, as docs/raspberry-pi.md
says: ``sudo deploy/install-pi.sh`` (with a config whose page listens on loopback only,
on a free port: the container shares this machine's network, which the install needs for
Debian's archive and PyPI), the page opened, the PIN the installer showed unlocks it,
the host name set, the unit's ``systemd-analyze security`` score, a crash restarted, a
reboot (the service comes back), the PIN changed with the guide's command, a re-run with
nothing changed (no download: pip is told there is no index, and apt is not run), a
broken config (the unit fails at once with the reason in ``systemctl status``).

It needs root, systemd-nspawn and debootstrap (packages systemd-container, debootstrap)
and the network to Debian's archive and PyPI; it skips, saying why, without them, and
runs only when ``PYRAMID_INSTALL_TEST=1`` (``make test-install`` sets it; the figures go
to test-artifacts/install/summary.txt).
"""

from __future__ import annotations

import hashlib
import http.cookiejar
import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from rigs.poll import wait_until

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "install"
SUITES = ("bookworm", "trixie")
"""Debian 12 (Raspberry Pi OS Bookworm's base, Python 3.11) and 13 (Trixie's, Python 3.13)."""
MIRROR = os.environ.get("PYRAMID_DEBIAN_MIRROR", "http://deb.debian.org/debian")
# What Raspberry Pi OS Lite has and a minimal Debian lacks: systemd booting it, sudo for
# the first user, python3, certificates for PyPI.
INCLUDE = ("systemd", "systemd-sysv", "dbus", "sudo", "ca-certificates", "python3")
TREE_VERSION = "1"
"""Bump when the tree's preparation below changes (it is part of the cache key)."""
BOOT_PATIENCE = 180.0
INSTALL_PATIENCE = 1200.0
RUN_PATIENCE = 120.0
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

pytestmark = pytest.mark.skipif(
    os.environ.get("PYRAMID_INSTALL_TEST") != "1",
    reason="the container install test runs with `make test-install` (PYRAMID_INSTALL_TEST=1)",
)


def why_not() -> str | None:
    """Why this machine cannot run the test, or None."""
    if os.geteuid() != 0:
        return "needs root (debootstrap, systemd-nspawn)"
    for tool, package in (("systemd-nspawn", "systemd-container"), ("debootstrap", "debootstrap")):
        if shutil.which(tool) is None:
            return f"needs {tool} (apt-get install {package})"
    return None


def cache_dir() -> Path:
    base = os.environ.get("PYRAMID_CACHE_DIR") or Path.home() / ".cache" / "pyramid-board"
    return Path(base)


def base_tree(suite: str) -> Path:
    """The debootstrapped tree for these inputs, made once (a half-made one is thrown away)."""
    key = hashlib.sha256(
        "\n".join([suite, "amd64", MIRROR, *INCLUDE, TREE_VERSION]).encode()
    ).hexdigest()[:16]
    tree = cache_dir() / f"debian-{suite}-{key}"
    if (tree / ".complete").exists():
        return tree
    partial = tree.with_name(tree.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    include = f"--include={','.join(INCLUDE)}"
    done = subprocess.run(
        ["debootstrap", "--variant=minbase", include, suite, str(partial), MIRROR],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"debootstrap failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    (partial / ".complete").write_text("debootstrap " + " ".join(INCLUDE) + "\n")
    shutil.rmtree(tree, ignore_errors=True)
    partial.rename(tree)
    return tree


def prepare(root: Path, port: int) -> None:
    """What the Raspberry Pi Imager leaves on a card, and the project's files in the home."""
    (root / "etc" / "hostname").write_text("raspberrypi\n")
    (root / "etc" / "hosts").write_text("127.0.0.1\tlocalhost\n127.0.1.1\traspberrypi\n")
    # No serial getty or the like waiting for a console: the container has none.
    (root / "etc" / "machine-id").write_text("")
    chroot = ["chroot", str(root)]
    subprocess.run(
        [*chroot, "useradd", "--create-home", "--groups", "sudo", "--shell", "/bin/bash", "maker"],
        check=True,
        timeout=60,
    )
    (root / "etc" / "sudoers.d" / "010_maker-nopasswd").write_text(
        "maker ALL=(ALL) NOPASSWD: ALL\n"
    )
    # The certificate authorities this machine adds to Debian's (a proxy's, where its
    # network has one) are trusted inside too, or pip could not reach PyPI from there.
    for authority in Path("/usr/local/share/ca-certificates").glob("*.crt"):
        shutil.copy(authority, root / "usr" / "local" / "share" / "ca-certificates")
    subprocess.run(
        [*chroot, "update-ca-certificates"], capture_output=True, check=True, timeout=120
    )
    home = root / "home" / "maker"
    checkout = home / "pyramid-board"
    # What a commit of this working tree would hold: the tracked files and the new ones.
    listed = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    files = subprocess.run(listed, cwd=ROOT, capture_output=True, check=True, timeout=60).stdout
    archive = subprocess.run(
        ["tar", "--null", "--ignore-failed-read", "-T", "-", "-c", "-f", "-"],
        cwd=ROOT,
        input=files,
        capture_output=True,
        check=True,
        timeout=300,
    ).stdout
    checkout.mkdir()
    subprocess.run(["tar", "-x", "-C", str(checkout)], input=archive, check=True, timeout=300)
    # The page on loopback and a free port: the container shares this machine's network.
    serial = (ROOT / "configs" / "serial.toml").read_text()
    (home / "loopback.toml").write_text(serial + f'\n[web]\nhost = "127.0.0.1"\nport = {port}\n')
    subprocess.run([*chroot, "chown", "-R", "maker:maker", "/home/maker"], check=True, timeout=120)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Container:
    """A booted container: systemd as PID 1, commands run inside with nsenter."""

    def __init__(self, root: Path, log: Path, suite: str) -> None:
        self.suite = suite
        self.root = root
        self.log = log
        self.name = f"pyramid-{uuid.uuid4().hex[:8]}"
        self.nspawn: subprocess.Popen[bytes] | None = None
        self.boots = 0

    def boot(self) -> None:
        with self.log.open("ab") as log:
            self.nspawn = subprocess.Popen(
                # --keep-unit --register=no: no systemd or machined needed on this machine;
                # a reboot inside ends systemd-nspawn with status 133 (see reboot()).
                [
                    *("systemd-nspawn", "--quiet", "--boot", "--keep-unit", "--register=no"),
                    *(f"--machine={self.name}", f"--directory={self.root}", "--console=pipe"),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.boots += 1
        wait_until(
            lambda: self._state() in ("running", "degraded"),
            BOOT_PATIENCE,
            interval=0.5,
            what=lambda: f"the container did not boot: {self._state()!r}; {self._log_tail()}",
        )

    def leader(self) -> int | None:
        """systemd's PID (the container's PID 1) as this machine sees it."""
        if self.nspawn is None or self.nspawn.poll() is not None:
            return None
        for task in Path(f"/proc/{self.nspawn.pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                if Path(f"/proc/{child}/comm").read_text().strip() == "systemd":
                    return int(child)
        return None

    def _state(self) -> str:
        if self.leader() is None:
            return "not started"
        done = self.run(["systemctl", "is-system-running"], check=False, timeout=30)
        return done.stdout.strip()

    def _log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:]

    def run(
        self,
        argv: Sequence[str],
        *,
        check: bool = True,
        timeout: float = RUN_PATIENCE,
        user: str | None = None,
        cwd: str = "/",
        env: dict[str, str] | None = None,
        stdin: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        leader = self.leader()
        assert leader is not None, f"the container is not running; {self._log_tail()}"
        home = "/root" if user is None else f"/home/{user}"
        environment = {"PATH": PATH, "HOME": home, "LANG": "C.UTF-8", **(env or {})}
        inner = ["env", "-i", *(f"{k}={v}" for k, v in environment.items())]
        if user is not None:
            inner = ["runuser", "-u", user, "--", *inner]
        done = subprocess.run(
            ["nsenter", f"--target={leader}", "--all", "--root", f"--wdns={cwd}", *inner, *argv],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout[-4000:]}\n"
                f"{done.stderr[-4000:]}"
            )
        return done

    def reboot(self) -> None:
        """``systemctl reboot`` inside; systemd-nspawn ends with 133 and is started again,
        as systemd-nspawn@.service does."""
        assert self.nspawn is not None
        self.run(["systemctl", "reboot"], check=False)
        status = self.nspawn.wait(timeout=BOOT_PATIENCE)
        assert status == 133, f"systemd-nspawn ended with {status}, not 133 (reboot)"
        self.boot()

    def stop(self) -> None:
        if self.nspawn is None or self.nspawn.poll() is not None:
            return
        self.run(["systemctl", "poweroff"], check=False, timeout=30)
        try:
            self.nspawn.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.nspawn.kill()
            self.nspawn.wait(timeout=30)


@pytest.fixture(scope="module")
def port() -> int:
    return free_port()


@pytest.fixture(scope="module", params=SUITES)
def container(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, port: int
) -> Iterator[Container]:
    reason = why_not()
    if reason:
        message = f"the container install test cannot run here: {reason}"
        if os.environ.get("CI") == "true":  # .ci/run installs what it needs: CI runs it
            pytest.fail(message)
        pytest.skip(message)
    suite: str = request.param
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    tree = base_tree(suite)
    record(f"{suite}: debootstrap (or the cached tree)", f"{time.monotonic() - started:.0f} s")
    work = Path(tmp_path_factory.mktemp("install")) / "root"
    # The work tree sits beside the cached one, on the same file system: a quick copy.
    subprocess.run(["cp", "-a", "--reflink=auto", str(tree), str(work)], check=True, timeout=900)
    prepare(work, port)
    running = Container(work, ARTIFACTS / f"container-{suite}.log", suite)
    running.log.write_bytes(b"")
    try:
        running.boot()
        yield running
    finally:
        running.stop()
        shutil.rmtree(work, ignore_errors=True)


FIGURES: dict[str, str] = {}


def record(what: str, value: str) -> None:
    """A figure for the report (test-artifacts/install/summary.txt)."""
    FIGURES[what] = value
    print(f"figure: {what}: {value}")  # shown by `make test-install` (pytest -rA)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    lines = [f"{k}: {v}" for k, v in FIGURES.items()]
    (ARTIFACTS / "summary.txt").write_text("\n".join(lines) + "\n")


class Browser:
    """A phone's view of the page: one cookie jar, the CSRF token of its session."""

    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        self.token = ""

    def get(self, path: str) -> tuple[int, str]:
        with self.opener.open(self.url + path, timeout=10) as answer:
            return answer.status, answer.read().decode()

    def session(self) -> dict[str, object]:
        status, body = self.get("/api/session")
        assert status == 200
        answer: dict[str, object] = json.loads(body)
        self.token = str(answer["csrf_token"])
        return answer

    def unlock(self, pin: str) -> int:
        self.session()
        request = urllib.request.Request(
            self.url + "/api/unlock",
            data=json.dumps({"pin": pin}).encode(),
            headers={"Content-Type": "application/json", "X-CSRFToken": self.token},
            method="POST",
        )
        try:
            with self.opener.open(request, timeout=10) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as error:
            return error.code


def page_answers(port: int) -> bool:
    try:
        status, body = Browser(port).get("/")
    except OSError:
        return False
    return status == 200 and "<html" in body.lower()


def service(container: Container, prop: str) -> str:
    done = container.run(["systemctl", "show", "--value", f"--property={prop}", "pyramid-board"])
    return done.stdout.strip()


PINS: dict[str, str] = {}
"""The PIN each suite's first install showed."""


def test_the_guides_install_on_a_fresh_system(container: Container, port: int) -> None:
    started = time.monotonic()
    done = container.run(
        ["sudo", "deploy/install-pi.sh", "--config", "/home/maker/loopback.toml"],
        user="maker",
        cwd="/home/maker/pyramid-board",
        timeout=INSTALL_PATIENCE,
    )
    record(
        f"{container.suite}: first install (apt, pip from PyPI, the page answering)",
        f"{time.monotonic() - started:.0f} s",
    )
    (ARTIFACTS / f"install-{container.suite}.txt").write_text(done.stdout + done.stderr)
    pin = re.search(r"ADMIN PIN for the page: (\d{6})", done.stdout)
    assert pin, done.stdout
    PINS[container.suite] = pin.group(1)
    assert "WRITE IT DOWN NOW" in done.stdout
    assert f"http://127.0.0.1:{port}/" in done.stdout
    # The host name Raspberry Pi OS starts with is replaced (two such Pis clash).
    assert container.run(["hostname"]).stdout.strip() == "pyramid"
    assert "127.0.1.1\tpyramid" in container.run(["cat", "/etc/hosts"]).stdout
    # A Pico build: no lgpio, no build tools.
    packages = container.run(["dpkg-query", "-W", "-f=${Package}\\n"]).stdout.split()
    assert "python3-venv" in packages
    assert not {"python3-dev", "swig", "python3-lgpio"} & set(packages)
    assert service(container, "ActiveState") == "active"
    assert service(container, "User") == "pyramid"
    # No udevd in a container: the rule is in place all the same, for the next boot.
    assert "udev is not running here" in done.stdout
    container.run(["test", "-f", "/etc/udev/rules.d/99-pyramid-board.rules"])
    label = container.run(["cat", "/home/maker/pyramid-label.html"]).stdout
    assert label.count("<svg") == 1 and f"http://127.0.0.1:{port}/" in label


def test_the_page_answers_and_the_shown_pin_unlocks_it(container: Container, port: int) -> None:
    shown = PINS.get(container.suite)
    assert shown, "the install did not run"
    wait_until(lambda: page_answers(port), 30, interval=0.2, what="the page")
    phone = Browser(port)
    assert phone.unlock("000000" if shown != "000000" else "111111") == 403
    assert Browser(port).unlock(shown) == 200


def test_the_unit_is_hardened(container: Container) -> None:
    done = container.run(["systemd-analyze", "security", "--no-pager", "pyramid-board.service"])
    level = re.search(
        r"Overall exposure level for pyramid-board.service: ([\d.]+) (\w+)", done.stdout
    )
    assert level, done.stdout
    record(
        f"{container.suite}: systemd-analyze security (booted)",
        f"{level.group(1)} {level.group(2)}",
    )
    assert level.group(2) in ("OK", "SAFE", "PERFECT"), done.stdout
    # It runs unprivileged, with no capabilities, the root file system read-only.
    pid = service(container, "MainPID")
    status = container.run(["cat", f"/proc/{pid}/status"]).stdout
    assert re.search(r"^CapEff:\s+0+$", status, re.M), status
    assert re.search(r"^CapBnd:\s+0+$", status, re.M), status


def test_a_crash_is_restarted(container: Container, port: int) -> None:
    before = service(container, "MainPID")
    kill = ["systemctl", "kill", "--kill-whom=main", "--signal=SIGSEGV", "pyramid-board"]
    container.run(kill)
    wait_until(
        lambda: (
            service(container, "MainPID") not in ("0", before)
            and service(container, "ActiveState") == "active"
        ),
        60,
        interval=0.5,
        what=lambda: container.run(["systemctl", "status", "pyramid-board"], check=False).stdout,
    )
    wait_until(lambda: page_answers(port), 60, interval=0.5, what="the page after the crash")


def test_the_service_comes_back_after_a_reboot(container: Container, port: int) -> None:
    boots = container.boots
    container.reboot()
    assert container.boots == boots + 1
    wait_until(
        lambda: service(container, "ActiveState") == "active" and page_answers(port),
        120,
        interval=0.5,
        what=lambda: container.run(["systemctl", "status", "pyramid-board"], check=False).stdout,
    )
    assert container.run(["hostname"]).stdout.strip() == "pyramid"  # kept across the reboot


def test_the_guides_pin_command_sets_a_new_pin(container: Container, port: int) -> None:
    new = "24680135"
    # As the guide and the installer say: sudo -u pyramid pyramid pin --config ...
    done = container.run(
        ["sudo", "-u", "pyramid", "pyramid", "pin", "--config", "/etc/pyramid-board/config.toml"],
        user="maker",
        cwd="/home/maker",
        stdin=new + "\n",
    )
    assert "Admin PIN changed" in done.stdout, done.stdout + done.stderr
    # The service's own box in its log names the same command.
    log = container.run(["journalctl", "--no-pager", "-u", "pyramid-board"]).stdout
    assert "`sudo -u pyramid pyramid pin --config /etc/pyramid-board/config.toml`" in log, log
    assert Browser(port).unlock(new) == 200
    assert Browser(port).unlock(PINS[container.suite]) == 403


def test_a_rerun_with_nothing_changed_downloads_nothing(container: Container, port: int) -> None:
    started = time.monotonic()
    done = container.run(
        # No index for pip: a re-run that needed PyPI would fail here.
        ["deploy/install-pi.sh"],
        cwd="/home/maker/pyramid-board",
        env={"PIP_NO_INDEX": "1"},
        timeout=INSTALL_PATIENCE,
    )
    record(
        f"{container.suite}: re-run with nothing changed (no index, no apt)",
        f"{time.monotonic() - started:.0f} s",
    )
    (ARTIFACTS / f"rerun-{container.suite}.txt").write_text(done.stdout + done.stderr)
    assert "+ apt-get" not in done.stdout
    assert "all there: python3-venv" in done.stdout
    assert "kept the existing /etc/pyramid-board/config.toml" in done.stdout
    assert "set before (not shown again)" in done.stdout and "ADMIN PIN" not in done.stdout
    # The other build's config is never put in place silently: it says how to switch.
    other = container.run(
        ["deploy/install-pi.sh", "--config", "configs/matrix.toml"],
        cwd="/home/maker/pyramid-board",
        env={"PIP_NO_INDEX": "1"},
        timeout=INSTALL_PATIENCE,
    )
    assert "KEPT the existing /etc/pyramid-board/config.toml" in other.stdout
    assert "--config configs/matrix.toml --replace-config" in other.stdout
    assert port == int(
        re.search(
            r"port = (\d+)", container.run(["cat", "/etc/pyramid-board/config.toml"]).stdout
        ).group(1)  # type: ignore[union-attr]
    )
    wait_until(lambda: page_answers(port), 60, interval=0.5, what="the page after the re-run")


def test_replace_config_switches_and_keeps_the_old_one(container: Container, port: int) -> None:
    config = "/etc/pyramid-board/config.toml"
    before = container.run(["cat", config]).stdout
    container.run(
        ["sh", "-c", "sed 's/^brightness = .*/brightness = 0.5/' loopback.toml > brighter.toml"],
        cwd="/home/maker",
    )
    done = container.run(
        ["deploy/install-pi.sh", "--config", "/home/maker/brighter.toml", "--replace-config"],
        cwd="/home/maker/pyramid-board",
        env={"PIP_NO_INDEX": "1"},
        timeout=INSTALL_PATIENCE,
    )
    assert f"replacing {config} with /home/maker/brighter.toml" in done.stdout
    assert container.run(["cat", config + ".old"]).stdout == before
    now = container.run(["cat", config]).stdout
    assert "brightness = 0.5" in now and 'path = "/var/lib/pyramid-board/pyramid.sqlite3"' in now
    wait_until(lambda: page_answers(port), 60, interval=0.5, what="the page after the switch")


def test_a_broken_config_fails_the_unit_with_its_reason(container: Container) -> None:
    container.run(
        [
            "sh",
            "-c",
            "printf '\\n[board]\\nadapter = \"gpoi\"\\n' >> /etc/pyramid-board/config.toml",
        ]
    )
    container.run(["systemctl", "restart", "pyramid-board"], check=False)
    wait_until(
        lambda: service(container, "ActiveState") == "failed",
        60,
        interval=0.5,
        what=lambda: container.run(["systemctl", "status", "pyramid-board"], check=False).stdout,
    )
    status = container.run(
        ["systemctl", "status", "--no-pager", "--lines=20", "pyramid-board"], check=False
    ).stdout
    assert "status=2" in status, status
    assert "pyramid run: config:" in status, status
    assert service(container, "NRestarts") == "0"  # not restarted: fixing the file is the way

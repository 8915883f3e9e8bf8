#!/usr/bin/env bash
# Install pyramid-board as a service on a Raspberry Pi (Raspberry Pi OS, any Pi with the
# 40-pin header, Pi 5 included). Run from a checkout of the project:
#
#   sudo deploy/install-pi.sh [--config configs/serial.toml] [--dry-run]
#
# What it does (each step is safe to repeat):
#   1. installs python3-venv and Debian's python3-lgpio (Raspberry Pi OS has it); where
#      the distribution has no python3-lgpio, the lgpio C library and swig for pip;
#   2. creates a venv in $PREFIX/venv (seeing the system's lgpio), installs this
#      checkout, and links the `pyramid` command into /usr/local/bin;
#   3. creates the system user `pyramid` in the groups gpio, spi and dialout (creating
#      any group the system lacks, with a udev rule that gives it its devices);
#   4. gives it a writable working directory, /var/lib/pyramid-board;
#   5. puts a config in /etc/pyramid-board/config.toml (never overwrites one) that names
#      the service's game store, so `pyramid pin` finds it; enables SPI0 when the
#      config's LEDs need it;
#   6. installs and enables the systemd unit, and starts it (after a reboot, if SPI0
#      only comes up then).
set -euo pipefail

PREFIX=/opt/pyramid-board
SERVICE_USER=pyramid
CONFIG_SOURCE=""
DRY_RUN=0
SOURCE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE_DIR=/var/lib/pyramid-board
CONFIG_DIR=/etc/pyramid-board
UNIT_PATH=/etc/systemd/system/pyramid-board.service

usage() {
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
  echo "Options: --prefix DIR (default $PREFIX), --user NAME (default $SERVICE_USER),"
  echo "         --config FILE (default configs/serial.toml: the pico board), --dry-run"
  echo "         (--enable-spi is accepted and does nothing: SPI0 is enabled when needed)"
}

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX="$2"; shift 2 ;;
    --user) SERVICE_USER="$2"; shift 2 ;;
    --config) CONFIG_SOURCE="$2"; shift 2 ;;
    --enable-spi) shift ;;  # the default now; kept so older instructions still work
    --dry-run) DRY_RUN=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install-pi.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
CONFIG_SOURCE="${CONFIG_SOURCE:-$SOURCE_DIR/configs/serial.toml}"
VENV="$PREFIX/venv"

run() {
  # Print each step; run it unless this is a dry run.
  echo "+ $*"
  if [ "$DRY_RUN" -eq 0 ]; then
    "$@"
  fi
}

if [ "$DRY_RUN" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
  echo "install-pi.sh: run it with sudo (it creates a user and a system service)" >&2
  exit 1
fi
if [ ! -f "$SOURCE_DIR/pyproject.toml" ]; then
  echo "install-pi.sh: $SOURCE_DIR is not a pyramid-board checkout" >&2
  exit 1
fi
if [ ! -f "$CONFIG_SOURCE" ]; then
  echo "install-pi.sh: no config file $CONFIG_SOURCE" >&2
  exit 1
fi

echo "== 1. system packages"
# lgpio: Debian's python3-lgpio (prebuilt, matching the system's Python) whenever the
# distribution has it; the venv then sees it through --system-site-packages. PyPI's lgpio
# has wheels for CPython 3.9-3.12 only, and its source build needs the C library
# (liblgpio-dev) besides swig.
SYSTEM_SITE=""
EXTRA="[pi]"
if command -v apt-get >/dev/null 2>&1; then
  run apt-get update -qq
  packages=(python3-venv python3-dev)
  if apt-cache show python3-lgpio >/dev/null 2>&1; then
    packages+=(python3-lgpio)
    SYSTEM_SITE=--system-site-packages
    EXTRA=""
  elif apt-cache show liblgpio-dev >/dev/null 2>&1; then
    packages+=(liblgpio-dev swig)
  else
    echo "   no python3-lgpio or liblgpio-dev here: pip installs lgpio from PyPI, which"
    echo "   has wheels for CPython 3.9-3.12 only"
    packages+=(swig)
  fi
  run apt-get install -y -qq --no-install-recommends "${packages[@]}"
else
  echo "apt-get not found: make sure python3 (3.11+) with venv is installed" >&2
fi

echo "== 2. the program, in $VENV"
run mkdir -p "$PREFIX"
run python3 -m venv ${SYSTEM_SITE:+"$SYSTEM_SITE"} "$VENV"
run "$VENV/bin/python" -m pip install --quiet --upgrade pip
run "$VENV/bin/python" -m pip install --quiet "${SOURCE_DIR}${EXTRA}"
# `pyramid diag` for the maker, as themselves (Raspberry Pi OS puts the first user in the
# gpio and spi groups), from any directory they can write to (lgpio needs one).
run ln -sf "$VENV/bin/pyramid" /usr/local/bin/pyramid

echo "== 3. the service user $SERVICE_USER"
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
  run useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
    --shell /usr/sbin/nologin "$SERVICE_USER"
fi
# The unit's SupplementaryGroups= must all exist, or systemd refuses to start it.
created=()
for group in gpio spi dialout; do
  if ! getent group "$group" >/dev/null 2>&1; then
    run groupadd --system "$group"
    created+=("$group")
  fi
  run usermod -aG "$group" "$SERVICE_USER"
done
if [ "${#created[@]}" -gt 0 ]; then
  # Raspberry Pi OS gives /dev/gpiochip* to gpio and /dev/spidev* to spi; a system that
  # lacked the groups needs the rule that does.
  echo "   created group(s) ${created[*]}: installing a udev rule that gives them their devices"
  run install -m 0644 "$SOURCE_DIR/deploy/99-pyramid-board.rules" /etc/udev/rules.d/
  run udevadm control --reload
  run udevadm trigger
fi

echo "== 4. its working directory $STATE_DIR"
run install -d -o "$SERVICE_USER" -g "$SERVICE_USER" -m 0750 "$STATE_DIR"

echo "== 5. the config $CONFIG_DIR/config.toml"
run install -d -m 0755 "$CONFIG_DIR"
CONFIG="$CONFIG_DIR/config.toml"
if [ -e "$CONFIG" ]; then
  echo "   (kept the existing $CONFIG)"
  CHECKED="$CONFIG"
else
  run install -m 0644 "$CONFIG_SOURCE" "$CONFIG"
  CHECKED="$CONFIG_SOURCE"  # what $CONFIG is now (a dry run only pretends to copy it)
fi
# The service's store is $STATE_DIR (its unit says so); the config says it too, so that
# `pyramid pin` run by the maker reaches the same store (and says to use sudo -u).
if ! grep -Eq '^[[:space:]]*\[store\]' "$CHECKED"; then
  echo "+ append [store] path = \"$STATE_DIR/pyramid.sqlite3\" to $CONFIG"
  if [ "$DRY_RUN" -eq 0 ]; then
    printf '\n[store]\npath = "%s"   # the service'"'"'s store (install-pi.sh)\n' \
      "$STATE_DIR/pyramid.sqlite3" >> "$CONFIG"
  fi
fi
run "$VENV/bin/pyramid" diag --config "$CONFIG" --pins

# SPI0 before the service starts: without it the board refuses to start (it will not
# bit-bang the LEDs on the scan thread). The system's python3 reads the config with the
# program's own rules (controller.config needs nothing beyond the standard library).
START=--now
needs_spi="$(PYTHONPATH="$SOURCE_DIR" python3 -c 'import sys, pathlib
from controller.config import load_config, needs_spi0
print("yes" if needs_spi0(load_config(pathlib.Path(sys.argv[1]))) else "no")' "$CHECKED")"
if [ "$needs_spi" = yes ] && [ ! -e /dev/spidev0.0 ]; then
  echo "   the LEDs are on SPI0, which is off: enabling it"
  if command -v raspi-config >/dev/null 2>&1 || [ "$DRY_RUN" -eq 1 ]; then
    run raspi-config nonint do_spi 0
  else
    boot=/boot/firmware/config.txt
    [ -f "$boot" ] || boot=/boot/config.txt
    echo "+ append dtparam=spi=on to $boot"
    printf '\ndtparam=spi=on\n' >> "$boot"
  fi
  if [ "$DRY_RUN" -eq 0 ] && [ ! -e /dev/spidev0.0 ]; then
    START=""
    echo "   SPI0 comes up at the next boot: reboot (sudo reboot) and the service starts"
  fi
fi

echo "== 6. the systemd unit"
unit="$(sed -e "s|/opt/pyramid-board/venv|$VENV|g" \
            -e "s|/opt/pyramid-board/src|$SOURCE_DIR|g" \
            -e "s|^User=pyramid$|User=$SERVICE_USER|" \
            -e "s|^Group=pyramid$|Group=$SERVICE_USER|" \
            "$SOURCE_DIR/deploy/pyramid-board.service")"
echo "+ write $UNIT_PATH"
if [ "$DRY_RUN" -eq 0 ]; then
  printf '%s\n' "$unit" > "$UNIT_PATH"
fi
run systemctl daemon-reload
run systemctl enable ${START:+"$START"} pyramid-board.service

echo
echo "Installed. The web page: http://$(hostname).local:8080/  Log: journalctl -u pyramid-board -f"
echo "Check the board: sudo systemctl stop pyramid-board; pyramid diag; sudo systemctl start pyramid-board"

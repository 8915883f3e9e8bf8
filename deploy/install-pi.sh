#!/usr/bin/env bash
# Install pyramid-board as a service on a Raspberry Pi (Raspberry Pi OS, any Pi with the
# 40-pin header, Pi 5 included). Run from a checkout of the project:
#
#   sudo deploy/install-pi.sh [--config configs/matrix.toml] [--enable-spi] [--dry-run]
#
# What it does (each step is safe to repeat):
#   1. installs python3-venv (and python3-lgpio where the distribution has it);
#   2. creates a venv in $PREFIX/venv, installs this checkout with the `pi` extra, and
#      links the `pyramid` command into /usr/local/bin;
#   3. creates the system user `pyramid` in the groups gpio, spi and dialout;
#   4. gives it a writable working directory, /var/lib/pyramid-board;
#   5. puts a config in /etc/pyramid-board/config.toml (never overwrites one);
#   6. installs and enables the systemd unit, and starts it.
set -euo pipefail

PREFIX=/opt/pyramid-board
SERVICE_USER=pyramid
CONFIG_SOURCE=""
ENABLE_SPI=0
DRY_RUN=0
SOURCE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE_DIR=/var/lib/pyramid-board
CONFIG_DIR=/etc/pyramid-board
UNIT_PATH=/etc/systemd/system/pyramid-board.service

usage() {
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  echo "Options: --prefix DIR (default $PREFIX), --user NAME (default $SERVICE_USER),"
  echo "         --config FILE (default configs/matrix.toml), --enable-spi, --dry-run"
}

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX="$2"; shift 2 ;;
    --user) SERVICE_USER="$2"; shift 2 ;;
    --config) CONFIG_SOURCE="$2"; shift 2 ;;
    --enable-spi) ENABLE_SPI=1; shift ;;
    --dry-run) DRY_RUN=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install-pi.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
CONFIG_SOURCE="${CONFIG_SOURCE:-$SOURCE_DIR/configs/matrix.toml}"
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
if command -v apt-get >/dev/null 2>&1; then
  run apt-get update -qq
  packages=(python3-venv python3-dev)
  # Raspberry Pi OS ships lgpio prebuilt; elsewhere pip builds it (needs swig).
  if apt-cache show python3-lgpio >/dev/null 2>&1; then
    packages+=(python3-lgpio)
    SYSTEM_SITE=--system-site-packages
  else
    packages+=(swig)
    SYSTEM_SITE=""
  fi
  run apt-get install -y -qq --no-install-recommends "${packages[@]}"
else
  echo "apt-get not found: make sure python3 (3.11+) with venv is installed" >&2
  SYSTEM_SITE=""
fi

echo "== 2. the program, in $VENV"
run mkdir -p "$PREFIX"
run python3 -m venv ${SYSTEM_SITE:+"$SYSTEM_SITE"} "$VENV"
run "$VENV/bin/python" -m pip install --quiet --upgrade pip
run "$VENV/bin/python" -m pip install --quiet "${SOURCE_DIR}[pi]"
# `pyramid diag` for the maker, as themselves (Raspberry Pi OS puts the first user in the
# gpio and spi groups), from any directory they can write to (lgpio needs one).
run ln -sf "$VENV/bin/pyramid" /usr/local/bin/pyramid

echo "== 3. the service user $SERVICE_USER"
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
  run useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
    --shell /usr/sbin/nologin "$SERVICE_USER"
fi
for group in gpio spi dialout; do
  if getent group "$group" >/dev/null 2>&1; then
    run usermod -aG "$group" "$SERVICE_USER"
  else
    echo "   (no group $group on this system: the device it guards may need a udev rule)"
  fi
done

echo "== 4. its working directory $STATE_DIR"
run install -d -o "$SERVICE_USER" -g "$SERVICE_USER" -m 0750 "$STATE_DIR"

echo "== 5. the config $CONFIG_DIR/config.toml"
run install -d -m 0755 "$CONFIG_DIR"
if [ -e "$CONFIG_DIR/config.toml" ]; then
  echo "   (kept the existing $CONFIG_DIR/config.toml)"
else
  run install -m 0644 "$CONFIG_SOURCE" "$CONFIG_DIR/config.toml"
fi
run "$VENV/bin/pyramid" diag --config "$CONFIG_DIR/config.toml" --pins

if [ ! -e /dev/spidev0.0 ]; then
  if [ "$ENABLE_SPI" -eq 1 ] && command -v raspi-config >/dev/null 2>&1; then
    run raspi-config nonint do_spi 0
  else
    echo "   SPI is off, so the LEDs stay dark: run 'sudo raspi-config nonint do_spi 0'"
    echo "   (or this script with --enable-spi), or add dtparam=spi=on to config.txt."
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
run systemctl enable --now pyramid-board.service

echo
echo "Installed. The web page: http://$(hostname).local:8080/  Log: journalctl -u pyramid-board -f"
echo "Check the board: sudo systemctl stop pyramid-board; pyramid diag; sudo systemctl start pyramid-board"

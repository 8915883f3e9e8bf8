#!/usr/bin/env bash
# Install pyramid-board as a service on a Raspberry Pi (Raspberry Pi OS Lite 64-bit,
# Bookworm or Trixie; any Pi with the 40-pin header, Pi 5 included). Run it from the
# project's folder (a release archive or a git clone; docs/raspberry-pi.md):
#
#   sudo deploy/install-pi.sh [--config configs/matrix.toml] [--hostname NAME] [--dry-run]
#
# What it does (each step is safe to repeat; a re-run with nothing changed needs no network):
#   1. a venv in $PREFIX/venv (python3-venv first, if missing) with this folder's program
#      at the versions of deploy/constraints.txt (the versions the tests ran with);
#      `pyramid` in /usr/local/bin; then the config is read by that program's own check
#      (python -m controller.config), and a config it would refuse stops the install here;
#   2. the host name: NAME, or `pyramid` when the Pi is still called `raspberrypi`;
#   3. for a board on the Pi's header, the lgpio library (Debian's python3-lgpio, else
#      pip's, built only where no wheel fits); build tools only when pip must build;
#   4. the system user `pyramid` in the groups gpio, spi and dialout (any group the system
#      lacks is made, with a udev rule that gives it its devices);
#   5. its working directory /var/lib/pyramid-board (the game store);
#   6. the config /etc/pyramid-board/config.toml from --config (default configs/serial.toml,
#      the printed pico board): an existing one is kept unless --replace-config;
#   7. the admin PIN, made on the first install and shown here: write it down;
#   8. SPI0 when the config's LEDs need it; the systemd unit, enabled and (re)started;
#   9. waits for the page and prints its addresses, with a label to print (QR codes).
set -euo pipefail

PREFIX=/opt/pyramid-board
SERVICE_USER=pyramid
CONFIG_SOURCE=""
REPLACE_CONFIG=0
HOSTNAME_WANTED=""
DRY_RUN=0
SOURCE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE_DIR=/var/lib/pyramid-board
CONFIG_DIR=/etc/pyramid-board
UNIT_PATH=/etc/systemd/system/pyramid-board.service
MODULES_PATH=/etc/modules-load.d/pyramid-board.conf
RULE_PATH=/etc/udev/rules.d/99-pyramid-board.rules
CONSTRAINTS="$SOURCE_DIR/deploy/constraints.txt"
PAGE_WAIT_S=90

usage() {
  sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
  echo "Options: --config FILE      the build's config (default configs/serial.toml)"
  echo "         --replace-config   put FILE in place of an existing config (the old one is kept"
  echo "                            as config.toml.old)"
  echo "         --hostname NAME    the Pi's host name (the page is then http://NAME.local:8080/)"
  echo "         --prefix DIR (default $PREFIX), --user NAME (default $SERVICE_USER), --dry-run"
  echo "         (--enable-spi is accepted and does nothing: SPI0 is enabled when needed)"
}

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX="$2"; shift 2 ;;
    --user) SERVICE_USER="$2"; shift 2 ;;
    --config) CONFIG_SOURCE="$2"; shift 2 ;;
    --replace-config) REPLACE_CONFIG=1; shift ;;
    --hostname) HOSTNAME_WANTED="$2"; shift 2 ;;
    --enable-spi) shift ;;  # the default now; kept so older instructions still work
    --dry-run) DRY_RUN=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install-pi.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
CONFIG_GIVEN="$CONFIG_SOURCE"
CONFIG_SOURCE="${CONFIG_SOURCE:-$SOURCE_DIR/configs/serial.toml}"
VENV="$PREFIX/venv"
CONFIG="$CONFIG_DIR/config.toml"
STORE="$STATE_DIR/pyramid.sqlite3"

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
  echo "install-pi.sh: $SOURCE_DIR is not a pyramid-board folder" >&2
  exit 1
fi
if [ ! -f "$CONFIG_SOURCE" ]; then
  echo "install-pi.sh: no config file $CONFIG_SOURCE" >&2
  exit 1
fi
CONFIG_SOURCE="$(cd "$(dirname "$CONFIG_SOURCE")" && pwd)/$(basename "$CONFIG_SOURCE")"

config_facts() {
  # What the program's own check reads in a config (python -m controller.config): the
  # adapter, whether its LEDs need SPI0, the page's host and port. The venv's program
  # reads it; a dry run, which installs nothing, reads this folder's code with the venv's
  # Python, or python3 where there is no venv yet (it then needs the program's packages).
  local said python=python3
  if [ "$DRY_RUN" -eq 0 ]; then
    said="$("$VENV/bin/python" -m controller.config "$1" 2>&1)" || {
      printf 'install-pi.sh: %s\n' "$said" >&2
      return 1
    }
  else
    [ ! -x "$VENV/bin/python" ] || python="$VENV/bin/python"
    said="$(PYTHONPATH="$SOURCE_DIR" "$python" -m controller.config "$1" 2>&1)" || {
      printf 'install-pi.sh: %s\n' "$said" >&2
      return 1
    }
  fi
  printf '%s\n' "$said"
}

installed() {
  # Whether the Debian package $1 is installed.
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

apt_updated=0
apt_update() {
  # apt-get update, once, where there is apt-get.
  if [ "$apt_updated" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    run apt-get update -qq
    apt_updated=1
  fi
}

apt_install() {
  # Install the Debian packages given that are missing.
  local missing=() package
  for package in "$@"; do
    installed "$package" || missing+=("$package")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    echo "   all there: $*"
  elif command -v apt-get >/dev/null 2>&1; then
    apt_update
    run apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "apt-get not found: make sure python3 (3.11+) with venv is installed" >&2
  fi
}

echo "== 1. the program, in $VENV"
apt_install python3-venv
run mkdir -p "$PREFIX"
if [ ! -x "$VENV/bin/python" ]; then
  run python3 -m venv "$VENV"
fi
# The versions the tests ran with (deploy/constraints.txt). pip asks PyPI only for what is
# not installed at those versions already, and builds this folder's program with the
# venv's own setuptools (no isolated build, which would fetch setuptools every time).
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)
run "${PIP[@]}" install --quiet --constraint "$CONSTRAINTS" pip setuptools wheel
run "${PIP[@]}" install --quiet --constraint "$CONSTRAINTS" --no-build-isolation "$SOURCE_DIR"
# `pyramid diag` for the maker, as themselves (Raspberry Pi OS puts the first user in the
# gpio and spi groups), from any directory they can write to (lgpio needs one).
run ln -sf "$VENV/bin/pyramid" /usr/local/bin/pyramid

# The build is the config's that will be in place: the existing one unless replaced.
FACTS_OF="$CONFIG_SOURCE"
if [ -e "$CONFIG" ] && [ "$REPLACE_CONFIG" -eq 0 ]; then
  FACTS_OF="$CONFIG"
fi
facts="$(config_facts "$FACTS_OF")"  # a config the program would refuse stops the install
read -r ADAPTER NEEDS_SPI WEB_HOST WEB_PORT <<<"$facts"

echo "== 2. the host name"
current_name="$(hostname)"
wanted_name="$HOSTNAME_WANTED"
if [ -z "$wanted_name" ] && [ "$current_name" = raspberrypi ]; then
  wanted_name=pyramid  # Raspberry Pi OS's own name: two such Pis on one network clash
fi
if [ -n "$wanted_name" ] && ! [[ "$wanted_name" =~ ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ ]]; then
  echo "install-pi.sh: --hostname $wanted_name: use a-z, 0-9 and -, at most 63 characters" >&2
  exit 2
fi
if [ -z "$wanted_name" ] || [ "$wanted_name" = "$current_name" ]; then
  echo "   $current_name (keeps it; --hostname NAME sets another)"
else
  echo "   $current_name -> $wanted_name (the page becomes http://$wanted_name.local:8080/)"
  if ! run hostnamectl set-hostname "$wanted_name" 2>/dev/null; then
    echo "+ write $wanted_name to /etc/hostname"
    if [ "$DRY_RUN" -eq 0 ]; then
      printf '%s\n' "$wanted_name" > /etc/hostname
      hostname "$wanted_name"
    fi
  fi
  if [ "$DRY_RUN" -eq 0 ] && [ -f /etc/hosts ]; then
    if grep -q '^127\.0\.1\.1[[:space:]]' /etc/hosts; then
      sed -i "s/^127\.0\.1\.1[[:space:]].*/127.0.1.1\t$wanted_name/" /etc/hosts
    else
      printf '127.0.1.1\t%s\n' "$wanted_name" >> /etc/hosts
    fi
  fi
  # avahi announces NAME.local; it takes the new name on a restart.
  if [ "$DRY_RUN" -eq 0 ] && [ -d /run/systemd/system ]; then
    systemctl try-restart avahi-daemon.service 2>/dev/null || true
  fi
fi


echo "== 3. the Pi's header"
# lgpio only for a board on the Pi's header (adapter "gpio"); a Pico build never loads it.
# Debian's python3-lgpio (prebuilt for the system's Python) when the distribution has it:
# the venv then sees it (--system-site-packages). PyPI's lgpio has wheels for CPython
# 3.9-3.12 only; for another Python pip builds it, with the C library, swig and the headers.
SYSTEM_SITE=""
wanted=()
if [ "$ADAPTER" = gpio ]; then
  if installed python3-lgpio; then
    SYSTEM_SITE=--system-site-packages
  else
    apt_update
    if apt-cache show python3-lgpio >/dev/null 2>&1; then
      wanted+=(python3-lgpio)
      SYSTEM_SITE=--system-site-packages
    else
      if ! python3 -c 'import sys; sys.exit(not (3, 9) <= sys.version_info[:2] <= (3, 12))'; then
        echo "   no python3-lgpio here and no lgpio wheel for this Python: pip builds it"
        wanted+=(python3-dev swig gcc)
        if apt-cache show liblgpio-dev >/dev/null 2>&1; then
          wanted+=(liblgpio-dev)
        fi
      fi
    fi
  fi
  [ "${#wanted[@]}" -eq 0 ] || apt_install "${wanted[@]}"
else
  echo "   not used: the $ADAPTER adapter needs no lgpio"
fi
site="$(grep -s '^include-system-site-packages' "$VENV/pyvenv.cfg" | tr -d ' ' | cut -d= -f2 || true)"
site="${site:-false}"  # a dry run's venv, made plain in step 1
want_site=false
[ -z "$SYSTEM_SITE" ] || want_site=true
if [ "$site" != "$want_site" ]; then  # the venv sees Debian's lgpio, or no longer does
  run python3 -m venv ${SYSTEM_SITE:+"$SYSTEM_SITE"} "$VENV"
fi
if [ "$ADAPTER" = gpio ] && [ -z "$SYSTEM_SITE" ]; then
  run "${PIP[@]}" install --quiet --constraint "$CONSTRAINTS" --no-build-isolation \
    "${SOURCE_DIR}[pi]"
fi

echo "== 4. the service user $SERVICE_USER"
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
  run useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
    --shell /usr/sbin/nologin "$SERVICE_USER"
fi
# The unit's SupplementaryGroups= must all exist, or systemd refuses to start it.
for group in gpio spi dialout; do
  if ! getent group "$group" >/dev/null 2>&1; then
    run groupadd --system "$group"
  fi
  run usermod -aG "$group" "$SERVICE_USER"
done
# Raspberry Pi OS gives /dev/gpiochip* to gpio and /dev/spidev* to spi with rules of its
# own; where no rule does, ours does (decided by what is there, so a re-run after any
# failure still installs it).
rules_dirs=(/etc/udev/rules.d /lib/udev/rules.d /usr/lib/udev/rules.d)
if [ -e "$RULE_PATH" ] || ! grep -rqsE 'GROUP="(gpio|spi)"' "${rules_dirs[@]}"; then
  echo "   no udev rule gives the gpio and spi groups their devices: installing $RULE_PATH"
  run install -D -m 0644 "$SOURCE_DIR/deploy/99-pyramid-board.rules" "$RULE_PATH"
  if [ "$DRY_RUN" -eq 0 ] && ! { udevadm control --reload && udevadm trigger; } 2>/dev/null; then
    echo "   (udev is not running here: the rule applies from the next boot)"
  fi
fi
# The Pico's USB serial driver, loaded at boot: the unit's DevicePolicy allows ttyACM
# devices by the driver's name, which systemd looks up when the service starts.
echo "+ write cdc_acm to $MODULES_PATH"
if [ "$DRY_RUN" -eq 0 ]; then
  install -d -m 0755 "$(dirname "$MODULES_PATH")"
  printf '# pyramid-board: the Pico'"'"'s USB serial port (deploy/install-pi.sh)\ncdc_acm\n' \
    > "$MODULES_PATH"
  modprobe cdc_acm 2>/dev/null || true  # a kernel without it (a container) does not need it
fi

echo "== 5. its working directory $STATE_DIR"
run install -d -o "$SERVICE_USER" -g "$SERVICE_USER" -m 0750 "$STATE_DIR"

echo "== 6. the config $CONFIG"
run install -d -m 0755 "$CONFIG_DIR"
store_line="path = \"$STORE\"   # the service's store (install-pi.sh)"
# What an installed config is: the chosen file, with the service's store appended when
# the file names none (so that `pyramid pin` finds the service's store).
same_as_source() {
  local size
  size="$(stat -c %s "$CONFIG_SOURCE")"
  [ "$(stat -c %s "$CONFIG")" -ge "$size" ] && head -c "$size" "$CONFIG" | cmp -s - "$CONFIG_SOURCE"
}
if [ -e "$CONFIG" ] && [ "$REPLACE_CONFIG" -eq 0 ]; then
  if [ -n "$CONFIG_GIVEN" ] && ! same_as_source; then
    echo "   KEPT the existing $CONFIG: it is not $CONFIG_SOURCE."
    echo "   To switch builds (the old config is kept as config.toml.old), run:"
    echo "     sudo deploy/install-pi.sh --config $CONFIG_GIVEN --replace-config"
  else
    echo "   (kept the existing $CONFIG)"
  fi
  CHECKED="$CONFIG"
else
  if [ -e "$CONFIG" ]; then
    echo "   replacing $CONFIG with $CONFIG_SOURCE (the old one: $CONFIG.old)"
    run cp -p "$CONFIG" "$CONFIG.old"
  fi
  run install -m 0644 "$CONFIG_SOURCE" "$CONFIG"
  CHECKED="$CONFIG_SOURCE"  # what $CONFIG is now (a dry run only pretends to copy it)
  if ! grep -Eq '^[[:space:]]*\[store\]' "$CHECKED"; then
    echo "+ append [store] path = \"$STORE\" to $CONFIG"
    if [ "$DRY_RUN" -eq 0 ]; then
      printf '\n[store]\n%s\n' "$store_line" >> "$CONFIG"
    fi
  fi
fi
if [ "$ADAPTER" = gpio ]; then
  run "$VENV/bin/pyramid" diag --config "$CONFIG" --pins  # the header's map, to check the wiring
fi

echo "== 7. the admin PIN"
PIN=""
PIN_COMMAND="sudo -u $SERVICE_USER pyramid pin --config $CONFIG"
if [ -e "$STORE" ]; then
  echo "   set before (not shown again); a new one: $PIN_COMMAND"
else
  echo "+ runuser -u $SERVICE_USER -- $VENV/bin/pyramid pin --config $CONFIG --generate"
  if [ "$DRY_RUN" -eq 0 ]; then
    said="$(cd "$STATE_DIR" && runuser -u "$SERVICE_USER" -- "$VENV/bin/pyramid" pin \
      --config "$CONFIG" --generate)"
    PIN="${said##*: }"
  fi
fi

# SPI0 before the service starts: without it the board refuses to start (it will not
# bit-bang the LEDs on the scan thread).
START=yes
if [ "$NEEDS_SPI" = yes ] && [ ! -e /dev/spidev0.0 ]; then
  echo "   the LEDs are on SPI0, which is off: enabling it"
  if command -v raspi-config >/dev/null 2>&1 || [ "$DRY_RUN" -eq 1 ]; then
    run raspi-config nonint do_spi 0
  else
    boot=/boot/firmware/config.txt
    [ -f "$boot" ] || boot=/boot/config.txt
    echo "+ append dtparam=spi=on to $boot"
    grep -qs '^dtparam=spi=on' "$boot" || printf '\ndtparam=spi=on\n' >> "$boot"
  fi
  if [ "$DRY_RUN" -eq 0 ] && [ ! -e /dev/spidev0.0 ]; then
    START=""
    echo "   SPI0 comes up at the next boot: reboot (sudo reboot) and the service starts"
  fi
fi

echo "== 8. the systemd unit"
unit="$(sed -e "s|/opt/pyramid-board/venv|$VENV|g" \
            -e "s|/opt/pyramid-board/src|$SOURCE_DIR|g" \
            -e "s|^User=pyramid$|User=$SERVICE_USER|" \
            -e "s|^Group=pyramid$|Group=$SERVICE_USER|" \
            "$SOURCE_DIR/deploy/pyramid-board.service")"
echo "+ write $UNIT_PATH"
if [ "$DRY_RUN" -eq 0 ]; then
  printf '%s\n' "$unit" > "$UNIT_PATH"
fi
if [ "$DRY_RUN" -eq 1 ] || [ -d /run/systemd/system ]; then
  run systemctl daemon-reload
  run systemctl enable pyramid-board.service
  # restart, not start: a re-run's new program and config take effect at once.
  [ -z "$START" ] || run systemctl restart pyramid-board.service
else
  echo "   (systemd is not running here: the service starts at the next boot)"
  run systemctl enable pyramid-board.service
  START=""
fi

echo "== 9. the page"
page_host="$WEB_HOST"
case "$page_host" in 0.0.0.0|::|"") page_host=127.0.0.1 ;; esac
if [ -n "$START" ] && [ "$DRY_RUN" -eq 0 ]; then
  echo "   waiting for http://$page_host:$WEB_PORT/ (up to $PAGE_WAIT_S s)"
  if ! python3 - "$page_host" "$WEB_PORT" "$PAGE_WAIT_S" <<'EOF'
import sys, time, urllib.request
host, port, wait = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
deadline = time.monotonic() + wait
while time.monotonic() < deadline:
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/api/session", timeout=5) as answer:
            sys.exit(0 if answer.status == 200 else 1)
    except OSError:
        time.sleep(0.5)
sys.exit(1)
EOF
  then
    echo "install-pi.sh: the page did not answer; the service says:" >&2
    systemctl --no-pager --lines=15 status pyramid-board.service >&2 || true
    exit 1
  fi
fi
name="$(hostname)"
addresses=()
if [ "$WEB_HOST" = 0.0.0.0 ] || [ "$WEB_HOST" = "::" ]; then
  addresses+=("http://$name.local:$WEB_PORT/")
  for number in $(hostname -I 2>/dev/null || true); do
    [[ "$number" == *:* ]] || addresses+=("http://$number:$WEB_PORT/")
  done
else
  addresses+=("http://$WEB_HOST:$WEB_PORT/")
fi
# The label goes to the home of whoever ran sudo, so that they can copy it off the Pi.
owner="${SUDO_USER:-root}"
owner_home="$(getent passwd "$owner" | cut -d: -f6)"
LABEL="${owner_home:-/root}/pyramid-label.html"
echo "+ $VENV/bin/pyramid label --out $LABEL ${addresses[*]}"
if [ "$DRY_RUN" -eq 0 ]; then
  "$VENV/bin/pyramid" label --out "$LABEL" "${addresses[@]}" >/dev/null
  chown "$owner:" "$LABEL" 2>/dev/null || true
fi

echo
echo "+------------------------------------------------------------------------+"
echo "  Installed. The page, on any phone or computer at home:"
for address in "${addresses[@]}"; do
  echo "      $address"
done
echo "  (the name needs a device that knows .local names; the number works on all)"
echo "  A label to print, with these addresses and their QR codes: $LABEL"
echo "  (on your computer: scp $owner@$name.local:$(basename "$LABEL") .)"
if [ -n "$PIN" ]; then
  echo
  echo "  ADMIN PIN for the page: $PIN"
  echo "  WRITE IT DOWN NOW: it is not shown again. Starting games, taking back moves"
  echo "  and changing settings ask for it. A new one, any time:"
  echo "      $PIN_COMMAND"
fi
if [ -z "$START" ] && [ "$DRY_RUN" -eq 0 ]; then
  echo
  echo "  The service starts at the next boot: sudo reboot"
fi
echo "+------------------------------------------------------------------------+"
echo "Log: journalctl -u pyramid-board -f"
echo "Check the board: sudo systemctl stop pyramid-board; pyramid diag; sudo systemctl start pyramid-board"

#!/bin/sh
# Installs the Debian packages the tests run for real, when they are missing:
#   chromium    the WebChat browser tests (or set SWITCHBOARD_CHROMIUM to a Chromium/Chrome binary)
#   bubblewrap  the agent's sandboxed shell (packages/sandbox)
#   postgresql  the PostgreSQL store's conformance and replica tests (packages/store-postgres)
#   python3, util-linux (prlimit)  the sandbox's limit tests
set -eu
missing=""
CHROMIUM="${SWITCHBOARD_CHROMIUM:-/usr/bin/chromium}"
[ -x "$CHROMIUM" ] || missing="$missing chromium"
command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$missing postgresql"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
command -v prlimit >/dev/null 2>&1 || missing="$missing util-linux"
if [ -n "$missing" ]; then
  if command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
    echo "Installing the test packages:$missing (apt-get)"
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
  else
    echo "Missing:$missing and apt-get is unavailable: install them (Chromium may be any Chromium or Chrome, via SWITCHBOARD_CHROMIUM)" >&2
    exit 1
  fi
fi
"$CHROMIUM" --version 2>/dev/null
bwrap --version
ls -d /usr/lib/postgresql/*/bin | head -n 1

#!/bin/sh
# Makes sure headless Chromium is there for the WebChat browser tests (Debian's `chromium`
# package; `SWITCHBOARD_CHROMIUM` points at another Chromium or Chrome binary instead).
set -eu
CHROMIUM="${SWITCHBOARD_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  if command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
    echo "Installing Chromium for the WebChat browser tests (apt-get install chromium)"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  else
    echo "Chromium is missing and apt-get is unavailable: install Chromium or Chrome and set SWITCHBOARD_CHROMIUM to its path" >&2
    exit 1
  fi
fi
"$CHROMIUM" --version 2>/dev/null

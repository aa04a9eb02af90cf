#!/bin/sh
# Install the Debian packages perpi needs to build and to run its tests.
# Safe to run again: apt-get skips what is already installed.
set -eu
PKGS="build-essential autoconf automake libtool pkg-config
  libcapstone-dev libzydis-dev libunwind-dev libncurses-dev libpapi-dev
  libsqlite3-dev sqlite3 libglpk-dev libdw-dev libelf-dev libjson-c-dev
  graphviz tmux libxml2-utils python3 binutils librsvg2-bin libc6-dbg"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing

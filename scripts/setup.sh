#!/bin/sh
# Install dependencies, generate the build system and configure perpi.
# Extra arguments go to ./configure (e.g. --enable-sanitizers).
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi
./configure "$@"

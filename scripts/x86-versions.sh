#!/bin/sh
# perpi's x86 semantics must not depend on the decoders' versions (Capstone
# 4 or 5, Zydis 4.0 or 4.1): the same machine code must give the same
# sources, destinations, memory bytes, class and control flow. This dumps
# them (tests/x86/test_x86_zydis --dump) for the same files in a Debian 12
# and a Debian 13 root (scripts/debian-root.sh) and compares: Debian 12's and
# Debian 13's libc and libm, and tests/x86/forms.o as Debian 12 assembles it.
#
#   sh scripts/x86-versions.sh [OUTDIR]      (default /var/tmp/perpi-roots/x86-versions)
#
# Exit 0 if the dumps are identical; else the first differences are shown
# (OUTDIR/diff holds them all). Needs what scripts/debian-root.sh needs; the
# roots are kept (-k) between runs.
set -eu
cd "$(dirname "$0")/.."
out=${1:-${PERPI_ROOTS:-/var/tmp/perpi-roots}/x86-versions}
mkdir -p "$out"
rm -f "$out"/*.so.6 "$out"/forms.o "$out"/dump-* "$out"/diff
build='sh scripts/setup.sh >/x/setup-$v.log 2>&1 && make -j2 tests/x86/test_x86_zydis tests/x86/forms.o >/x/build-$v.log 2>&1'
collect='cp /lib/x86_64-linux-gnu/libc.so.6 /x/libc-$v.so.6 && cp /lib/x86_64-linux-gnu/libm.so.6 /x/libm-$v.so.6'
dump='tests/x86/test_x86_zydis --dump /x/libc-12.so.6 /x/libm-12.so.6 /x/libc-13.so.6 /x/libm-13.so.6 /x/forms.o | sed "s|^# /x/|# |" >/x/dump-$v'
sh scripts/debian-root.sh -k -b "$out" bookworm "v=12; $build && $collect && cp tests/x86/forms.o /x/forms.o"
sh scripts/debian-root.sh -k -b "$out" trixie "v=13; $build && $collect && $dump"
sh scripts/debian-root.sh -k -b "$out" bookworm "v=12; $dump"
n=$(grep -vc '^#' "$out/dump-12")
if diff "$out/dump-12" "$out/dump-13" >"$out/diff"; then
	echo "x86-versions: $n instructions, the same semantics with Debian 12's and Debian 13's decoders"
	exit 0
fi
echo "x86-versions: $(grep -c '^<' "$out/diff") of $n instructions differ (all in $out/diff):"
head -n 20 "$out/diff"
exit 1

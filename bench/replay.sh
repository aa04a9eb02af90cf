#!/bin/sh
# Replay speed of perpi.data: perpi report on a recorded run of about 10^7
# instructions, against a plain read of the file and the decoding alone.
# Target (issue 3): at least 20 million instructions per second for
# perpi report on one core.
#   usage: sh bench/replay.sh [BUILDDIR]     (run from the source tree)
# The recording (about 4 minutes of single-stepping) is kept in
# $PERPI_BENCH_DIR (default /tmp/perpi-bench) and reused.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top}
dir=${PERPI_BENCH_DIR:-/tmp/perpi-bench}
mkdir -p "$dir"
perpi="$build/perpi"
data="$dir/summation-270000.data"
pin="taskset -c 0"
command -v taskset >/dev/null || pin=""

cc -O2 -I"$top" -I"$top/include" -I"$build" "$top/bench/trace_decode.c" "$build/libperpi.a" \
	-lm -o "$dir/trace_decode"
if [ ! -s "$data" ]; then
	echo "recording $data (about 10^7 instructions)..." >&2
	$pin "$perpi" record -q -o "$data" "$build/examples/summation" 270000 >/dev/null
fi
events=$("$dir/trace_decode" "$data" | awk '{ print $2 }')
insns=$("$perpi" report -i "$data" | awk '/^whole run/ { gsub(/[^0-9]/, "", $4); print $4 }')
bytes=$(wc -c < "$data")

best() { # best of 3 wall-clock seconds of a command
	b=""
	for k in 1 2 3; do
		t0=$(date +%s.%N)
		"$@" >/dev/null
		t1=$(date +%s.%N)
		b=$(echo "$t0 $t1 $b" | awk '{ t = $2 - $1; if ($3 != "" && $3 < t) t = $3; printf "%.3f", t }')
	done
	echo "$b"
}

echo "| what | seconds | M instructions/s |"
echo "| --- | ---: | ---: |"
row() { # row LABEL SECONDS
	echo "| $1 | $2 | $(echo "$insns $2" | awk '{ printf "%.1f", $1 / $2 / 1e6 }') |"
}
row "plain read of the file (cat, $bytes bytes, $events events)" "$(best $pin cat "$data")"
row "decoding alone (bench/trace_decode)" "$(best $pin "$dir/trace_decode" "$data")"
row "perpi report" "$(best $pin "$perpi" report -i "$data")"
row "perpi report --only fp" "$(best $pin "$perpi" report -i "$data" --only fp)"
row "perpi report --width 4 --window 64" "$(best $pin "$perpi" report -i "$data" --width 4 --window 64)"
row "perpi hist" "$(best $pin "$perpi" hist -i "$data")"
echo
echo "I = $insns instructions, $(echo "$bytes $events" | awk '{ printf "%.2f", $1 / $2 }') bytes per event."

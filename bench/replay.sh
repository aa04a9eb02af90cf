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
insns=$("$perpi" report -i "$data" | awk '/^whole run/ { gsub(/[^0-9]/, "", $5); print $5 }')
bytes=$(wc -c < "$data")

best() { # "WALL CPU": the best of 5 runs of a command, wall-clock and CPU
	# (user + system) seconds. The machine may be shared: CPU time is what
	# one core spends on it.
	w="" c=""
	for k in 1 2 3 4 5; do
		/usr/bin/time -o "$dir/time" -f "%e %U %S" "$@" >/dev/null 2>&1
		read -r e u s < "$dir/time"
		w=$(echo "$e $w" | awk '{ t = $1; if ($2 != "" && $2 < t) t = $2; printf "%.2f", t }')
		c=$(echo "$u $s $c" | awk '{ t = $1 + $2; if ($3 != "" && $3 < t) t = $3; printf "%.2f", t }')
	done
	echo "$w $c"
}

echo "| what | wall s | CPU s | M instructions/s (CPU) |"
echo "| --- | ---: | ---: | ---: |"
row() { # row LABEL "WALL CPU"
	echo "$2" | awk -v label="$1" -v n="$insns" '{
		rate = $2 > 0 ? sprintf("%.1f", n / $2 / 1e6) : "> " sprintf("%.0f", n / 0.01 / 1e6)
		printf "| %s | %s | %s | %s |\n", label, $1, $2, rate }'
}
row "plain read of the file (cat, $bytes bytes, $events events)" "$(best $pin cat "$data")"
row "decoding alone (bench/trace_decode)" "$(best $pin "$dir/trace_decode" "$data")"
row "perpi report" "$(best $pin "$perpi" report -i "$data")"
row "perpi report --only fp" "$(best $pin "$perpi" report -i "$data" --only fp)"
row "perpi report --width 4 --window 64" "$(best $pin "$perpi" report -i "$data" --width 4 --window 64)"
row "perpi hist" "$(best $pin "$perpi" hist -i "$data")"
row "perpi critical --function Sum2 (keeps the graph)" "$(best $pin "$perpi" critical -i "$data" --function Sum2)"
echo
echo "I = $insns instructions, $(echo "$bytes $events" | awk '{ printf "%.2f", $1 / $2 }') bytes per event."

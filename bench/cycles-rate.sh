#!/bin/sh
# Cost of the cycle prediction (docs/BENCHMARKS.md, "Cycle prediction"):
# perpi report on a recorded run of about 10^7 instructions with a Palmed
# model, without and with a core file (the out-of-order model replays every
# instruction only with one). Target (issue 11): at least 2 million
# instructions per second replayed with the prediction, on one core.
#   usage: sh bench/cycles-rate.sh [BUILDDIR]     (run from the source tree)
# The recording (about 4 minutes of single-stepping) is kept in
# $PERPI_BENCH_DIR (default /tmp/perpi-bench) and shared with bench/replay.sh.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top}
dir=${PERPI_BENCH_DIR:-/tmp/perpi-bench}
mkdir -p "$dir/xdg/perpi" "$dir/none"
perpi="$build/perpi"
data="$dir/summation-270000.data"
model="$top/docs/lift-zen4-hand.json"
pin="taskset -c 0"
command -v taskset >/dev/null || pin=""
if [ ! -s "$data" ]; then
	echo "recording $data (about 10^7 instructions)..." >&2
	$pin "$perpi" record -q -o "$data" "$build/examples/summation" 270000 >/dev/null
fi
# The latencies of the run's forms (Pipedream, cached in the database);
# the other parameters from the documented table.
XDG_DATA_HOME="$dir/xdg" "$perpi" core --no-probes --from "$data" >/dev/null 2>&1
insns=$("$perpi" report -i "$data" 2>/dev/null | awk '/^whole run/ { gsub(/[^0-9]/, "", $5); print $5 }')

best() { # "WALL CPU": the best of 5 runs, wall-clock and CPU (user + system) seconds
	w="" c=""
	for k in 1 2 3 4 5; do
		/usr/bin/time -o "$dir/time" -f "%e %U %S" "$@" >/dev/null 2>&1
		read -r e u s < "$dir/time"
		w=$(echo "$e $w" | awk '{ t = $1; if ($2 != "" && $2 < t) t = $2; printf "%.2f", t }')
		c=$(echo "$u $s $c" | awk '{ t = $1 + $2; if ($3 != "" && $3 < t) t = $3; printf "%.2f", t }')
	done
	echo "$w $c"
}
# perpi report with the model, and with XDG's core file (or none)
set -- $(best env XDG_DATA_HOME="$dir/none" $pin "$perpi" report -i "$data" --model "$model")
bound_wall=$1 bound_cpu=$2
set -- $(best env XDG_DATA_HOME="$dir/xdg" $pin "$perpi" report -i "$data" --model "$model")
pred_wall=$1 pred_cpu=$2
echo "$insns instructions; best of 5 runs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v n="$insns" -v bw="$bound_wall" -v bc="$bound_cpu" -v pw="$pred_wall" -v pc="$pred_cpu" 'BEGIN {
	printf "%-40s %8s %8s %14s\n", "perpi report --model M", "wall s", "CPU s", "M insns/s (CPU)"
	printf "%-40s %8.2f %8.2f %14.1f\n", "no core file (the bound only)", bw, bc, n / bc / 1e6
	printf "%-40s %8.2f %8.2f %14.1f\n", "with the core file (predicted cycles)", pw, pc, n / pc / 1e6
	printf "%-40s %8s %8.2f %14.1f\n", "the prediction alone (difference)", "", pc - bc, n / (pc - bc) / 1e6
}'

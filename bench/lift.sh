#!/bin/sh
# The cost of the Palmed columns in perpi report: the replay with no model
# against the replay that also cuts the run into basic blocks, attributes
# them to every open call instance and predicts each block (palmed/lift.c).
#   usage: sh bench/lift.sh [BUILDDIR]     (run from the source tree)
# Two recordings, kept in $PERPI_BENCH_DIR (default /tmp/perpi-bench):
# examples/summation 10000 (three calls, long loops: few blocks) and
# /bin/ls / (calls nest deeply: the attribution's worst case here).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top}
dir=${PERPI_BENCH_DIR:-/tmp/perpi-bench}
mkdir -p "$dir"
perpi="$build/perpi"
pin="taskset -c 0"
command -v taskset >/dev/null || pin=""
"$perpi" record --help >/dev/null 2>&1 || { echo "perpi record is not built" >&2; exit 1; }

best() { # best of 5 wall-clock seconds and the peak memory of a command
	b="" m=""
	for i in 1 2 3 4 5; do
		/usr/bin/time -f "%e %M" -o "$dir/time" "$@" > /dev/null 2>&1
		read -r t k < "$dir/time"
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t m=$k; fi
	done
	echo "$b s, $((m / 1024)) MB"
}

for prog in "summation 10000" "ls"; do
	set -- $prog
	data="$dir/lift-$1.data"
	if [ ! -s "$data" ]; then
		if [ "$1" = ls ]; then cmd="/bin/ls /"; else cmd="$build/examples/$prog"; fi
		$pin "$perpi" record -q -o "$data" $cmd > /dev/null
	fi
	"$perpi" palmed build -q --sim intel --from "$data" -o "$dir/lift-$1.json" > /dev/null
	insns=$(XDG_DATA_HOME="$dir/none" "$perpi" report -i "$data" 2>/dev/null |
		awk '/^whole run/ { gsub(/[^0-9]/, "", $5); print $5 }')
	blocks=$("$perpi" report -i "$data" --model "$dir/lift-$1.json" --blocks=1 2>/dev/null |
		awk '/basic blocks/ { print $1 }')
	echo "$prog: $insns instructions, $blocks blocks"
	echo "  no model:   $(best env XDG_DATA_HOME="$dir/none" "$perpi" report -i "$data")"
	echo "  with model: $(best "$perpi" report -i "$data" --model "$dir/lift-$1.json")"
done

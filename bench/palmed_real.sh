#!/bin/sh
# Palmed on this CPU: build the default model (127 forms) into a fresh
# measurement database, time it and count its benchmarks, then evaluate it
# on held-out kernels measured natively: random mixes (-n, default 300) and
# the basic blocks of recorded runs (the bundled examples), against
# llvm-mca-19 when it is installed. Prints the rows of the table in
# docs/BENCHMARKS.md. Takes 10-20 minutes on a 2-core machine.
# Run from the build directory: sh bench/palmed_real.sh [KERNELS [BUDGET]]
set -eu
PERPI=${PERPI:-./perpi}
kernels=${1:-300}
budget=${2:-}
tmp=${PALMED_BENCH_DIR:-$(mktemp -d)}
mkdir -p "$tmp"
echo "working in $tmp" >&2
start=$(date +%s)
$PERPI palmed build --db "$tmp/db" ${budget:+--budget "$budget"} -o "$tmp/model.json" \
	>"$tmp/build" 2>"$tmp/build.log"
build_s=$(($(date +%s) - start))
cat "$tmp/build" >&2
# The runs whose basic blocks are held out (small: a trace each).
$PERPI record -o "$tmp/horner.data" examples/horner >/dev/null 2>&1
$PERPI record -o "$tmp/summation.data" examples/summation 2000 >/dev/null 2>&1
$PERPI palmed eval -m "$tmp/model.json" --db "$tmp/db" -n "$kernels" \
	--from "$tmp/horner.data" --from "$tmp/summation.data" -o "$tmp/eval" \
	>"$tmp/eval.out" 2>"$tmp/eval.log"
cat "$tmp/eval.out" >&2
set -- $(sed -n 's/.*: \([0-9]*\) forms on \([0-9]*\) resources.*from \([0-9]*\) benchmarks.*/\1 \2 \3/p' "$tmp/build")
printf '| model | forms | resources | benchmarks | build time |\n|---|---|---|---|---|\n'
printf '| default list | %s | %s | %s | %d min %02d s |\n\n' "$1" "$2" "$3" $((build_s / 60)) $((build_s % 60))
printf '| held out | predictor | kernels | coverage | RMS IPC error | Kendall tau |\n'
printf '|---|---|---|---|---|---|\n'
awk '/^basic blocks/ { set = "basic blocks (weighted)" }
     /^predictor/ && !set { set = "random mixes" }
     $1 == "palmed" || $1 == "llvm-mca" {
	printf "| %s | %s | %s | %s | %s | %s |\n", set, $1, $2, $3, $4, $5 }' "$tmp/eval.out"

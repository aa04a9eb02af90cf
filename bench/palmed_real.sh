#!/bin/sh
# Palmed on this CPU: build the default model (127 forms) into a fresh
# measurement database, time it and count its benchmarks, then evaluate it
# on held-out random mixes measured natively (-n, default 300). Then build
# the model of the forms two recorded runs (the bundled examples) execute,
# `perpi palmed build --from`, and evaluate it on their basic blocks,
# weighted by their dynamic instructions. llvm-mca-19 is the other
# predictor when it is installed. Prints the rows of the table in
# docs/BENCHMARKS.md. Takes 10-15 minutes on a 2-core machine.
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
$PERPI palmed eval -m "$tmp/model.json" --db "$tmp/db" -n "$kernels" -o "$tmp/eval" \
	>"$tmp/eval.out" 2>"$tmp/eval.log"
cat "$tmp/eval.out" >&2
runs="--from $tmp/horner.data --from $tmp/summation.data"
start=$(date +%s)
$PERPI palmed build --db "$tmp/db" $runs -o "$tmp/runs.json" >"$tmp/build-runs" 2>"$tmp/build-runs.log"
runs_s=$(($(date +%s) - start))
cat "$tmp/build-runs" >&2
$PERPI palmed eval -m "$tmp/runs.json" --db "$tmp/db" -n 0 $runs -o "$tmp/eval-runs" \
	>"$tmp/eval-runs.out" 2>"$tmp/eval-runs.log"
cat "$tmp/eval-runs.out" >&2
row() { # name, build output, seconds
	set -- "$1" "$3" $(sed -n 's/.*: \([0-9]*\) forms on \([0-9]*\) resources.*from \([0-9]*\) benchmarks.*/\1 \2 \3/p' "$2")
	printf '| %s | %s | %s | %s | %d min %02d s |\n' "$1" "$3" "$4" "$5" $(($2 / 60)) $(($2 % 60))
}
printf '| model | forms | resources | benchmarks | build time |\n|---|---|---|---|---|\n'
row "default list" "$tmp/build" "$build_s"
row "the two runs' forms (after the first: its measurements reused)" "$tmp/build-runs" "$runs_s"
echo
printf '| held out | predictor | kernels | coverage | RMS IPC error | Kendall tau |\n'
printf '|---|---|---|---|---|---|\n'
awk '/^basic blocks/ { set = "basic blocks (weighted)" }
     /^predictor/ && !set { set = "random mixes" }
     $1 == "palmed" || $1 == "llvm-mca" {
	printf "| %s | %s | %s | %s | %s | %s |\n", set, $1, $2, $3, $4, $5 }' \
	"$tmp/eval.out" "$tmp/eval-runs.out"

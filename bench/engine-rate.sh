#!/bin/sh
# The engine's speed and memory (docs/BENCHMARKS.md, "Engine"): events per
# second on synthetic streams shaped like ordinary code (see
# bench/engine_rate.c), and peak memory over large address spans against
# the target of 64 MiB + 8x the bytes touched.
# Usage: sh bench/engine-rate.sh [EVENTS]   (from the build directory)
set -eu
n=${1:-10000000}
bin=./bench/engine_rate
[ -x "$bin" ] || make bench/engine_rate >/dev/null
cpu=$(($(nproc) - 1))
run() { printf '%-44s ' "$*"; taskset -c "$cpu" "$bin" "$n" "$@" | tail -n 1; }
echo "== speed, $n events, best of 3 runs, pinned to CPU $cpu"
run --flat
run --flat --random 0
run
run --random 0
run --stack-engine
run --window 64 --width 4
run --deps
echo "== memory"
taskset -c "$cpu" "$bin" --span $((256 << 20))
taskset -c "$cpu" "$bin" --span $((256 << 20)) --frames
taskset -c "$cpu" "$bin" --span $((1 << 30))

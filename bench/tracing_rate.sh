#!/bin/sh
# Tracing rate: perpi against a bare PTRACE_SINGLESTEP + PTRACE_GETREGS loop
# (bare_step.c) over the same program (rate_prog.c, from exec to exit, so
# perpi runs with --all), on the same CPU, in one run, alternating the two.
# Steps per second = the bare loop's step count / wall time of each.
# usage: bench/tracing_rate.sh [PERPI] [CPU] [ROUNDS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
perpi=${1:-$top/perpi}
cpu=${2:-0}
rounds=${3:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/bare_step" "$top/bench/bare_step.c"
cc -O1 -o "$tmp/rate_prog" "$top/bench/rate_prog.c"
now() { date +%s.%N; }
best_bare=0
best_perpi=0
for r in $(seq "$rounds"); do
	out=$("$tmp/bare_step" "$cpu" "$tmp/rate_prog")
	steps=$(echo "$out" | awk '/^steps/ { print $2 }')
	t0=$(now)
	"$tmp/bare_step" "$cpu" "$tmp/rate_prog" >/dev/null
	t1=$(now)
	"$perpi" -q --all --cpu "$cpu" -o "$tmp/report" "$tmp/rate_prog" >/dev/null
	t2=$(now)
	bare=$(echo "$steps $t0 $t1" | awk '{ printf "%.0f", $1 / ($3 - $2) }')
	pr=$(echo "$steps $t1 $t2" | awk '{ printf "%.0f", $1 / ($3 - $2) }')
	echo "round $r: steps $steps  bare $bare steps/s  perpi $pr steps/s  ratio $(echo "$pr $bare" | awk '{ printf "%.3f", $1 / $2 }')"
	echo "$pr $bare" | awk '{ printf "%.4f\n", $1 / $2 }' >>"$tmp/ratios"
	[ "$bare" -gt "$best_bare" ] && best_bare=$bare
	[ "$pr" -gt "$best_perpi" ] && best_perpi=$pr
done
echo "perpi whole-run I: $(sed -n 's/^whole run *:: I \[\([0-9]*\)\].*/\1/p' "$tmp/report")"
echo "median ratio of the rounds: $(sort -n "$tmp/ratios" | awk '{ r[NR] = $1 } END { printf "%.3f", NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }')"
echo "best: bare $best_bare steps/s, perpi $best_perpi steps/s, ratio $(echo "$best_perpi $best_bare" | awk '{ printf "%.3f", $1 / $2 }') (target >= 0.85)"

#!/bin/sh
# Palmed inference on the simulated machines: benchmarks spent, build time,
# and accuracy on 1000 held-out kernels each (exact measurements).
# Run from the build directory: sh bench/palmed_sim.sh
set -eu
PERPI=${PERPI:-./perpi}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| machine | forms | resources | benchmarks | build time | RMS IPC error | Kendall tau |\n'
printf '|---|---|---|---|---|---|---|\n'
for m in overlap intel zen; do
	$PERPI palmed build --sim "$m" -q -o "$tmp/$m.json" >"$tmp/build"
	forms=$(sed -n 's/.*: \([0-9]*\) forms on \([0-9]*\) resources.*from \([0-9]*\) benchmarks in \([0-9.]*\) s.*/\1 \2 \3 \4/p' "$tmp/build")
	$PERPI palmed eval --sim "$m" -m "$tmp/$m.json" -n 1000 -o "$tmp/eval-$m" >"$tmp/eval" 2>/dev/null
	set -- $forms $(awk '$1 == "palmed" { print $4, $5 }' "$tmp/eval")
	printf '| %s | %s | %s | %s | %s s | %s | %s |\n' "$m" "$1" "$2" "$3" "$4" "$5" "$6"
done

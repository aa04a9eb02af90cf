#!/bin/sh
# Palmed inference on the simulated machines: benchmarks spent, build time,
# and accuracy on 1000 held-out kernels each (exact measurements). Then the
# mapping stage on the "catalogue" machine (a core of 15 forms, 474 forms
# to map) three ways: group tests (the default), Palmed's every resource
# alone (--exhaustive), and combinations of core forms from N probes
# (--probes N, the way of a core with too many groups).
# Run from the build directory: sh bench/palmed_sim.sh
set -eu
PERPI=${PERPI:-./perpi}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| machine | forms | resources | benchmarks | build time | RMS IPC error | Kendall tau |\n'
printf '|---|---|---|---|---|---|---|\n'
for m in overlap intel zen catalogue; do
	$PERPI palmed build --sim "$m" -q -o "$tmp/$m.json" >"$tmp/build"
	forms=$(sed -n 's/.*: \([0-9]*\) forms on \([0-9]*\) resources.*from \([0-9]*\) benchmarks in \([0-9.]*\) s.*/\1 \2 \3 \4/p' "$tmp/build")
	$PERPI palmed eval --sim "$m" -m "$tmp/$m.json" -n 1000 -o "$tmp/eval-$m" >"$tmp/eval" 2>/dev/null
	set -- $forms $(awk '$1 == "palmed" && $2 == "all" { print $5, $6 }' "$tmp/eval")
	printf '| %s | %s | %s | %s | %s s | %s | %s |\n' "$m" "$1" "$2" "$3" "$4" "$5" "$6"
done
echo
printf '| mapping of the catalogue machine | mapping benchmarks | forms on resources of their own | RMS IPC error | Kendall tau |\n'
printf '|---|---|---|---|---|\n'
for way in "groups (default)|" "every resource alone (--exhaustive)|--exhaustive" \
	"combinations, 8 probes (--probes 8)|--probes 8" "combinations, 6 probes (--probes 6)|--probes 6"; do
	name=${way%%|*} opt=${way#*|}
	# shellcheck disable=SC2086
	$PERPI palmed build --sim catalogue $opt -o "$tmp/m.json" >/dev/null 2>"$tmp/log"
	$PERPI palmed eval --sim catalogue -m "$tmp/m.json" -n 1000 -o "$tmp/e" >"$tmp/eval" 2>/dev/null
	set -- $(sed -n 's/.*from \([0-9]*\) benchmarks (.*; \([0-9]*\) forms bounded.*/\1 \2/p' "$tmp/log") \
		$(awk '$1 == "palmed" && $2 == "all" { print $5, $6 }' "$tmp/eval")
	printf '| %s | %s | %s | %s | %s |\n' "$name" "$1" "$2" "$3" "$4"
done

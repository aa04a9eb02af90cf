#!/bin/sh
# Palmed on this CPU, as a user runs it (docs/BENCHMARKS.md, "Palmed on
# this CPU"):
# 1. `perpi palmed build` (the whole catalogue: the core, then every other
#    form mapped) into a fresh measurement database, timed; then the same
#    build again from that database, timed;
# 2. six recorded runs (the bundled examples, ls -l /usr/bin, gzip -c of a
#    file, sort -n, python3; each traced for at most TRACE seconds) and
#    the coverage of their instructions that are not control transfers;
# 3. `perpi palmed eval` on held-out kernels of the independent generator
#    (-n KERNELS, default 300), of the training generator, and on the basic
#    blocks of the runs; llvm-mca-19 beside it when installed, perpi's cycle
#    model on the same code (the row "cycles", with a core file measured
#    by `perpi core -m` for the model's forms after the builds),
#    and the same kernels in the training harness (the row "harness").
# Unattended: writes the rows of the tables (markdown, for
# docs/BENCHMARKS.md), with the date, the CPU, the commit and the load, to
# RESULTS (default palmed_real.md in the current directory) and to the
# standard output; the progress and each step's output go to the standard
# error, every file to PALMED_BENCH_DIR (default: a fresh temporary one).
# A step that fails is said in RESULTS and the rest goes on (a failed
# first build ends it: nothing to evaluate). Takes 40-60 minutes on a
# quiet 2-core machine (the build at most 30, the rebuild at most 10, the
# six traces at most 6 x TRACE s, the three evaluations 5-10). Run from
# the build directory:
#   sh bench/palmed_real.sh [KERNELS [TRACE [RESULTS]]]
# PALMED_BUILD_ARGS adds options to both builds: a smoke run of the whole
# script in about 2 minutes, on a few forms:
#   PALMED_BUILD_ARGS="--forms FILE --budget 100 --training 100" \
#	sh bench/palmed_real.sh 20 3 smoke.md
set -eu
PERPI=${PERPI:-./perpi}
kernels=${1:-300}
trace=${2:-60}
results=${3:-palmed_real.md}
tmp=${PALMED_BENCH_DIR:-$(mktemp -d)}
mkdir -p "$tmp"
: >"$results"
say() { # a line of the results, also on the standard output
	printf '%s\n' "$*" | tee -a "$results"
}
echo "working in $tmp; the results go to $results" >&2
say "sh bench/palmed_real.sh $kernels $trace: $(date -u '+%Y-%m-%d %H:%M UTC'), $(git describe --always --dirty 2>/dev/null || echo 'no git'),"
say "CPU $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) (family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1) model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)), $(nproc) CPUs; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
say ""
timed() { # NAME COMMAND...: runs it, its stdout to $tmp/NAME, seconds to $tmp/NAME.s
	name=$1
	shift
	start=$(date +%s)
	status=0
	"$@" >"$tmp/$name" 2>"$tmp/$name.log" || status=$?
	echo $(($(date +%s) - start)) >"$tmp/$name.s"
	cat "$tmp/$name" >&2
	if [ $status -ne 0 ]; then
		say "step $name failed (exit $status): $(tail -1 "$tmp/$name.log")"
		return 1
	fi
}
extra=${PALMED_BUILD_ARGS:-}
[ -z "$extra" ] || say "builds with $extra"
# shellcheck disable=SC2086
timed build $PERPI palmed build $extra --db "$tmp/db" -o "$tmp/model.json" || exit 1
# shellcheck disable=SC2086
timed rebuild $PERPI palmed build $extra --db "$tmp/db" -o "$tmp/model2.json" || true
# The core's parameters and the latencies of the model's forms, for the
# cycle model's row ("cycles") of the evaluations below.
corearg=""
timed core $PERPI core -m "$tmp/model.json" --db "$tmp/db" -o "$tmp/core.json" &&
	corearg="--core $tmp/core.json"

# The runs (modest: single-stepping runs about 45,000 instructions a second).
seq 1 3000 | awk '{ print ($1 * 7919) % 10007 }' >"$tmp/numbers"
head -c 200000 /usr/share/dict/words 2>/dev/null >"$tmp/text" || seq 1 40000 >"$tmp/text"
rec() { # NAME PROGRAM ARGS...
	name=$1
	shift
	timeout $((trace + 30)) $PERPI record -q -o "$tmp/$name.data" --duration "$trace" "$@" \
		>/dev/null 2>"$tmp/$name.rec" </dev/null || true
}
rec summation examples/summation 2000
rec horner examples/horner
rec ls ls -l /usr/bin
rec gzip gzip -c "$tmp/text"
rec sort sort -n "$tmp/numbers"
rec python "$(readlink -f /usr/bin/python3)" -c 'print(sum(range(10**5)))'
runs=""
printf '| run | dynamic instructions | control transfers | covered (of the others) | uncovered forms (the 8 most run) |\n|---|---|---|---|---|\n' >"$tmp/coverage.md"
for r in summation horner ls gzip sort python; do
	[ -s "$tmp/$r.data" ] || { say "run $r: not recorded: $(tail -1 "$tmp/$r.rec")"; continue; }
	runs="$runs --from $tmp/$r.data"
	$PERPI report -i "$tmp/$r.data" --model "$tmp/model.json" >"$tmp/$r.report" 2>"$tmp/$r.report.log" ||
		{ say "run $r: no report: $(tail -1 "$tmp/$r.report.log")"; continue; }
	awk -v run="$r" '
	/^# covered: / { covered = $3; others = $6; pct = $13; sub(/;$/, "", pct); control = $15 }
	/^# uncovered: / {
		sub(/^# uncovered: /, ""); split($0, a, ",")
		if (++n <= 8) u = u (u ? "; " : "") a[1] " x" $2 }
	END {
		if (n > 8) u = u "; " n - 8 " more forms"
		printf "| %s | %d | %d | %s of %s %s | %s |\n", run, others + control, control, covered, others, pct, u ? u : "-" }' \
		"$tmp/$r.report" >>"$tmp/coverage.md"
done
echo >>"$tmp/coverage.md"
tee -a "$results" <"$tmp/coverage.md"
# shellcheck disable=SC2086
timed eval $PERPI palmed eval -m "$tmp/model.json" --db "$tmp/db" -n "$kernels" $corearg \
	-o "$tmp/eval.d" || true
timed eval-pd $PERPI palmed eval -m "$tmp/model.json" --db "$tmp/db" -n "$kernels" \
	--generator pipedream -o "$tmp/eval-pd.d" || true
# shellcheck disable=SC2086
timed eval-blocks $PERPI palmed eval -m "$tmp/model.json" --db "$tmp/db" -n 0 $runs $corearg \
	-o "$tmp/eval-blocks.d" || true
row() { # name, build output, seconds
	set -- "$1" "$(cat "$3")" $(sed -n 's/.*: \([0-9]*\) forms on \([0-9]*\) resources (\([0-9]*\) unmapped) from \([0-9]*\) benchmarks.*/\1 \2 \3 \4/p' "$2")
	printf '| %s | %s | %s | %s | %s | %d min %02d s |\n' "$1" "$3" "$4" "$5" "$6" $(($2 / 60)) $(($2 % 60))
}
{
printf '| model | forms | resources | unmapped | benchmarks | build time |\n|---|---|---|---|---|---|\n'
row "the catalogue, fresh database" "$tmp/build" "$tmp/build.s"
row "the same, from that database" "$tmp/rebuild" "$tmp/rebuild.s"
echo
printf '| held out | predictor | kernels | coverage | RMS IPC error | Kendall tau |\n'
printf '|---|---|---|---|---|---|\n'
awk '
FILENAME ~ /eval-blocks$/ && /^basic blocks/ { set = "basic blocks of the runs (weighted)" }
FILENAME ~ /eval-pd$/ { set = "training generator, random mixes" }
FILENAME ~ /eval$/ && !done[FILENAME]++ { set = "independent generator" }
($1 == "palmed" || $1 == "llvm-mca" || $1 == "cycles" || $1 == "harness") && set {
	printf "| %s (%s) | %s | %s | %s | %s | %s |\n", set, $2, $1, $3, $4, $5, $6 }' \
	"$tmp/eval" "$tmp/eval-pd" "$tmp/eval-blocks"
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%H:%M UTC'); files in $tmp"
} | tee -a "$results"
echo "results in $results" >&2

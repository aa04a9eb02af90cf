#!/bin/sh
# perpi eval cycles over one kernel (tests/cycles/evalk.c with
# bench/kernels/driver.c: a chain of 100 dependent imul), with the model and
# core file of tests/cycles/test_cycles.c's write mode (imul: latency 3, a
# cycle of R2 each). A call is predicted at the chain's 300 cycles plus at most
# a few for the loop's last branch and the ret (the call starts drained),
# and bounded by its 100 imul on R2: 100 cycles (the bound column, lifted
# per call). Then --again: the same recording predicted against native
# figures written here by hand, never timed.
: "${PERPI:=./perpi}" "${top_builddir:=.}" "${top_srcdir:=.}"
tc="$top_builddir/tests/cycles/test_cycles"
[ -x "$tc" ] || { echo "SKIP: $tc is not built"; exit 77; }
cc=${CC:-cc}
command -v "$cc" >/dev/null || { echo "SKIP: no C compiler to build the kernel"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
"$tc" write "$tmp/t.data" "$tmp/m.json" "$tmp/core.json" || { echo "FAIL: test_cycles write"; exit 1; }
k="$tmp/kernels/evalk"
mkdir -p "$tmp/kernels"
"$cc" -O2 -I"$top_srcdir/bench/kernels" -o "$k" "$top_srcdir/bench/kernels/driver.c" \
	"$top_srcdir/tests/cycles/evalk.c" -lm || { echo "FAIL: building the kernel"; exit 1; }
export XDG_DATA_HOME="$tmp/xdg"
ev() { "$PERPI" eval cycles -m "$tmp/m.json" --core "$tmp/core.json" --no-mca --runs 2 "$@"; }
# field NAME DIR COLUMN: eval-cycles.csv's COLUMN (1-based) in NAME's row
field() { awk -F, -v n="$1" -v c="$3" '$1 == n { print $c }' "$2/eval-cycles.csv"; }
in_range() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; }

ev -o "$tmp/A" "$k" > "$tmp/out" 2> "$tmp/err" || { echo "FAIL: eval cycles"; cat "$tmp/err"; exit 1; }
p=$(field evalk "$tmp/A" 3) b=$(field evalk "$tmp/A" 4) native=$(field evalk "$tmp/A" 2)
in_range "$p" 300 306 || { echo "FAIL: predicted $p cycles a call, not 300-306"; fail=1; }
in_range "$b" 99.9 100.1 || { echo "FAIL: bound $b, not 100"; fail=1; }
in_range "$native" 1 1000000 || { echo "FAIL: no native figure ($native)"; fail=1; }
grep -q '^llvm-mca  *-  *-  *0% (0 of 1)' "$tmp/out" ||
	{ echo "FAIL: llvm-mca left out, but its row is not dashes:"; cat "$tmp/out"; fail=1; }

# An earlier run, written by hand: the recording, and native figures that
# no machine timed (measure 1234.5, driver 999.0).
mkdir -p "$tmp/B"
cp "$tmp/A/evalk.data" "$tmp/B/"
{
	head -1 "$tmp/A/eval-cycles.csv"
	echo "evalk,1234.5,1.0,1.0,nan,3,304,0.0000,0,1.33,1234.5,999.0,0"
} > "$tmp/B/eval-cycles.csv"
ev --again "$tmp/B" -o "$tmp/C" "$k" > "$tmp/out" 2> "$tmp/err" ||
	{ echo "FAIL: --again"; cat "$tmp/err"; fail=1; }
[ "$(field evalk "$tmp/C" 2)" = 1234.5 ] ||
	{ echo "FAIL: --again: native $(field evalk "$tmp/C" 2), not the earlier 1234.5"; fail=1; }
[ "$(field evalk "$tmp/C" 3)" = "$p" ] ||
	{ echo "FAIL: --again: predicted $(field evalk "$tmp/C" 3), not $p as before"; fail=1; }
ev --again "$tmp/B" --native driver -o "$tmp/D" "$k" > /dev/null 2>&1
[ "$(field evalk "$tmp/D" 2)" = 999.0 ] ||
	{ echo "FAIL: --again --native driver: native $(field evalk "$tmp/D" 2), not 999.0"; fail=1; }

# Bad input: -o the earlier run itself; a kernel the earlier run lacks.
ev --again "$tmp/B" -o "$tmp/B" "$k" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q 'the same directory' "$tmp/err" ||
	{ echo "FAIL: --again DIR -o DIR: status $rc:"; cat "$tmp/err"; fail=1; }
ev --again "$tmp/kernels" -o "$tmp/F" "$k" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q 'give the -o of an earlier run' "$tmp/err" ||
	{ echo "FAIL: --again on a directory no run wrote: status $rc:"; cat "$tmp/err"; fail=1; }
cp "$k" "$tmp/kernels/other"
ev --again "$tmp/B" -o "$tmp/E" "$k" "$tmp/kernels/other" > /dev/null 2> "$tmp/err" ||
	{ echo "FAIL: --again with a kernel it lacks stopped"; cat "$tmp/err"; fail=1; }
grep -q 'other' "$tmp/err" || { echo "FAIL: the kernel the earlier run lacks is not reported"; fail=1; }
[ "$(field evalk "$tmp/E" 2)" = 1234.5 ] && [ "$(field other "$tmp/E" 3)" = nan ] ||
	{ echo "FAIL: --again with a kernel it lacks:"; cat "$tmp/E/eval-cycles.csv"; fail=1; }

# Every run slowed (the window probe's threshold set by hand below any
# ratio: perpi-measure(1)): measured twice more, on the calmest CPU, and
# marked slowed.
PERPI_WINDOW_SPLIT=0.0001 ev -o "$tmp/G" "$k" > "$tmp/out" 2> "$tmp/err" ||
	{ echo "FAIL: eval cycles with every run slowed"; cat "$tmp/err"; fail=1; }
[ "$(grep -c 'every run slowed; measured again on CPU [0-9]' "$tmp/err")" = 2 ] ||
	{ echo "FAIL: every run slowed, not measured again twice:"; cat "$tmp/err"; fail=1; }
[ "$(field evalk "$tmp/G" 13)" = 1 ] && grep -q '^evalk  *[0-9]*~' "$tmp/out" ||
	{ echo "FAIL: every run slowed, not marked:"; cat "$tmp/G/eval-cycles.csv" "$tmp/out"; fail=1; }

[ $fail = 0 ] && echo "PASS: eval cycles: prediction, bound, --again, bad input, slowed runs"
exit $fail

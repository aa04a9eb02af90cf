#!/bin/sh
# Record once, analyse many times: a recorded run replays into the same
# engine code as a live one, so 'perpi report' on the file prints exactly
# the figures of 'perpi PROGRAM' (the second method here: the live trace).
set -u
: "${PERPI:?}" "${top_builddir:?}" "${top_srcdir:?}"
"$PERPI" record --help >/dev/null 2>&1 || { echo "SKIP: perpi has no record command"; exit 77; }
ex="$top_builddir/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# perpi's tracer and the tracee on one CPU: single-stepping is much faster.
pin=""
command -v taskset >/dev/null && pin="taskset -c 0"

same() { # same NAME FILE1 FILE2
	if ! cmp -s "$2" "$3"; then
		echo "FAIL: $1: replay differs from live"; diff "$2" "$3"; fail=1
	fi
}

for prog in "summation 300" "horner 12"; do
	set -- $prog
	name=$1
	$pin "$PERPI" record -q -o "$tmp/$name.data" "$ex/$@" >/dev/null ||
		{ echo "FAIL: record $prog"; fail=1; continue; }
	$pin "$PERPI" -o "$tmp/$name.live" "$ex/$@" >/dev/null || { echo "FAIL: live $prog"; fail=1; }
	"$PERPI" report -i "$tmp/$name.data" | grep -v '^#' > "$tmp/$name.replay"
	same "$prog" "$tmp/$name.live" "$tmp/$name.replay"
	$pin "$PERPI" -o "$tmp/$name.live-se" --stack-engine "$ex/$@" >/dev/null
	"$PERPI" report -i "$tmp/$name.data" --stack-engine | grep -v '^#' > "$tmp/$name.replay-se"
	same "$prog --stack-engine" "$tmp/$name.live-se" "$tmp/$name.replay-se"
done

# The examples' functions are there by name, with their call counts.
for f in Sum Sum2 DDSum; do
	grep -q "^$f  *:: I \[[0-9]*\] .*(1 call)$" "$tmp/summation.replay" ||
		{ echo "FAIL: no line for $f"; cat "$tmp/summation.replay"; fail=1; }
done
# Metadata: the command line and how the run ended.
"$PERPI" report -i "$tmp/horner.data" | grep -q "^# $tmp/horner.data: $ex/horner 12\$" ||
	{ echo "FAIL: header"; "$PERPI" report -i "$tmp/horner.data"; fail=1; }
"$PERPI" report -i "$tmp/horner.data" | grep -q "exited with status 0\$" ||
	{ echo "FAIL: end of run"; fail=1; }

# Horner's critical path is its loop-carried s = s * x + a[i]
# (examples/horner.c, found here by grep, not by perpi): for degree 12,
# the mulsd and addsd of every iteration but perhaps the first (which may
# wait for its address instead): at least 2 * 11 = 22 instructions.
line=$(grep -n 's = s \* x + a\[i\];' "$top_srcdir/examples/horner.c" | cut -d: -f1)
"$PERPI" critical -i "$tmp/horner.data" --function Horner > "$tmp/crit"
awk -v want="horner.c:$line" '/per source line:/ { summary = 1 }
	summary && $3 ~ want"$" && $1 + 0 >= 22 { found = 1 } END { exit !found }' "$tmp/crit" ||
	{ echo "FAIL: Horner's critical path is not on horner.c:$line"; cat "$tmp/crit"; fail=1; }

# The program's exit status is perpi record's, and a run that never reaches
# the traced region gives an empty but valid file.
$pin "$PERPI" record -q -o "$tmp/bad.data" "$ex/horner" 0 >/dev/null 2>&1
rc=$?
[ "$rc" = 2 ] || { echo "FAIL: record exit status $rc, want horner's 2"; fail=1; }
"$PERPI" report -i "$tmp/bad.data" | grep -q "exited with status 2" ||
	{ echo "FAIL: exit status 2 not recorded"; fail=1; }
"$PERPI" record -o "$tmp/x.data" "$tmp/no-such-program" >/dev/null 2>&1 &&
	{ echo "FAIL: recording a missing program succeeded"; fail=1; }
[ ! -e "$tmp/x.data" ] || { echo "FAIL: a failed record left a file"; fail=1; }

[ "$fail" = 0 ] && echo "PASS: replay equals live"
exit "$fail"

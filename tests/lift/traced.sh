#!/bin/sh
# tests/lift/loop.S traced for real: its blocks (test_traced), then the
# live perpi run with the hand-written model of tests/lift/test_lift.c
# (R0: add, dec, mov, xor 0.25 each; R1: addsd 0.5; jnz and ret unmapped).
# By hand, cycles per occurrence = max over resources:
#   B0 mov            R0 0.25                       -> 0.25
#   B1 loop body      R0 add+dec 0.5, R1 2 addsd 1.0 -> 1.0 (R1), 100 times
#   B2 xor, ret       R0 0.25                       -> 0.25
# main: 0.25 + 100 x 1.0 + 0.25 = 100.5 cycles; covered 1 + 4 x 100 + 1 =
# 402 of 503 instructions, all 402 that are not control transfers (the
# 100 jnz and the ret): 100.0%; IPC 402 / 100.5 = 4.00; bottleneck R1.
: "${PERPI:=./perpi}" "${top_builddir:=.}"
d="$top_builddir/tests/lift"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pin=""
command -v taskset >/dev/null && pin="taskset -c 0" # tracer and tracee on one CPU: faster
fail=0
$pin "$d/test_traced" "$d/loop" || fail=1
"$d/test_lift" write "$tmp/t.data" "$tmp/m.json" host || { echo "FAIL: writing the model"; exit 1; }
$pin "$PERPI" --model "$tmp/m.json" -o "$tmp/out" "$d/loop" 2> "$tmp/err"
want='(1 call) :: bound [100.5] :: IPC [4.00] :: bottleneck [R1] :: covered [100.0%]'
grep '^main ' "$tmp/out" | grep -qF -- "$want" ||
	{ echo "FAIL: live run: no '$want' in:"; cat "$tmp/out" "$tmp/err"; fail=1; }
grep -q '^main  *:: I \[503\]' "$tmp/out" || { echo "FAIL: main's I"; fail=1; }
# Recorded, then replayed: the same figures, and the blocks table with the
# blocks' ILP (derived in tests/lift/test_traced.c: the body takes 2 steps
# for 5 instructions, 2.50); by hand its cycles are 100 x 1.0 = 100.0, and
# it covers add, dec and the two addsd: 4 of the 4 instructions that are
# not control transfers (jnz is the fifth), 100.0%.
if "$PERPI" record --help > /dev/null 2>&1; then
	loop=$(cd "$d" && pwd)/loop
	(cd "$tmp" && $pin "$PERPI" record -q "$loop") > /dev/null ||
		{ echo "FAIL: perpi record"; fail=1; }
	(cd "$tmp" && "$PERPI" report --model m.json --blocks) > "$tmp/rep" 2> "$tmp/err"
	grep '^main ' "$tmp/rep" | grep -qF -- "$want" || { echo "FAIL: replay:"; cat "$tmp/rep"; fail=1; }
	body=$(grep -A1 '^address' "$tmp/rep" | sed -n 2p | tr -s ' ' | cut -d' ' -f2- | sed 's/ *$//')
	[ "$body" = "main 100 5 2.50 1.00 100.0 R1 100.0%" ] ||
		{ echo "FAIL: body block: '$body'"; cat "$tmp/rep"; fail=1; }
	# palmed build --from: the loop's 7 forms (mov, add, addsd, dec, jne,
	# xor, ret); the simulated machine knows add and addsd only.
	(cd "$tmp" && "$PERPI" palmed build --sim intel --from perpi.data -o sim.json) \
		> "$tmp/out" 2> "$tmp/err" || { echo "FAIL: palmed build --from"; cat "$tmp/err"; fail=1; }
	grep -q 'palmed: 7 forms from perpi.data' "$tmp/err" && grep -q '2 forms on .*(5 unmapped)' "$tmp/out" ||
		{ echo "FAIL: --from forms:"; cat "$tmp/out" "$tmp/err"; fail=1; }
else
	echo "(perpi record not built: the replay checks are skipped)"
fi
[ $fail = 0 ] && echo "PASS: the loop traced and lifted"
exit $fail

#!/bin/sh
# tests/lift/loop.S traced for real: its blocks (test_traced), then the
# live perpi run with the hand-written model of tests/lift/test_lift.c
# (R0: add, dec, mov, xor 0.25 each; R1: addsd 0.5; jnz and ret unmapped).
# By hand, cycles per occurrence = max over resources:
#   B0 mov            R0 0.25                       -> 0.25
#   B1 loop body      R0 add+dec 0.5, R1 2 addsd 1.0 -> 1.0 (R1), 100 times
#   B2 xor, ret       R0 0.25                       -> 0.25
# main: 0.25 + 100 x 1.0 + 0.25 = 100.5 cycles; covered 1 + 4 x 100 + 1 =
# 402 of 503 instructions (79.9%); IPC 402 / 100.5 = 4.00; bottleneck R1.
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
want='(1 call) :: cycles [100.5] :: IPC [4.00] :: bottleneck [R1] :: covered [79.9%]'
grep '^main ' "$tmp/out" | grep -qF -- "$want" ||
	{ echo "FAIL: live run: no '$want' in:"; cat "$tmp/out" "$tmp/err"; fail=1; }
grep -q '^main  *:: I \[503\]' "$tmp/out" || { echo "FAIL: main's I"; fail=1; }
[ $fail = 0 ] && echo "PASS: the loop traced and lifted"
exit $fail

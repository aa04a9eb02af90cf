#!/bin/sh
# perpi forms trace on tests/lift/loop.S, whose instructions are counted by
# hand in its comment: mov $100, %ecx once; add, addsd x2, dec, jnz 100
# times each; xor %eax, %eax and ret once: 503 dynamic instructions, 101
# control transfers (jnz, ret), 402 others, all in forms the runner
# accepts. The zero idiom is its own form (XOR_GPR32_SAME).
set -u
PERPI=${PERPI:-./perpi}
loop=${top_builddir:-.}/tests/lift/loop
[ -x "$loop" ] || { echo "SKIP: $loop is not built"; exit 77; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$PERPI" record -q -o "$t/loop.data" "$loop" >/dev/null 2>"$t/err" ||
	{ grep -qi 'ptrace' "$t/err" && { echo "SKIP: cannot trace: $(cat "$t/err")"; exit 77; }
	  echo "FAIL: record: $(cat "$t/err")"; exit 1; }
"$PERPI" forms trace "$t/loop.data" >"$t/out" 2>"$t/err" || { echo "FAIL: forms trace: $(cat "$t/err")"; exit 1; }
cat "$t/out"
fail=0
expect() { # COUNT FORM STATUS
	awk -v c="$1" -v f="$2" -v s="$3" '$1 == c && $3 == f && index($0, s) { found = 1 } END { exit !found }' "$t/out" ||
		{ echo "FAIL: want $1 x $2 ($3)"; fail=1; }
}
expect 200 ADDSD_XMM_XMM ok
expect 100 ADD_GPR64_GPR64 ok
expect 100 DEC_GPR32 ok
expect 100 JNE_IMM8 'control transfer'
expect 1 MOV_GPR32_IMM32 ok
expect 1 XOR_GPR32_SAME ok
expect 1 RET 'control transfer'
[ "$(wc -l <"$t/out")" = 8 ] || { echo "FAIL: not 7 forms and a summary"; fail=1; }
grep -q '^503 dynamic instructions: 101 control transfers; of the 402 others, 402 (100.00%)' "$t/out" ||
	{ echo "FAIL: the summary"; fail=1; }
exit $fail

#!/bin/sh
# Fast-forward: ff_prog runs 10^9 instructions outside the traced function
# and 10^4 inside it (counted by hand in ff_prog.S). perpi --function
# inside must finish within 2 x native time + stepping time, where the
# stepping time is 10^4 steps at the bare single-step rate measured here
# (bare_step.c over nolibc-style 10^5-step loop on the same CPU).
# usage: bench/fast_forward.sh [PERPI] [CPU]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
perpi=${1:-$top/perpi}
cpu=${2:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -o "$tmp/ff_prog" "$top/bench/ff_prog.S"
cc -O2 -o "$tmp/bare_step" "$top/bench/bare_step.c"
printf '.globl _start\n_start: mov $50000, %%ecx\n1: dec %%ecx\n jnz 1b\n mov $60, %%eax\n xor %%edi, %%edi\n syscall\n' >"$tmp/steps.S"
cc -nostdlib -static -o "$tmp/steps" "$tmp/steps.S"
now() { date +%s.%N; }
t0=$(now)
taskset -c "$cpu" "$tmp/ff_prog"
t1=$(now)
"$perpi" -q --cpu "$cpu" --function inside -o "$tmp/report" "$tmp/ff_prog"
t2=$(now)
bare=$("$tmp/bare_step" "$cpu" "$tmp/steps")
rate=$(echo "$bare" | awk '{ printf "%.0f", $2 / $4 }')
i=$(sed -n 's/^whole run *:: I \[\([0-9]*\)\].*/\1/p' "$tmp/report")
echo "$t0 $t1 $t2 $rate $i" | awk '{
	native = $2 - $1; traced = $3 - $2; stepping = $5 / $4; budget = 2 * native + stepping
	printf "native %.3f s; perpi --function inside %.3f s (I = %d, want 10000)\n", native, traced, $5
	printf "stepping time %.3f s (%d steps at %d steps/s); budget 2 x native + stepping = %.3f s\n", stepping, $5, $4, budget
	printf "perpi / budget = %.2f (target <= 1)\n", traced / budget
}'

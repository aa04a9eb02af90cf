#!/bin/sh
# Forms the runner can only time with helper instructions beside them
# (docs/MODEL.md, "The measurements"): adc reads the carry it writes, so a
# zero idiom on a spare register (XOR_GPR32_SAME) goes before each
# instance; div gets `xor edx, edx` and `mov eax, imm` (MOV_GPR32_IMM32)
# before each. The cycles are those of the kernel and the helpers together,
# which the model cannot split: both forms are unmapped, the model naming
# the helpers; add and imul, timed alone, are mapped. A second build from
# the database gives the same reasons, byte for byte.
# Skipped when this machine cannot time a kernel now.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! $PERPI bench --no-db ADD_GPR64_GPR64 >"$tmp/probe" 2>&1; then
	echo "SKIP: this machine cannot time a kernel now: $(tail -1 "$tmp/probe")"
	exit 77
fi
printf '%s\n' ADD_GPR64_GPR64 IMUL_GPR64_GPR64 ADC_GPR64_GPR64 DIV_GPR32 >"$tmp/forms"
fail=0
for run in 1 2; do
	timeout 300 $PERPI palmed build --forms "$tmp/forms" --db "$tmp/db" --budget 60 \
		--training 40 -q -o "$tmp/m$run.json" >"$tmp/out" 2>&1 ||
		{ echo "FAIL: build $run"; cat "$tmp/out"; exit 1; }
done
# the model on one line, JSON's layout aside
tr -d '\n' <"$tmp/m1.json" | sed 's/"[[:space:]]*:[[:space:]]*/":/g; s/,[[:space:]]*"/,"/g' >"$tmp/m"
has() { grep -q "$1" "$tmp/m" || { echo "FAIL: $2"; fail=1; }; }
has '"form":"ADD_GPR64_GPR64","cycles"' "add not mapped"
has '"form":"IMUL_GPR64_GPR64","cycles"' "imul not mapped"
has '"form":"ADC_GPR64_GPR64","reason":"timed with helpers (XOR_GPR32_SAME)' \
	"adc not unmapped with its helper"
has '"form":"DIV_GPR32","reason":"timed with helpers (MOV_GPR32_IMM32 XOR_GPR32_SAME)' \
	"div not unmapped with its helpers"
sed -n '/"unmapped"/,/]/p' "$tmp/m1.json" >"$tmp/u1"
sed -n '/"unmapped"/,/]/p' "$tmp/m2.json" >"$tmp/u2"
cmp -s "$tmp/u1" "$tmp/u2" || { echo "FAIL: the rebuild's reasons differ"; diff "$tmp/u1" "$tmp/u2"; fail=1; }
[ $fail = 0 ] && echo "ok adc and div unmapped, naming their helpers; add, imul mapped" || cat "$tmp/m1.json"
exit $fail

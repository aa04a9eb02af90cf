#!/bin/sh
# perpi forms discover, on a few mnemonics whose fate is known in advance:
# ADD has the classic register, immediate and memory forms, and LOCK forms
# on memory; DIV's register and memory forms run (with set operands);
# LFENCE and JMP are refused with their reason; VADDPH (AVX512-FP16) faults
# in the worker on a CPU without avx512_fp16 in /proc/cpuinfo, and runs on
# one with it; LEA has one form per address shape (MEM, MEMBI, MEMBIS,
# MEMBID, MEMIS, MEMRIP); XOR of a register with itself is XOR_GPR32_SAME;
# STOSB has its REP form and PUSH its immediate one; PSLLDQ (SSE2, every
# x86-64 CPU) shifts an XMM register by an immediate; VPMOVMSKB writes a GPR
# from an XMM (AVX) and from a YMM register (AVX2). The catalogue lands in
# the database with the machine's identity.
set -u
PERPI=${PERPI:-./perpi}
command -v as >/dev/null || { echo "SKIP: GNU as is not installed"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: the sqlite3 shell is needed to inspect the database"; exit 77; }
fail=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$PERPI" forms discover --db "$t/f.db" --list ADD DIV LFENCE JMP VADDPH LEA XOR STOSB PUSH PSLLDQ VPMOVMSKB >"$t/list" 2>"$t/summary" ||
	{ echo "FAIL: discover: $(cat "$t/summary")"; exit 1; }
cat "$t/summary"
expect() { # FORM STATUS
	grep -q "^$1	$2" "$t/list" || { echo "FAIL: $1 is not '$2': $(grep "^$1	" "$t/list")"; fail=1; }
}
for f in ADD_GPR64_GPR64 ADD_GPR32_IMM32 ADD_GPR64_IMM8 ADD_M64_GPR64 ADD_GPR8_M8 ADD_GPR16_IMM16 \
	LOCK.ADD_M64_GPR64 DIV_GPR64 DIV_M32 LEA_GPR64_MEM LEA_GPR64_MEMBI LEA_GPR64_MEMBIS \
	LEA_GPR64_MEMBID LEA_GPR64_MEMIS LEA_GPR64_MEMRIP LEA_GPR32_MEMBID XOR_GPR32_SAME \
	XOR_GPR32_GPR32 REP.STOSB STOSB PUSH_GPR64 PUSH_IMM8 PUSH_IMM32 PUSH_M64 PSLLDQ_XMM_IMM8; do
	expect "$f" ok
done
expect LFENCE unsupported
expect JMP unsupported
grep -q '^LFENCE	unsupported	serialising' "$t/list" || { echo "FAIL: LFENCE's reason"; fail=1; }
# no lock on a register destination, no zero idiom of 8 bits (form.c)
grep -q '^LOCK.ADD_GPR' "$t/list" && { echo "FAIL: LOCK.ADD on a register kept"; fail=1; }
grep -q '^XOR_GPR8_SAME' "$t/list" && { echo "FAIL: XOR_GPR8_SAME kept"; fail=1; }
if grep -qw avx512_fp16 /proc/cpuinfo; then
	expect VADDPH_ZMM_ZMM_ZMM ok
else
	expect VADDPH_ZMM_ZMM_ZMM fault
fi
# a GPR written from a vector register of each width: vpmovmskb eax, ymm
# (glibc's AVX2 string functions: 0.2-0.7% of ls's and sort's instructions)
if grep -qw avx2 /proc/cpuinfo; then
	expect VPMOVMSKB_GPR32_YMM ok
else
	expect VPMOVMSKB_GPR32_YMM fault
fi
if grep -qw avx /proc/cpuinfo; then expect VPMOVMSKB_GPR32_XMM ok; else expect VPMOVMSKB_GPR32_XMM fault; fi
# no form of ADD that GNU as would encode differently (e.g. ADD_GPR64_IMM64 does not exist)
grep -q '^ADD_GPR64_IMM64' "$t/list" && { echo "FAIL: ADD_GPR64_IMM64 kept"; fail=1; }
stored=$(sqlite3 "$t/f.db" "select count(*) from form f join machine m on m.id = f.machine_id where m.vendor != ''")
[ "$stored" = "$(wc -l <"$t/list")" ] || { echo "FAIL: $stored forms stored, $(wc -l <"$t/list") listed"; fail=1; }
"$PERPI" forms check ADD_GPR64_IMM8 | grep -q '^ADD_GPR64_IMM8	supported' || { echo "FAIL: forms check"; fail=1; }
"$PERPI" forms check ADD_XYZ 2>"$t/err"; rc=$?
{ [ $rc = 1 ] && grep -q "^perpi: forms: bad form 'ADD_XYZ'" "$t/err"; } || { echo "FAIL: bad form: $rc"; fail=1; }
# --run assembles and runs each form's kernel once, as discovery does (and
# as `palmed build` checks its built-in core before measuring it): the
# core's AVX-512 forms fault where /proc/cpuinfo lacks the extension and
# run where it has it; LFENCE is refused before running.
"$PERPI" forms check --run ADD_GPR64_GPR64 VADDPS_ZMM_ZMM_ZMM VMOVDQU64_YMM_M256 LFENCE >"$t/run" ||
	{ echo "FAIL: forms check --run"; fail=1; }
run_is() { # FORM STATUS
	grep -q "^$1	$2" "$t/run" || { echo "FAIL: check --run: $1 is not '$2': $(grep "^$1	" "$t/run")"; fail=1; }
}
run_is ADD_GPR64_GPR64 ok
run_is LFENCE unsupported
if grep -qw avx512f /proc/cpuinfo; then run_is VADDPS_ZMM_ZMM_ZMM ok; else run_is VADDPS_ZMM_ZMM_ZMM fault; fi
if grep -qw avx512vl /proc/cpuinfo; then run_is VMOVDQU64_YMM_M256 ok; else run_is VMOVDQU64_YMM_M256 fault; fi
[ "$(wc -l <"$t/run")" = 4 ] || { echo "FAIL: check --run printed $(wc -l <"$t/run") lines for 4 forms"; fail=1; }
# The whole catalogue finds what each mnemonic's own discovery finds: an
# instance that decodes as something else must not shift the instances
# after it (the walk over the assembled candidates lost half of them once:
# VMOVDQU_XMM_M128 and VPXOR_XMM_XMM_XMM among them), nor a mnemonic one
# decoder lacks (Capstone 4 has no vptestmb, which glibc's string functions
# run on AVX-512 CPUs: the whole catalogue takes Zydis's mnemonics too).
# Mnemonics are taken in any case.
"$PERPI" forms discover --no-db --list >"$t/all" 2>/dev/null || { echo "FAIL: whole discovery"; fail=1; }
for m in vmovdqu VPXOR MOVAPS shr VPCMPB IMUL vptestmb; do
	"$PERPI" forms discover --no-db --list "$m" >"$t/one" 2>/dev/null || { echo "FAIL: discover $m"; fail=1; }
	[ -s "$t/one" ] || { echo "FAIL: no form of $m alone"; fail=1; }
	sort "$t/one" | comm -23 - "$(sort "$t/all" >"$t/alls"; echo "$t/alls")" | grep -q . &&
		{ echo "FAIL: the whole catalogue lacks forms of $m: $(sort "$t/one" | comm -23 - "$t/alls" | head -3 | tr '\n' ' ')"; fail=1; }
done
exit $fail

#!/bin/sh
# perpi bench on this CPU, with margins wide enough for a noisy shared VM:
# - independent adds reach at least 2.5x the IPC of a dependent add chain
#   (any out-of-order x86 core has >= 3 integer ALUs and a 1-cycle add);
# - no kernel's IPC exceeds what the core can issue: 8 per cycle on any
#   x86 core; on AMD family 19h (Zen 3/4, AMD's Software Optimization Guide):
#   6 (dispatch width), adds 4 (ALUs), loads 3, stores 2, 256-bit FP adds
#   and multiplies 2 (two pipes each), 64-bit IMUL 1 (one multiplier);
# - bad input and a faulting kernel give "perpi: ..." and an exit status,
#   never a crash.
set -u
PERPI=${PERPI:-./perpi}
command -v as >/dev/null || { echo "SKIP: GNU as is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read JSON"; exit 77; }
fail=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT

# A host so busy that no repetition runs undisturbed for seconds cannot be
# measured at all: that is a skip, not a failure.
busy() { # busy ERRFILE
	if grep -q 'undisturbed by the host' "$1"; then
		echo "SKIP: the host is too busy to measure anything: $(head -1 "$1")"; exit 77
	fi
}

field() { # field JSONFILE INDEX KEY
	python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[int(sys.argv[2])][sys.argv[3]])" "$@"
}

"$PERPI" bench --no-db --json ADD_GPR64_GPR64 >"$t/tp.json" 2>"$t/err" || { busy "$t/err"; echo "FAIL: throughput run"; exit 1; }
"$PERPI" bench --no-db --json --latency ADD_GPR64_GPR64 >"$t/lat.json" 2>"$t/err" || { busy "$t/err"; echo "FAIL: latency run"; exit 1; }
tp=$(field "$t/tp.json" 0 ipc)
lat=$(field "$t/lat.json" 0 cycles)
src=$(field "$t/tp.json" 0 timing)
echo "independent adds: IPC $tp; dependent chain: $lat cycles per add; timing $src"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) * float(sys.argv[2]) >= 2.5 else 1)" "$tp" "$lat" ||
	{ echo "FAIL: independent adds only $tp IPC against a chain of $lat cycles"; fail=1; }
python3 -c "import sys; sys.exit(0 if 0.9 <= float(sys.argv[1]) <= 1.1 else 1)" "$lat" ||
	{ echo "FAIL: a dependent add takes $lat cycles, not 1"; fail=1; }

family=$(awk -F': ' '/^cpu family/{print $2; exit}' /proc/cpuinfo)
vendor=$(awk -F': ' '/^vendor_id/{print $2; exit}' /proc/cpuinfo)
zen=0
if [ "$vendor" = AuthenticAMD ] && [ "$family" = 25 ]; then zen=1; fi
# (NOP is left out: Zen 3/4 fuse NOP pairs and retire about 12 per cycle)
"$PERPI" bench --no-db --json ADD_GPR64_GPR64 MOV_GPR64_GPR64 MOV_GPR64_M64 MOV_M64_GPR64 \
	VADDPD_YMM_YMM_YMM VMULPD_YMM_YMM_YMM IMUL_GPR64_GPR64 \
	'ADD_GPR64_GPR64 MOV_GPR64_M64 VADDPD_YMM_YMM_YMM' \
	'IMUL_GPR64_GPR64 LEA_GPR64_MEM MOV_M64_GPR64 ADDSD_XMM_XMM' >"$t/w.json" 2>"$t/err" ||
	{ busy "$t/err"; echo "FAIL: width kernels"; exit 1; }
python3 - "$t/w.json" "$zen" <<'PY' || fail=1
import json, sys
rs = json.load(open(sys.argv[1])); zen = sys.argv[2] == "1"
zen_limits = {"ADD_GPR64_GPR64": 4, "MOV_GPR64_M64": 3, "MOV_M64_GPR64": 2,
              "VADDPD_YMM_YMM_YMM": 2, "VMULPD_YMM_YMM_YMM": 2, "IMUL_GPR64_GPR64": 1}
bad = 0
for r in rs:
    limit = zen_limits.get(r["kernel"], 6) if zen else 8
    ok = r["ipc"] <= limit * 1.05
    print("%-55s IPC %.3f (limit %.0f)%s" % (r["kernel"], r["ipc"], limit, "" if ok else "  FAIL"))
    bad += not ok
sys.exit(1 if bad else 0)
PY

# Stack forms of every width leave rsp where the loop found it: GNU as
# assembles the generated loop, objdump (not perpi) reads the pushes and
# pops back, and each moves rsp by its operand's size (2 bytes for push bx,
# pushw 0x1234, push word ptr [m], push word ptr [b + i*8 + d]; 8 for the
# 64-bit ones); then the kernels
# run without faulting.
for k in PUSH_GPR16 POP_GPR16 PUSH_M16 POP_M16 PUSH_IMM16 'PUSH_GPR16^3 POP_GPR64' \
	'PUSH_IMM8 POP_M16^2' PUSH_M64 POP_M16X PUSH_M16X 'PUSH_GPR64 POP_M16X^4' POP_M64X; do
	"$PERPI" bench --show-asm "$k" | grep -v '^#' >"$t/s.s" && as "$t/s.s" -o "$t/s.o" ||
		{ echo "FAIL: $k: the loop does not assemble"; fail=1; continue; }
	objdump -d -M intel --no-show-raw-insn "$t/s.o" >"$t/s.d"
	net=$(python3 - "$t/s.d" <<'PY'
import re, sys
net, on = 0, False
for line in open(sys.argv[1]):
    ins = line.split("\t", 1)[1].strip() if "\t" in line else ""
    if ins.startswith("lea") and "rsp,[rip" in ins:   # the loop follows
        on = True
        continue
    if not on:
        continue
    if re.match(r"j(ne|nz) ", ins):
        break
    m = re.match(r"(push|pop)(w|q)?\s+(.*)", ins)
    if m:
        op = m.group(3)
        w = 2 if (m.group(2) == "w" or re.match(r"word ptr", op, re.I) or
                  re.fullmatch(r"[abcd]x|si|di|bp|r\d+w", op)) else 8
        net += -w if m.group(1) == "push" else w
    m = re.match(r"lea\s+rsp,\[rsp([+-])(0x[0-9a-f]+)\]", ins)
    if m:
        net += int(m.group(1) + m.group(2), 16)
print(net)
PY
)
	[ "$net" = 0 ] || { echo "FAIL: $k: one iteration moves rsp by $net bytes"; fail=1; }
	case $k in PUSH_IMM16) grep -q 'pushw' "$t/s.d" || { echo "FAIL: PUSH_IMM16 assembled as a 64-bit push"; fail=1; } ;; esac
done
"$PERPI" bench --no-db PUSH_GPR16 POP_M16 PUSH_IMM16 POP_M16X >"$t/out" 2>"$t/err" ||
	{ busy "$t/err"; echo "FAIL: 16-bit stack kernels: $(cat "$t/err")"; fail=1; }

# bad input: message and status, no crash
for k in 'FOO_GPR99' 'ADD_GPR64_GPR64^0' ''; do
	"$PERPI" bench --no-db "$k" >/dev/null 2>"$t/err"; rc=$?
	if [ $rc -eq 0 ] || [ $rc -gt 2 ] || ! grep -q '^perpi: bench: ' "$t/err"; then
		echo "FAIL: bad kernel '$k' gave status $rc: $(cat "$t/err")"; fail=1
	fi
done
"$PERPI" bench --no-db LEAVE >/dev/null 2>"$t/err"
grep -q 'unsupported: builds or drops a frame' "$t/err" || { echo "FAIL: LEAVE not refused: $(cat "$t/err")"; fail=1; }
"$PERPI" bench --no-db --latency MOV_M64_GPR64 >/dev/null 2>"$t/err"
grep -q 'cannot form a chain' "$t/err" || { echo "FAIL: store latency not refused: $(cat "$t/err")"; fail=1; }
# a kernel that faults costs a worker, not perpi (the CPU must lack AVX512-FP16)
if ! grep -qw avx512_fp16 /proc/cpuinfo; then
	"$PERPI" bench --no-db VADDPH_XMM_XMM_XMM ADD_GPR64_GPR64 >"$t/out" 2>"$t/err"; rc=$?
	if [ $rc -ne 1 ] || ! grep -q 'faulted: Illegal instruction' "$t/err" || ! grep -q ADD_GPR64_GPR64 "$t/out"; then
		echo "FAIL: faulting kernel: status $rc, $(cat "$t/err")"; fail=1
	fi
fi
exit $fail

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

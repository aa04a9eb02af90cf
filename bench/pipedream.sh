#!/bin/sh
# Pipedream speed and stability (docs/BENCHMARKS.md, "Pipedream"):
# 1. median wall time to measure one new kernel end to end, one perpi
#    process per kernel (target <= 50 ms), the forms' semantics already
#    cached as in a Palmed campaign; and the same amortised over a campaign
#    of 100 new kernels in one process;
#    and one at a time through bench_measure in one process (as Palmed);
# 2. run-to-run spread of single-form IPC: 8 forms x 5 fresh processes,
#    RMS of each run's deviation from its form's mean (target <= 2%).
# Usage: sh bench/pipedream.sh [PERPI]     (prints Markdown table rows)
set -eu
PERPI=${1:-./perpi}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
db=$t/m.db
forms="ADD_GPR64_GPR64 SUB_GPR64_GPR64 XOR_GPR64_GPR64 IMUL_GPR64_GPR64 MOV_GPR64_M64 MOV_M64_GPR64
 LEA_GPR64_MEM ADDSD_XMM_XMM VADDPD_YMM_YMM_YMM VFMADD231PD_YMM_YMM_YMM MOVZX_GPR32_GPR8 POPCNT_GPR64_GPR64"
# the forms alone first, as Palmed does (caches their semantics and the probe reference)
"$PERPI" bench --db "$db" $forms >/dev/null
i=0
for a in $forms; do for b in $forms; do [ "$a" \< "$b" ] && echo "$a^2 $b"; done; done >"$t/pairs"
head -30 "$t/pairs" >"$t/single"
tail -n +31 "$t/pairs" | head -100 >"$t/campaign"
while read -r k; do
	s=$(date +%s%N); "$PERPI" bench --db "$db" "$k" >/dev/null 2>&1 || true; e=$(date +%s%N)
	echo $(((e - s) / 1000))
done <"$t/single" | sort -n >"$t/times"
n=$(wc -l <"$t/times")
median=$(sed -n "$(((n + 1) / 2))p" "$t/times")
p90=$(sed -n "$(((n * 9 + 9) / 10))p" "$t/times")
s=$(date +%s%N); "$PERPI" bench --db "$db" -f "$t/campaign" >/dev/null 2>&1 || true; e=$(date +%s%N)
m=$(wc -l <"$t/campaign")
echo "| new kernel, one process each (median of $n) | $(echo "$median" | awk '{printf "%.1f ms", $1/1000}') (p90 $(echo "$p90" | awk '{printf "%.1f ms", $1/1000}')) | <= 50 ms |"
echo "| new kernel within a campaign of $m | $(echo "$((e - s)) $m" | awk '{printf "%.1f ms", $1/1e6/$2}') | |"
make -s bench/bench_pipedream_api >/dev/null && ./bench/bench_pipedream_api 40

spread_forms="ADD_GPR64_GPR64 IMUL_GPR64_GPR64 MOV_GPR64_M64 MOV_M64_GPR64 ADDSD_XMM_XMM VADDPD_YMM_YMM_YMM VFMADD231PD_YMM_YMM_YMM LEA_GPR64_MEM"
for r in 1 2 3 4 5; do
	"$PERPI" bench --no-db --json $spread_forms >"$t/run$r.json" 2>/dev/null || true
done
python3 - "$t" <<'PY'
import json, math, sys, os
runs = []
for r in range(1, 6):
    p = os.path.join(sys.argv[1], "run%d.json" % r)
    try:
        runs.append({x["kernel"]: x["ipc"] for x in json.load(open(p))})
    except Exception:
        pass
devs = []
worst = ("", 0)
for k in runs[0]:
    v = [run[k] for run in runs if k in run]
    mean = sum(v) / len(v)
    for x in v:
        d = (x - mean) / mean
        devs.append(d * d)
        if abs(d) > worst[1]:
            worst = (k, abs(d))
rms = math.sqrt(sum(devs) / len(devs))
print("| single-form IPC, run-to-run RMS (%d forms x %d runs) | %.2f%% (worst %s %.2f%%) | <= 2%% |"
      % (len(runs[0]), len(runs), 100 * rms, worst[0], 100 * worst[1]))
PY

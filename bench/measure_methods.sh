#!/bin/sh
# perpi measure against an in-process rdtsc harness around the same calls
# of the same binary (tests/measure/cases chains: add_chain, imul_chain,
# sum_array), for both ways of taking a function's entry over: a jump to
# the stub (the default) and a breakpoint stop before every call. Rounds
# alternate harness, jump, breakpoint on one CPU; each keeps its smallest
# figure per function over the rounds, in core cycles: the harness's
# ticks converted at the TSC rate it measures between its calls, perpi's
# at the rate it measures around its runs (the core's clock moves on a
# shared VM: each converts at its own moment).
# usage: bench/measure_methods.sh [PERPI] [CALLS] [ROUNDS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
perpi=${1:-$top/perpi}
calls=${2:-300}
rounds=${3:-5}
cases=$top/tests/measure/cases
[ -x "$cases" ] || make -C "$top" tests/measure/cases >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$perpi" "$cases" "$calls" "$rounds" "$tmp" <<'PY'
import json, subprocess, sys
perpi, cases, calls, rounds, tmp = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
names = ["add_chain", "imul_chain", "sum_array"]
best = {m: {n: float("inf") for n in names} for m in ("harness", "jump", "breakpoint")}
for r in range(rounds):
    out = subprocess.run([cases, "chains", calls], check=True, stdout=subprocess.PIPE, text=True).stdout
    fig = dict(line.split() for line in out.splitlines())
    for n in names:
        best["harness"][n] = min(best["harness"][n], int(fig[n]) / float(fig["ticks_per_cycle"]))
    for m in ("jump", "breakpoint"):
        cmd = [perpi, "measure", "--json", "-o", tmp + "/m.json", "--method", m]
        for n in names:
            cmd += ["--function", n]
        subprocess.run(cmd + [cases, "chains", calls], check=True, stdout=subprocess.DEVNULL)
        j = json.load(open(tmp + "/m.json"))
        for f in j["functions"]:
            best[m][f["name"]] = min(best[m][f["name"]], f["min"])
print("| function (min cycles per call) | harness | jump | vs harness | breakpoint | vs harness |")
print("|---|---:|---:|---:|---:|---:|")
for n in names:
    h = best["harness"][n]
    row = [n, "%.0f" % h]
    for m in ("jump", "breakpoint"):
        row += ["%.0f" % best[m][n], "%+.1f%%" % (100 * (best[m][n] - h) / h)]
    print("| " + " | ".join(row) + " |")
PY

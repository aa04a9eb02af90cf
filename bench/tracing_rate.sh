#!/bin/sh
# Tracing rate: perpi against a bare PTRACE_SINGLESTEP + PTRACE_GETREGS loop
# (bare_step.c) over the same program (rate_prog.c, from exec to exit, so
# perpi runs with --all), on the same CPU, in one run, alternating the two.
# Steps per second = the bare loop's step count / time, by wall-clock time
# and by CPU time (user + system of the tool and the traced program: on a
# shared VM the CPU time is the steadier of the two).
# usage: bench/tracing_rate.sh [PERPI] [CPU] [ROUNDS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
perpi=${1:-$top/perpi}
cpu=${2:-0}
rounds=${3:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/bare_step" "$top/bench/bare_step.c"
cc -O1 -o "$tmp/rate_prog" "$top/bench/rate_prog.c"
python3 - "$perpi" "$cpu" "$rounds" "$tmp" <<'PY'
import re, resource, statistics, subprocess, sys, time
perpi, cpu, rounds, tmp = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

def timed(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return out, wall, cpu_s

wall_ratios, cpu_ratios = [], []
for r in range(1, rounds + 1):
    out, bw, bc = timed([tmp + "/bare_step", cpu, tmp + "/rate_prog"])
    steps = int(re.search(r"steps (\d+)", out).group(1))
    _, pw, pc = timed([perpi, "-q", "--all", "--cpu", cpu, "-o", tmp + "/report", tmp + "/rate_prog"])
    wall_ratios.append(bw / pw)
    cpu_ratios.append(bc / pc)
    print(f"round {r}: {steps} steps; wall: bare {steps / bw:.0f}/s perpi {steps / pw:.0f}/s "
          f"ratio {bw / pw:.3f}; cpu: bare {steps / bc:.0f}/s perpi {steps / pc:.0f}/s "
          f"ratio {bc / pc:.3f}")
report = open(tmp + "/report").read()
print("perpi whole-run I:", re.search(r"^whole run *:: I \[(\d+)\]", report, re.M).group(1))
print(f"median ratio perpi/bare: wall {statistics.median(wall_ratios):.3f}, "
      f"cpu {statistics.median(cpu_ratios):.3f} (target >= 0.85)")
PY

#!/bin/sh
# Peak memory (max RSS) of perpi tracing mem_prog, whose traced code
# touches 2 MiB (mem_prog.S). Target: at most 64 MiB + 8 x 2 MiB = 80 MiB.
# Measured with getrusage(RUSAGE_CHILDREN).ru_maxrss: the largest peak RSS
# among perpi and the program it reaped (the program's is ~3 MiB, so the
# figure is perpi's).
# usage: bench/memory.sh [PERPI] [CPU]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
perpi=${1:-$top/perpi}
cpu=${2:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -o "$tmp/mem_prog" "$top/bench/mem_prog.S"
python3 - "$perpi" "$cpu" "$tmp" <<'PY'
import os, resource, subprocess, sys, re
perpi, cpu, tmp = sys.argv[1:4]
subprocess.run([perpi, "-q", "--cpu", cpu, "-o", tmp + "/report", tmp + "/mem_prog"], check=True)
both = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
report = open(tmp + "/report").read()
i = re.search(r"^whole run *:: I \[(\d+)\]", report, re.M).group(1)
touched = 2 << 20
limit = 64 * 1024 + 8 * touched // 1024
print(f"whole run I = {i} (want 262150, mem_prog.S)")
print(f"max RSS {both} KiB; touched {touched // 1024} KiB; limit 64 MiB + 8 x touched = {limit} KiB")
print(f"max RSS / limit = {both / limit:.2f} (target <= 1)")
PY

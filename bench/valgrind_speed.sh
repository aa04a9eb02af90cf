#!/bin/sh
# Speed and memory of the Valgrind backend beside the ptrace backend, on
# the same program: gzip -c of a 20 MB text file (issue 12's targets:
# perpi record --backend=valgrind >= 10 M instructions/s end to end, the
# trace file written; perpi --backend=valgrind with per-function analysis
# >= 5 M/s; perpi's memory <= 64 MiB + 8 x the bytes the program touches).
# The ptrace runs stop after --duration seconds (they would take hours):
# their rate is the instructions traced in that time.
# Run from the build directory:  sh bench/valgrind_speed.sh [PERPI] [MB] [SECONDS]
set -u
PERPI=${1:-./perpi}
MB=${2:-20}
SECS=${3:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v gzip >/dev/null || { echo "no gzip"; exit 77; }

# MB of text: words of 1-10 letters, skewed like prose (fixed seed)
awk -v n="$((MB * 1000000))" 'BEGIN { srand(1)
	while (t < n) { l = 1 + int(10 * rand() * rand()); w = ""
		for (i = 0; i < l; i++) w = w sprintf("%c", 97 + int(26 * rand() * rand()))
		printf "%s%s", w, (rand() < 0.12 ? "\n" : " "); t += l + 1 } }' >"$tmp/text"
bytes=$(wc -c <"$tmp/text")

hwm() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$1/status" 2>/dev/null; }

# measure LABEL PERPI_ARGS...: wall, CPU (perpi and the program), peak
# memory of perpi and of its child (valgrind and the program, or the
# program under ptrace), in $tmp/LABEL.{time,mem,err}
measure()
{
	label=$1
	shift
	/usr/bin/time -o "$tmp/$label.time" -f '%e %U %S' "$PERPI" "$@" >/dev/null \
		2>"$tmp/$label.err" &
	tpid=$!
	perpi= child= pmax=0 cmax=0
	while kill -0 "$tpid" 2>/dev/null; do
		[ -n "$perpi" ] || perpi=$(pgrep -P "$tpid" | head -n 1)
		[ -z "$perpi" ] || [ -n "$child" ] || child=$(pgrep -P "$perpi" | head -n 1)
		v=$(hwm "${perpi:-0}")
		[ "${v:-0}" -gt "$pmax" ] && pmax=$v
		v=$(hwm "${child:-0}")
		[ "${v:-0}" -gt "$cmax" ] && cmax=$v
		sleep 0.2
	done
	wait "$tpid"
	echo "$pmax $cmax" >"$tmp/$label.mem"
}

# row LABEL TEXT INSTRUCTIONS [SECONDS]: the table row of run LABEL
# (seconds: its wall time if not given)
row()
{
	read -r wall user sys <"$tmp/$1.time"
	read -r pmem cmem <"$tmp/$1.mem"
	awk -v l="$2" -v n="$3" -v s="${4:-$wall}" -v w="$wall" -v u="$user" -v y="$sys" \
		-v p="$pmem" -v c="$cmem" 'BEGIN {
		printf "| %s | %d | %.1f | %.1f | %.2f | %.0f | %.0f |\n", l, n, w, u + y,
			n / s / 1e6, p / 1024, c / 1024 }'
}

native=$( (/usr/bin/time -f '%e %M' gzip -c "$tmp/text" >/dev/null) 2>&1 | tail -n 1)
echo "gzip -c of $bytes bytes of text; natively: $native (seconds, KiB max RSS)"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| run | instructions | wall s | CPU s | M instructions/s | perpi MiB | program MiB |"
echo "|---|---:|---:|---:|---:|---:|---:|"

measure vg-record record --backend=valgrind -o "$tmp/vg.data" gzip -c "$tmp/text"
n=$(sed -n 's/.*record: \([0-9]*\) instructions written.*/\1/p' "$tmp/vg-record.err")
row vg-record "perpi record --backend=valgrind" "${n:-0}"
echo "| (perpi.data: $(wc -c <"$tmp/vg.data") bytes) | | | | | | |"
rm -f "$tmp/vg.data"

measure vg-run --backend=valgrind -o "$tmp/vg.report" gzip -c "$tmp/text"
n=$(sed -n 's/^whole run *:: I \[\([0-9]*\)\].*/\1/p' "$tmp/vg.report")
row vg-run "perpi --backend=valgrind" "${n:-0}"

measure pt-record record --duration "$SECS" -o "$tmp/pt.data" gzip -c "$tmp/text"
n=$(sed -n 's/.*record: \([0-9]*\) instructions written.*/\1/p' "$tmp/pt-record.err")
row pt-record "perpi record (ptrace, --duration $SECS)" "${n:-0}" "$SECS"

measure pt-run --duration "$SECS" -o "$tmp/pt.report" gzip -c "$tmp/text"
n=$(sed -n 's/^whole run *:: I \[\([0-9]*\)\].*/\1/p' "$tmp/pt.report")
row pt-run "perpi (ptrace, --duration $SECS)" "${n:-0}" "$SECS"

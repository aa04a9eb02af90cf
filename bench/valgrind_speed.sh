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
# cpu PID: "total busiest" CPU clock ticks of the process (exited
# threads included) and of its busiest live thread (utime + stime: fields
# 14 and 15 of /proc/PID/stat and /proc/PID/task/*/stat)
cpu()
{
	t=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }')
	for f in /proc/"$1"/task/*/stat; do
		sed 's/.*) //' "$f" 2>/dev/null
	done | awk -v t="${t:-0}" '{ x = $12 + $13; if (x > m) m = x } END { print t, m + 0 }'
}

# measure LABEL PERPI_ARGS...: wall and CPU time (perpi and the program),
# perpi's busiest thread's and the program's CPU time, peak memory of perpi
# and of its child (valgrind with the program, or the program under
# ptrace), in $tmp/LABEL.{time,mem,err}; sampled every 0.2 s
measure()
{
	label=$1
	shift
	/usr/bin/time -o "$tmp/$label.time" -f '%e %U %S' "$PERPI" "$@" >/dev/null \
		2>"$tmp/$label.err" &
	tpid=$!
	perpi= child= pmax=0 cmax=0 pcpu="0 0" ccpu="0 0"
	while kill -0 "$tpid" 2>/dev/null; do
		[ -n "$perpi" ] || perpi=$(pgrep -P "$tpid" | head -n 1)
		[ -z "$perpi" ] || [ -n "$child" ] || child=$(pgrep -P "$perpi" | head -n 1)
		v=$(hwm "${perpi:-0}")
		[ "${v:-0}" -gt "$pmax" ] && pmax=$v
		v=$(hwm "${child:-0}")
		[ "${v:-0}" -gt "$cmax" ] && cmax=$v
		v=$(cpu "${perpi:-0}")
		[ "$v" = "0 0" ] || pcpu=$(echo "$v $pcpu" | awk '{ print $1, ($2 > $4 ? $2 : $4) }')
		v=$(cpu "${child:-0}")
		[ "$v" = "0 0" ] || ccpu=$v
		sleep 0.2
	done
	wait "$tpid"
	echo "$pmax $cmax $pcpu $ccpu" >"$tmp/$label.mem"
}

# row LABEL TEXT INSTRUCTIONS [SECONDS]: the table row of run LABEL
# (seconds: its wall time if not given). "2 free CPUs": the time the run
# would take with two CPUs of its own, bounded below by its busiest thread,
# the program, and all the CPU time shared by two.
row()
{
	read -r wall user sys <"$tmp/$1.time"
	read -r pmem cmem ptot pbusy ctot cbusy <"$tmp/$1.mem"
	awk -v l="$2" -v n="$3" -v s="${4:-$wall}" -v w="$wall" -v u="$user" -v y="$sys" \
		-v p="$pmem" -v c="$cmem" -v pt="$ptot" -v pb="$pbusy" -v ct="$ctot" \
		-v hz="$(getconf CLK_TCK)" -v fixed="${4:-}" 'BEGIN {
		pt /= hz; pb /= hz; ct /= hz
		t2 = pb; if (ct > t2) t2 = ct; if ((pt + ct) / 2 > t2) t2 = (pt + ct) / 2
		r2 = fixed != "" || t2 == 0 ? "-" : sprintf("%.1f", n / t2 / 1e6)
		printf "| %s | %.0f | %.1f | %.1f | %.1f / %.1f / %.1f | %.2f | %s | %.0f | %.0f |\n",
			l, n, w, u + y, pt, pb, ct, n / s / 1e6, r2, p / 1024, c / 1024 }'
}

native=$( (/usr/bin/time -f '%e %M' gzip -c "$tmp/text" >/dev/null) 2>&1 | tail -n 1)
echo "gzip -c of $bytes bytes of text; natively: $native (seconds, KiB max RSS)"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| run | instructions | wall s | CPU s | CPU s: perpi / its busiest thread / program | M instructions/s | M/s on 2 free CPUs | perpi MiB | program MiB |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"

measure vg-record record --backend=valgrind -o "$tmp/vg.data" gzip -c "$tmp/text"
n=$(sed -n 's/.*record: \([0-9]*\) instructions written.*/\1/p' "$tmp/vg-record.err")
row vg-record "perpi record --backend=valgrind" "${n:-0}"
echo "| (perpi.data: $(wc -c <"$tmp/vg.data") bytes) | | | | | | | | |"
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

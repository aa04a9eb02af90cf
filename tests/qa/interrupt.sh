#!/bin/sh
# Ctrl-C (SIGINT) stops the long-running commands within 2 s and keeps what
# they did (perpi's own run and palmed build/eval are tested in
# tests/tracer/interrupt.sh and tests/palmed/interrupt.sh):
#  - perpi record of a program that never ends: exit 130, and perpi.data
#    is a complete file saying the recording was interrupted, with events;
#  - perpi report, hist, graph and critical reading a recording that does
#    not come (a FIFO nobody finishes writing): each stops;
#  - perpi bench in the middle of a campaign: stops, the kernels measured
#    so far are shown and stay in the database, the others are counted,
#    and no benchmark worker is left behind;
#  - perpi palmed build in the middle of a batch: stops (no model written).
# A background job of a non-interactive shell starts with SIGINT ignored:
# env --default-signal=INT gives perpi the disposition a terminal gives it.
set -u
: "${PERPI:?}" "${top_builddir:?}"
tmp=$(mktemp -d) || exit 99
holder=
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
env --default-signal=INT true 2>/dev/null || { echo "SKIP: env --default-signal (coreutils 8.31) is missing"; exit 77; }
ms() { echo $(($(date +%s%N) / 1000000)); }

# interrupt WHAT PID: SIGINT to PID, which must end within 2 s (and 130)
interrupt() {
	t0=$(ms)
	kill -INT "$2"
	i=0
	while kill -0 "$2" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	took=$(($(ms) - t0))
	if kill -0 "$2" 2>/dev/null; then
		fail "$1: still running 5 s after SIGINT"
		kill -9 "$2"
	fi
	wait "$2"
	status=$?
	[ "$took" -le 2000 ] || fail "$1: stopped $took ms after SIGINT, want at most 2000"
	[ "$status" = 130 ] || fail "$1: exit status $status after SIGINT, want 130"
	echo "$1: stopped $took ms after SIGINT, exit $status"
}

# perpi's child process (the traced program, the benchmark worker)
child_of() {
	grep -l "^PPid:[[:space:]]*$1\$" /proc/[0-9]*/status 2>/dev/null | head -n 1 | cut -d/ -f3
}

# record
spin="$top_builddir/tests/tracer/spin"
env --default-signal=INT "$PERPI" record -q -o "$tmp/spin.data" "$spin" >/dev/null 2>"$tmp/err" &
pid=$!
sleep 1.5 # it reaches main and steps
interrupt record "$pid"
"$PERPI" report -i "$tmp/spin.data" >"$tmp/report" 2>&1 || fail "record: the file does not replay: $(cat "$tmp/report")"
grep -q 'recording interrupted' "$tmp/report" || fail "record: the file does not say it was interrupted: $(head -n 3 "$tmp/report")"
i=$(sed -n 's/^whole run *:: I \[\([0-9]*\)\].*/\1/p' "$tmp/report")
[ "${i:-0}" -gt 0 ] || fail "record: no event kept ($(cat "$tmp/report"))"

# the analyses, on a recording that does not come to an end
head -c 100 "$tmp/spin.data" >"$tmp/start"
for cmd in report hist graph critical; do
	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo"
	out=
	[ $cmd = graph ] && out="-o $tmp/g.dot"
	env --default-signal=INT "$PERPI" $cmd -i "$tmp/fifo" $out >/dev/null 2>&1 &
	pid=$!
	{ cat "$tmp/start"; sleep 30; } >"$tmp/fifo" &
	holder=$!
	sleep 0.5
	interrupt "$cmd (a recording still being written)" "$pid"
	kill "$holder" 2>/dev/null
	holder=
done

# bench: a campaign of kernels long enough to be stopped in the middle
if command -v as >/dev/null && command -v sqlite3 >/dev/null; then
	# 28 kernels of 10^7 instructions: seconds, not to be over before SIGINT
	forms="ADD SUB XOR AND OR IMUL ADC SBB"
	for a in $forms; do for b in $forms; do [ "$a" \< "$b" ] && echo "${a}_GPR64_GPR64 ${b}_GPR64_GPR64"; done; done >"$tmp/campaign"
	env --default-signal=INT "$PERPI" bench --db "$tmp/b.db" --total 10000000 --max-seconds 1 \
		-f "$tmp/campaign" >"$tmp/b.out" 2>"$tmp/b.err" &
	pid=$!
	n=0 i=0
	while [ "$n" -lt 1 ] && [ $i -lt 400 ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.05
		n=$(sqlite3 "$tmp/b.db" 'select count(*) from measurement' 2>/dev/null || echo 0)
		i=$((i + 1))
	done
	worker=$(child_of "$pid")
	if [ "$n" -ge 1 ] && kill -0 "$pid" 2>/dev/null; then
		interrupt bench "$pid"
		kept=$(sqlite3 "$tmp/b.db" 'select count(*) from measurement')
		[ "$kept" -ge 1 ] || fail "bench: the kernels measured before SIGINT were lost"
		sleep 0.2
		# alive: not gone, and not a zombie waiting for init
		state=$(awk '{ print $3 }' "/proc/$worker/stat" 2>/dev/null)
		if [ -n "$worker" ] && [ -n "$state" ] && [ "$state" != Z ]; then
			fail "bench: its worker $worker still runs after perpi stopped"
			kill -9 "$worker"
		fi
		# every one of the 28 kernels is either shown, or said not measured,
		# or failed with its own message
		shown=$(grep -c 'GPR64' "$tmp/b.out")
		stopped=$(sed -n 's/^perpi: bench: interrupted: \([0-9]*\) of the 28 kernels not measured or failed$/\1/p' "$tmp/b.err")
		other=$(grep -v '^perpi: bench: interrupted:' "$tmp/b.err" | grep -c '^perpi: bench:')
		[ -n "$stopped" ] || fail "bench: does not say how many kernels it gave up: $(cat "$tmp/b.err")"
		[ "$shown" -ge 1 ] || fail "bench: the kernels measured before SIGINT are not shown"
		[ $((shown + ${stopped:-0} + other)) = 28 ] ||
			fail "bench: $shown shown + ${stopped:-?} given up + $other failed is not the 28 kernels"
		echo "bench: $kept kernel(s) kept, $shown shown, ${stopped:-?} not measured"
	else
		echo "bench: not checked (the campaign did not reach its first kernel: a busy host)"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
else
	echo "bench: not checked (GNU as and the sqlite3 shell are needed)"
fi

# palmed build while a batch of kernels is being measured (it used to
# finish the batch first: minutes on a big catalogue)
if command -v as >/dev/null && command -v sqlite3 >/dev/null; then
	printf '%s\n' ADD_GPR64_GPR64 IMUL_GPR64_GPR64 ADDSD_XMM_XMM MULSD_XMM_XMM PADDD_XMM_XMM \
		SHL_GPR64_IMM8 XOR_GPR64_GPR64 SUB_GPR64_GPR64 >"$tmp/forms"
	env --default-signal=INT "$PERPI" palmed build --forms "$tmp/forms" --db "$tmp/p.db" -q \
		-o "$tmp/m.json" >/dev/null 2>"$tmp/p.err" &
	pid=$!
	n=0 i=0
	while [ "$n" -lt 1 ] && [ $i -lt 400 ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.05
		n=$(sqlite3 "$tmp/p.db" 'select count(*) from measurement' 2>/dev/null || echo 0)
		i=$((i + 1))
	done
	if [ "$n" -ge 1 ] && kill -0 "$pid" 2>/dev/null; then
		interrupt "palmed build" "$pid"
		[ -e "$tmp/m.json" ] && fail "palmed build: wrote a model although interrupted"
		grep -q "$tmp/p.db" "$tmp/p.err" || fail "palmed build: does not say where its measurements are: $(cat "$tmp/p.err")"
	else
		echo "palmed build: not checked (no kernel measured before it ended: $(tail -n 1 "$tmp/p.err"))"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
fi

[ "$fails" = 0 ] && echo PASS
exit $((fails != 0))

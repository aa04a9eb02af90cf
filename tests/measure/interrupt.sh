#!/bin/sh
# SIGINT to perpi measure (Ctrl-C) while the program calls the timed
# function forever: perpi stops, prints the calls timed so far, kills the
# program it started and exits 130. perpi record --measure likewise, and
# records nothing.
. "$top_srcdir/tests/measure/lib.sh"

# interrupt WHAT PERPI_ARGS...: runs perpi in the background, SIGINT once
# the program runs, waits; its status in $status
interrupt()
{
	what=$1
	shift
	"$PERPI" "$@" >"$tmp/stdout" 2>"$tmp/err" &
	perpi_pid=$!
	i=0
	child=
	while [ -z "$child" ] && [ $i -lt 50 ]; do
		sleep 0.1
		child=$(grep -l "^PPid:[[:space:]]*$perpi_pid\$" /proc/[0-9]*/status 2>/dev/null |
			head -n 1 | cut -d/ -f3)
		i=$((i + 1))
	done
	[ -n "$child" ] || { echo "SKIP: cannot see perpi's child in /proc"; kill -9 "$perpi_pid"; exit 77; }
	sleep 1
	kill -INT "$perpi_pid"
	wait "$perpi_pid"
	status=$?
	sleep 0.2
	if kill -0 "$child" 2>/dev/null; then
		fail "$what: the program perpi started still runs"
		kill -9 "$child"
	fi
}

interrupt measure measure -o "$out" --function work "$C" spin
[ "$status" = 130 ] || fail "measure: exit $status after SIGINT, want 130 ($(cat "$tmp/err"))"
calls=$(column work 2)
[ "${calls:-0}" -gt 1000 ] || fail "measure: $calls calls timed before SIGINT"
grep -q "interrupted during run 1" "$tmp/err" || fail "measure: the interruption is not said"

interrupt record record -o "$tmp/spin.data" --measure --function work "$C" spin
[ "$status" = 130 ] || fail "record: exit $status after SIGINT, want 130 ($(cat "$tmp/err"))"
grep -q "nothing recorded" "$tmp/err" || fail "record: what happened is not said"
grep -q "^work " "$tmp/err" || fail "record: the calls timed so far are not shown"
[ ! -e "$tmp/spin.data" ] || fail "record: a trace was written"
finish

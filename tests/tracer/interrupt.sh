#!/bin/sh
# SIGINT to perpi (Ctrl-C) while it steps a program that never ends: perpi
# stops, reports what it traced, kills the program it started, exits 130.
. "$top_srcdir/tests/tracer/lib.sh"

"$PERPI" -o "$report" "$B/spin" >"$tmp/out" 2>"$tmp/err" &
perpi_pid=$!
# wait until the spinning program exists (perpi started it)
i=0
while ! pgrep -P "$perpi_pid" >/dev/null 2>&1 && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
child=$(pgrep -P "$perpi_pid")
[ -n "$child" ] || { echo "SKIP: cannot see perpi's child (pgrep)"; kill -9 "$perpi_pid"; exit 77; }
sleep 0.5
kill -INT "$perpi_pid"
wait "$perpi_pid"
status=$?
[ "$status" = 130 ] || fail "exit $status after SIGINT, want 130 ($(cat "$tmp/err"))"
got=$(whole_i)
[ "${got:-0}" -gt 0 ] || fail "no report of what was traced before SIGINT"
sleep 0.2
if kill -0 "$child" 2>/dev/null; then
	fail "the program perpi started still runs"
	kill -9 "$child"
fi
finish

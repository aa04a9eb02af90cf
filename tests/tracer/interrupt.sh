#!/bin/sh
# SIGINT to perpi (Ctrl-C) while it steps a program that never ends: perpi
# stops, reports what it traced, kills the program it started, exits 130.
. "$top_srcdir/tests/tracer/lib.sh"

"$PERPI" -o "$report" "$B/spin" >"$tmp/out" 2>"$tmp/err" &
perpi_pid=$!
# perpi's child, the spinning program, from /proc
child_of()
{
	grep -l "^PPid:[[:space:]]*$1\$" /proc/[0-9]*/status 2>/dev/null | head -n 1 | cut -d/ -f3
}
i=0
child=
while [ -z "$child" ] && [ $i -lt 50 ]; do
	sleep 0.1
	child=$(child_of "$perpi_pid")
	i=$((i + 1))
done
[ -n "$child" ] || { echo "SKIP: cannot see perpi's child in /proc"; kill -9 "$perpi_pid"; exit 77; }
# let it exec and reach main, where stepping starts
i=0
while [ "$(readlink "/proc/$child/exe" 2>/dev/null)" != "$(readlink -f "$B/spin")" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 1
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

#!/bin/sh
# Ctrl-C (SIGINT to perpi) while the Valgrind backend traces a program that
# never ends: perpi reports what it traced, kills the program, exits 130.
. "$top_srcdir/tests/valgrind/lib.sh"
"$PERPI" --backend=valgrind -o "$tmp/report" "$top_builddir/tests/tracer/spin" \
	>"$tmp/out" 2>"$tmp/err" &
perpi_pid=$!
child=
i=0
while [ -z "$child" ] && [ $i -lt 100 ]; do
	sleep 0.1
	child=$(grep -l "^PPid:[[:space:]]*$perpi_pid\$" /proc/[0-9]*/status 2>/dev/null |
		head -n 1 | cut -d/ -f3)
	i=$((i + 1))
done
[ -n "$child" ] || { echo "SKIP: cannot see perpi's child in /proc"; kill -9 "$perpi_pid"; exit 77; }
sleep 4 # Valgrind starts, main runs
kill -INT "$perpi_pid"
wait "$perpi_pid"
status=$?
[ "$status" = 130 ] || fail "exit $status after SIGINT, want 130 ($(cat "$tmp/err"))"
got=$(sed -n 's/^whole run *:: I \[\([0-9]*\)\].*/\1/p' "$tmp/report")
[ "${got:-0}" -gt 0 ] || fail "no report of what was traced before SIGINT"
sleep 0.5
if kill -0 "$child" 2>/dev/null; then
	fail "the program perpi started still runs"
	kill -9 "$child"
fi
finish

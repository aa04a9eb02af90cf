#!/bin/sh
# perpi -p PID --duration 1: attach to a running program, trace it for a
# second, detach; the program runs on (not stopped) and exits 0 by itself.
. "$top_srcdir/tests/tracer/lib.sh"

"$B/attachee" 4 &
pid=$!
sleep 0.3
"$PERPI" -o "$report" -p "$pid" --duration 1 >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" != 0 ] && grep -q 'Operation not permitted' "$tmp/err"; then
	echo "SKIP: ptrace attach not permitted here: $(cat "$tmp/err")"
	kill "$pid"
	exit 77
fi
[ "$status" = 0 ] || fail "perpi -p: exit $status ($(cat "$tmp/err"))"
got=$(whole_i)
[ "${got:-0}" -gt 0 ] || fail "perpi -p: nothing traced"
# Stopped (T, t) would be the failure; on a loaded machine it may already
# have ended (Z, or reaped by the shell: no state), which wait checks below.
state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)
case "$state" in
T | t) fail "after detach the program is in state '$state', want running" ;;
*) ;;
esac
wait "$pid"
status=$?
[ "$status" = 0 ] || fail "the program exited $status after perpi detached, want 0"
finish

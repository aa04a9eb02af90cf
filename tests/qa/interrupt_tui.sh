#!/bin/sh
# Ctrl-C in `perpi tui -- PROGRAM` while it traces a program that never
# ends: tracing stops within 2 s and the screens show what was traced (the
# spinning main), and q leaves normally.
. "$top_srcdir/tests/tui/tmux.sh"
tmux_require
"$PERPI" tui --help >/dev/null 2>&1 || { echo "SKIP: perpi was built without curses"; exit 77; }
trap 'tmux_stop' EXIT
tmux_start 120 30 "$PERPI" tui -- "$top_builddir/tests/tracer/spin"
sleep 1.5 # it reaches main and steps
t send-keys -t tui C-c
start=$(date +%s%N)
n=0
while [ $n -lt 50 ] && ! screen | grep -Eq '^ main +[0-9]+ +1 '; do
	sleep 0.1
	n=$((n + 1))
done
took=$((($(date +%s%N) - start) / 1000000))
expect "what was traced, after Ctrl-C" '^ main +[1-9][0-9]* +1 +[0-9.]+ +1$'
[ "$took" -le 2000 ] || { echo "FAIL: the screens came $took ms after Ctrl-C, want at most 2000"; failures=$((failures + 1)); }
tmux_keys q
expect "exit" '^EXIT=0$'
[ $failures = 0 ] && echo "PASS: Ctrl-C stopped tracing in $took ms and kept what was traced"
exit $((failures != 0))

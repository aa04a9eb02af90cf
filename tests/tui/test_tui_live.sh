#!/bin/sh
# `perpi tui -- PROGRAM` against `perpi -o REPORT PROGRAM` on the tracer's
# test program tests/asm/calls (nested calls, a tail call, a syscall):
# the whole run, the class counts and every function's I, C, ILP and calls
# must be the report's (read by python3). For each function called once,
# the TUI's own view of its call (its instructions' steps recomputed in
# isolation from the engine's producers) must give the report's I and C
# too: a second computation of the per-function figures.
# PERPI_BACKEND=valgrind: the same under the Valgrind backend (tests/valgrind).
. "$top_srcdir/tests/tui/tmux.sh"
backend=--backend=${PERPI_BACKEND:-ptrace}
tmux_require
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the report"; exit 77; }
"$PERPI" tui --help >/dev/null 2>&1 || { echo "SKIP: perpi was built without curses"; exit 77; }
prog="$top_builddir/tests/asm/calls"
[ -x "$prog" ] || { echo "SKIP: $prog is not built"; exit 77; }
tmp=$(mktemp -d)
trap 'tmux_stop; rm -rf "$tmp"' EXIT
XDG_DATA_HOME="$tmp/none" # the screens without a Palmed model (test_tui_palmed.sh has one)
export XDG_DATA_HOME

"$PERPI" -q $backend -o "$tmp/report.txt" "$prog" || { echo "FAIL: perpi $prog"; exit 1; }
python3 - "$tmp/report.txt" > "$tmp/expect" <<'PY' || exit 1
import re, sys
line = re.compile(r"^(\S+)\s+:: I \[(\d+)\]\s+:: C \[(\d+)\]\s+:: ILP \[([\d.]+)\](?:\s+\((\d+) calls?\))?")
for l in open(sys.argv[1]):
    m = line.match(l)
    if m and m.group(1) == "whole":
        continue
    if l.startswith("whole run"):
        i, c = re.search(r"I \[(\d+)\].*C \[(\d+)\]", l).groups()
        print("TOTAL " + re.escape("I [%s] :: C [%s] :: ILP [%.2f]" % (i, c, int(i) / int(c))))
        whole = (int(i), int(c))
    elif l.startswith("instructions by class:"):
        parts = [p.strip().split() for p in l.split(":", 1)[1].split(",")]
        classes = " ".join("%s %s" % (k, n) for k, n in parts if int(n))
        print("CLASSES " + re.escape("steps 1-%d: %d insns, ILP %.2f | %s"
              % (whole[1], whole[0], whole[0] / whole[1], classes)))
    elif m:
        name, i, c, ilp, calls = m.groups()
        print("FUNCTION %s %s ^ %s +%s +%s +%.2f +%s *$" % (name, calls, re.escape(name), i, c,
              int(i) / int(c), calls))
        if calls == "1":
            print("CALL %s %s" % (name, re.escape("%s, call 1 of 1 :: I [%s] :: C [%s]" % (name, i, c))))
PY
grep -q '^FUNCTION ' "$tmp/expect" || { echo "FAIL: no function in the report"; cat "$tmp/report.txt"; exit 1; }

tmux_start 160 30 "$PERPI" tui $backend -- "$prog"
expect "whole run" "$(sed -n 's/^TOTAL //p' "$tmp/expect")"
tmux_keys 2 Home m End
expect "classes" "$(sed -n 's/^CLASSES //p' "$tmp/expect")"
tmux_keys 1
grep '^FUNCTION ' "$tmp/expect" | while read -r _ name calls pattern; do
	expect "function $name" "$pattern"
	echo "$failures" > "$tmp/failures"
done
[ -f "$tmp/failures" ] && failures=$(cat "$tmp/failures")
# Each function called once: filter to it, open its histogram, show its call.
grep '^CALL ' "$tmp/expect" | while read -r _ name pattern; do
	tmux_keys / C-u
	t send-keys -t tui -l "^$name\$"
	tmux_keys Enter Enter n
	expect "call of $name" "$pattern"
	tmux_keys Escape
	echo "$failures" > "$tmp/failures"
done
[ -f "$tmp/failures" ] && failures=$(cat "$tmp/failures")
tmux_keys q
expect "exit" '^EXIT=0$'

[ $failures = 0 ] && echo "PASS: tui figures equal perpi's report on a traced program"
exit $((failures != 0))

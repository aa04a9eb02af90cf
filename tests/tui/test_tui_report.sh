#!/bin/sh
# `perpi tui FILE` against `perpi report --json -i FILE` and `perpi hist
# --csv` for the same recording: the whole-run figures, the class counts,
# the first steps of the histogram and every function's I, C, ILP and calls
# on the Functions screen must be theirs (other programs over the file,
# read by python3's parsers), and a missing or corrupt file must give a
# clear message and a clean terminal.
. "$top_srcdir/tests/tui/tmux.sh"
tmux_require
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the JSON report"; exit 77; }
"$PERPI" tui --help >/dev/null 2>&1 || { echo "SKIP: perpi was built without curses"; exit 77; }
tmp=$(mktemp -d)
trap 'tmux_stop; rm -rf "$tmp"' EXIT

# The recordings: the hand-made run, and a real one when perpi record works.
"$top_builddir/tests/tui/synth_data" "$tmp/synth.data" || exit 1
files="$tmp/synth.data"
summation="$top_builddir/examples/summation"
if [ -x "$summation" ] && "$PERPI" record -o "$tmp/sum.data" -- "$summation" 100 \
	>/dev/null 2>&1; then
	files="$files $tmp/sum.data"
fi

# Bad files first: nothing may be drawn, the message names the problem.
tmux_start 80 24 "$PERPI" tui "$tmp/missing.data"
expect "missing file" "^perpi: tui: .*missing\.data"
expect "missing status" '^EXIT=1$'
[ "$(alternate_screen)" = 0 ] || { echo "FAIL: missing file: alternate screen left on"; failures=$((failures + 1)); }
head -c 200 "$tmp/synth.data" > "$tmp/cut.data"
tmux_start 80 24 "$PERPI" tui "$tmp/cut.data"
expect "truncated file" '^perpi: tui: .*(truncated|corrupt)'
expect "truncated status" '^EXIT=1$'
printf 'not a trace file at all\n' > "$tmp/text.data"
tmux_start 80 24 "$PERPI" tui "$tmp/text.data"
expect "foreign file" '^perpi: tui: '
expect "foreign status" '^EXIT=1$'

for f in $files; do
	"$PERPI" report --json -i "$f" > "$tmp/report.json" || { echo "FAIL: perpi report --json -i $f"; exit 1; }
	# Totals and per-class counts as the TUI prints them (ILP from I / C).
	python3 - "$tmp/report.json" > "$tmp/expect" <<'PY' || exit 1
import json, re, sys
r = json.load(open(sys.argv[1]))
t = r["totals"]
i, c = t["instructions"], t["steps"]
print("TOTAL " + re.escape("I [%d] :: C [%d] :: ILP [%.2f]" % (i, c, i / c if c else 0)))
classes = " ".join("%s %d" % (k, n) for k, n in t["classes"].items() if n)
print("CLASSES " + re.escape("steps 1-%d: %d insns, ILP %.2f | %s" % (c, i, i / c if c else 0, classes)))
for fn in sorted(r["functions"], key=lambda f: -f["instructions"])[:12]:
    ilp = fn["instructions"] / fn["steps"] if fn["steps"] else 0
    print("FUNCTION %s ^ %s +%d +%d +%.2f +%d *$" % (fn["name"], re.escape(fn["name"]),
          fn["instructions"], fn["steps"], ilp, fn["calls"]))
PY
	# The first steps one by one, from perpi hist's exact per-step CSV.
	"$PERPI" hist -i "$f" --csv "$tmp/hist.csv" > /dev/null || { echo "FAIL: perpi hist --csv"; exit 1; }
	python3 - "$tmp/hist.csv" >> "$tmp/expect" <<'PY' || exit 1
import csv, re, sys
rows = [l for l in open(sys.argv[1]) if not l.startswith("#")]
names = ["load", "store", "int", "fp", "vec", "move", "branch", "other"]
for r in list(csv.DictReader(rows))[:10]:
    s, n = int(r["first_step"]), int(r["total"])
    classes = " ".join("%s %s" % (k, r[k]) for k in names if int(r[k]))
    print("STEP " + re.escape("steps %d-%d: %d insns, ILP %.2f | %s" % (s, s, n, n, classes)))
PY
	tmux_start 160 30 "$PERPI" tui "$f"
	expect "$f: whole run" "$(sed -n 's/^TOTAL //p' "$tmp/expect")"
	# The whole range selected in the histogram: per-class counts.
	tmux_keys 2 Home m End
	expect "$f: classes" "$(sed -n 's/^CLASSES //p' "$tmp/expect")"
	# One step per bin (zoomed in as far as it goes), from step 1 on.
	tmux_keys m + + + + + + + + + + + + + + + + + + + + + + + + Home
	grep '^STEP ' "$tmp/expect" | while read -r _ pattern; do
		expect "$f: step" "$pattern"
		tmux_keys Right
		echo "$failures" > "$tmp/failures"
	done
	[ -f "$tmp/failures" ] && failures=$(cat "$tmp/failures")
	tmux_keys 1
	grep '^FUNCTION ' "$tmp/expect" | while read -r _ name pattern; do
		tmux_keys / C-u
		t send-keys -t tui -l "$name"
		tmux_keys Enter
		expect "$f: function $name" "$pattern"
		echo "$failures" > "$tmp/failures"
	done
	[ -f "$tmp/failures" ] && failures=$(cat "$tmp/failures")
	tmux_keys q
	expect "$f: exit" '^EXIT=0$'
done

echo "checked: $files"
[ $failures = 0 ] && echo "PASS: tui figures equal perpi report --json"
exit $((failures != 0))

#!/bin/sh
# `perpi tui FILE` against `perpi report --json -i FILE`, `perpi report
# --blocks`, `perpi hist --csv` and `perpi critical` for the same recording:
# the whole-run figures, the class counts, the first steps of the
# histogram, the critical path's source lines, the largest basic blocks and
# every function's I, C, ILP and calls must be theirs
# (other programs over the file, read by python3's parsers), and a missing
# or corrupt file must give a clear message and a clean terminal. Both
# critical paths take, at each step back, the first producer of highest
# step; a path choosing otherwise among equals would differ here.
. "$top_srcdir/tests/tui/tmux.sh"
tmux_require
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the JSON report"; exit 77; }
"$PERPI" tui --help >/dev/null 2>&1 || { echo "SKIP: perpi was built without curses"; exit 77; }
tmp=$(mktemp -d)
trap 'tmux_stop; rm -rf "$tmp"' EXIT
XDG_DATA_HOME="$tmp/none" # the screens without a Palmed model (test_tui_palmed.sh has one)
export XDG_DATA_HOME

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

# Too small a terminal: refused before the file is replayed.
tmux_start 60 20 "$PERPI" tui "$tmp/synth.data"
expect "too small" '^perpi: tui: terminal too small: 60x20'
expect "too small status" '^EXIT=1$'

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
	# The critical path's source lines, from perpi critical's summary.
	"$PERPI" critical -i "$f" > "$tmp/critical.txt" || { echo "FAIL: perpi critical"; exit 1; }
	python3 - "$tmp/critical.txt" >> "$tmp/expect" <<'PY' || exit 1
import os, re, sys
lines = open(sys.argv[1]).read().split("critical-path instructions per source line:")[1]
for l in lines.splitlines()[:12]:
    m = re.match(r"^\s*(\d+)\s+([\d.]+)%\s+(\S+)$", l)
    if m:
        count, pct, where = m.groups()
        print("LINE " + re.escape(" %5s%% %8s  %s" % (pct, count, os.path.basename(where)))
              + "( |$)")
PY
	# The basic blocks: size, occurrences and ILP, from perpi report --blocks.
	"$PERPI" report -i "$f" --blocks=12 > "$tmp/blocks.txt" || { echo "FAIL: perpi report --blocks"; exit 1; }
	python3 - "$tmp/blocks.txt" >> "$tmp/expect" <<'PY' || exit 1
import re, sys
text = open(sys.argv[1]).read()
rows = text.split("basic blocks,", 1)[1].splitlines()[2:]
for l in rows:
    m = re.match(r"^0x[0-9a-f]+\s+\S+\s+(\d+)\s+(\d+)\s+([\d.]+)\s", l)
    if m:
        occ, insns, ilp = m.groups()
        print("BLOCK ^ \\S+ +%s +%s +%s +" % (insns, occ, re.escape(ilp)))
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
	tmux_keys 4
	grep '^LINE ' "$tmp/expect" | while read -r _ pattern; do
		expect "$f: critical line" "$pattern"
		echo "$failures" > "$tmp/failures"
	done
	[ -f "$tmp/failures" ] && failures=$(cat "$tmp/failures")
	tmux_keys 5
	grep '^BLOCK ' "$tmp/expect" | while read -r _ pattern; do
		expect "$f: block" "$pattern"
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

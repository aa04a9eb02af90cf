#!/bin/sh
# perpi tui with a Palmed model: the Functions screen's resource-bound
# cycles and IPC and the Blocks screen's cycles and bottleneck must be
# those of `perpi report --model FILE --json` and `--blocks` on the same
# recording (read by python3), and, on the hand-made run of
# tests/lift/test_lift.c with its hand-written model, the figures that
# test's comment derives by hand:
#   f: 12.0 cycles (loop block A: 10 x 1.0, bound by R1; block B: 2.0,
#      bound by R2), IPC 33 / 12 = 2.75; whole run 12.0 cycles, IPC 2.75.
# A real run (examples/summation 100, when perpi record works) is checked
# against the report with docs/lift-zen4-hand.json, the model written by
# hand from AMD's Zen 4 guide (docs/LIFT.md).
# Also: the default model ($XDG_DATA_HOME/perpi/model.json) is used as
# perpi report uses it; without one the screens are as before and say how
# to build one; a model of another CPU warns; a missing --model is an error.
. "$top_srcdir/tests/tui/tmux.sh"
tmux_require
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the JSON report"; exit 77; }
"$PERPI" tui --help >/dev/null 2>&1 || { echo "SKIP: perpi was built without curses"; exit 77; }
tl="$top_builddir/tests/lift/test_lift"
[ -x "$tl" ] || { echo "SKIP: $tl is not built"; exit 77; }
tmp=$(mktemp -d)
trap 'tmux_stop; rm -rf "$tmp"' EXIT
XDG_DATA_HOME="$tmp/none" # no default model unless a check puts one there
export XDG_DATA_HOME

"$tl" write "$tmp/t.data" "$tmp/m.json" host || { echo "FAIL: writing the run"; exit 1; }
"$tl" write "$tmp/t2.data" "$tmp/other.json" "OtherVendor family 1 model 2: elsewhere" ||
	{ echo "FAIL: writing the other CPU's model"; exit 1; }
pairs="$tmp/t.data:$tmp/m.json"
summation="$top_builddir/examples/summation"
if [ -x "$summation" ] && "$PERPI" record -o "$tmp/sum.data" -- "$summation" 100 \
	>/dev/null 2>&1; then
	pairs="$pairs $tmp/sum.data:$top_srcdir/docs/lift-zen4-hand.json"
fi

# By hand (see above), on the hand-made run.
tmux_start 80 24 "$PERPI" tui --model "$tmp/m.json" "$tmp/t.data"
expect "hand: f" '^ f +44 +1 +44\.00 +1 +- +12\.0 +2\.75 *$'
expect "hand: header" '^ function +Iv +C +ILP +calls +cycles +bound +IPC *$'
expect "hand: whole run" 'run bound 12\.0 cycles, IPC 2\.75; model '
tmux_keys 5
expect "hand: block A" '^ f +4 +10 +4\.00 +10\.0 R1 '
expect "hand: block B" '^ f\+0xd +4 +1 +4\.00 +2\.0 R2 '
# covered: of the instructions that are not control transfers (jne, ret): 3 of 3
expect "hand: block A's line" '^ 1\.00 cycles x 10 occurrences, covered 100\.0% .* bound by R1 *$'
tmux_keys j
expect "hand: block B's line" '^ 2\.00 cycles x 1 occurrences, covered 100\.0% .* bound by R2 *$'
# Sorting by the bound (y) then IPC (r), largest first: one function, same row.
tmux_keys 1 y
expect "hand: sorted by the bound" '^ function +Iv? +C +ILP +calls +cycles +boundv +IPC *$'
tmux_keys q
expect "hand: exit" '^EXIT=0$'

for pair in $pairs; do
	f=${pair%%:*} m=${pair#*:}
	"$PERPI" report -i "$f" --model "$m" --json > "$tmp/report.json" 2>/dev/null ||
		{ echo "FAIL: perpi report --model $m --json -i $f"; exit 1; }
	"$PERPI" report -i "$f" --model "$m" --blocks=12 > "$tmp/blocks.txt" 2>/dev/null ||
		{ echo "FAIL: perpi report --blocks"; exit 1; }
	python3 - "$tmp/report.json" "$tmp/blocks.txt" > "$tmp/expect" <<'PY' || exit 1
import json, re, sys
r = json.load(open(sys.argv[1]))
def ipc(p):
    return "%.2f" % p["ipc"] if p["ipc"] is not None else "-"
t = r["totals"]["palmed"]
print("TOTAL " + re.escape("run bound %.1f cycles, IPC %s; model " % (t["cycles"], ipc(t))))
for fn in sorted(r["functions"], key=lambda f: -f["instructions"])[:8]:
    p = fn["palmed"]
    ilp = fn["instructions"] / fn["steps"] if fn["steps"] else 0
    print("FUNCTION %s ^ %s +%d +%d +%.2f +%d +- +%.1f +%s *$" % (fn["name"],
          re.escape(fn["name"][:21]), fn["instructions"], fn["steps"], ilp, fn["calls"],
          p["cycles"], re.escape(ipc(p))))
print("BOUND " + re.escape(" bound by " + "+".join(r["palmed"]["blocks"][0]["bottlenecks"]))
      + " *$")
text = open(sys.argv[2]).read()
rows = text.split("basic blocks,", 1)[1].splitlines()[2:]
first = True
for l in rows:
    m = re.match(r"^0x[0-9a-f]+\s+\S+\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)\s+([\d.]+%)(?:\s.*)?$", l)
    if not m:
        continue
    occ, insns, ilp, per, cycles, bn, cov = m.groups()
    print("BLOCK ^ \\S+ +%s +%s +%s +%s %s%s" % (insns, occ, re.escape(ilp), re.escape(cycles),
          re.escape(bn[:10]), " " if len(bn) < 10 else ""))
    if first:
        print("SELECTED " + re.escape(" %s cycles x %s occurrences, covered %s" % (per, occ, cov)))
        first = False
PY
	grep -q '^BLOCK ' "$tmp/expect" || { echo "FAIL: no block in the report of $f"; exit 1; }
	tmux_start 100 30 "$PERPI" tui --model "$m" "$f"
	expect "$f: whole run" "$(sed -n 's/^TOTAL //p' "$tmp/expect")"
	grep '^FUNCTION ' "$tmp/expect" | while read -r _ name pattern; do
		tmux_keys / C-u
		t send-keys -t tui -l "^$name\$"
		tmux_keys Enter
		expect "$f: function $name" "$pattern"
		echo "$failures" > "$tmp/failures"
	done
	[ -f "$tmp/failures" ] && failures=$(cat "$tmp/failures")
	tmux_keys 5
	expect "$f: first block's line" "$(sed -n 's/^SELECTED //p' "$tmp/expect")"
	expect "$f: first block's bottlenecks" "$(sed -n 's/^BOUND //p' "$tmp/expect")"
	grep '^BLOCK ' "$tmp/expect" | while read -r _ pattern; do
		expect "$f: block" "$pattern"
		echo "$failures" > "$tmp/failures"
	done
	[ -f "$tmp/failures" ] && failures=$(cat "$tmp/failures")
	tmux_keys q
	expect "$f: exit" '^EXIT=0$'
done

# The default model, as perpi report finds it.
mkdir -p "$tmp/xdg/perpi" && cp "$tmp/m.json" "$tmp/xdg/perpi/model.json"
tmux_start 80 24 XDG_DATA_HOME="$tmp/xdg" "$PERPI" tui "$tmp/t.data"
expect "default model" '^ f +44 +1 +44\.00 +1 +- +12\.0 +2\.75 *$'
tmux_keys q

# No model: the table as before, and how to build one.
tmux_start 80 24 "$PERPI" tui "$tmp/t.data"
expect "no model: row" '^ f +44 +1 +44\.00 +1 *$'
expect "no model: hint" 'no Palmed model: perpi palmed build --from '
tmux_keys 5
expect "no model: blocks" '^ f +4 +10 +4\.00 +[0-9.]+% *'
tmux_keys q
screen | grep -q 'cycles' && { echo "FAIL: no model, yet cycles shown"; screen; failures=$((failures + 1)); }

# A model of another CPU: used, with perpi report's warning (left on the
# terminal after the browser) and a note on the bottom line.
tmux_start 80 24 "$PERPI" tui --model "$tmp/other.json" "$tmp/t.data"
expect "other CPU: columns" '^ f +44 +1 +44\.00 +1 +- +12\.0 +2\.75 *$'
expect "other CPU: note" 'IPC 2\.75; model of another CPU: '
tmux_keys q
expect "other CPU: warning" "model was built for CPU 'OtherVendor family 1 model 2: elsewhere'"

# A missing or corrupt named model is an error, before anything is drawn.
tmux_start 80 24 "$PERPI" tui --model "$tmp/nosuch.json" "$tmp/t.data"
expect "missing model" '^perpi: tui: --model .*nosuch\.json'
expect "missing model status" '^EXIT=1$'
echo '{"format": "perpi-palmed-model", "version": 1' > "$tmp/bad.json"
tmux_start 80 24 "$PERPI" tui --model "$tmp/bad.json" "$tmp/t.data"
expect "corrupt model" '^perpi: tui: --model .*bad\.json'
expect "corrupt model status" '^EXIT=1$'

echo "checked: $pairs"
[ $failures = 0 ] && echo "PASS: tui Palmed columns equal perpi report --model"
exit $((failures != 0))

#!/bin/sh
# Predicted cycles in perpi report, its JSON, the live run and the TUI.
# The recording, model and core file are tests/cycles/test_cycles.c's
# (write mode), whose comment derives by hand: f 31.0 cycles (the chain of
# 10 imul of latency 3, and the call's taken-branch cycle), the whole run
# 31.5; the resource bound 10.0 (10 imul on R2). The live run of
# tests/lift/loop.S (100 iterations of a chain of addsd of latency 3, the
# core's) cannot take fewer than 100 x 3 = 300 cycles, nor more than that
# plus its 503 instructions at the core's dispatch width 4 (126 cycles),
# and gives what the replay of its recording gives. The native cycles
# ("measured") are those the recording's MEAS chunk holds: hand-written
# ones (test_cycles write ... f|h, its measured_run()), and those of a real
# perpi record --measure, read back by perpi measure -i.
: "${PERPI:=./perpi}" "${top_builddir:=.}" "${top_srcdir:=.}"
tc="$top_builddir/tests/cycles/test_cycles"
[ -x "$tc" ] || { echo "SKIP: $tc is not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the JSON report"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
mkdir -p "$tmp/xdg/perpi"
"$tc" write "$tmp/t.data" "$tmp/m.json" "$tmp/xdg/perpi/core.json" ||
	{ echo "FAIL: writing the run"; exit 1; }
has() { # has NAME TEXT FILE
	grep -qF -- "$2" "$3" || { echo "FAIL: $1: no '$2' in:"; cat "$3"; fail=1; }
}

XDG_DATA_HOME="$tmp/xdg" "$PERPI" report -i "$tmp/t.data" --model "$tmp/m.json" \
	> "$tmp/out" 2> "$tmp/err" || { echo "FAIL: report"; cat "$tmp/err"; fail=1; }
has f-row '(1 call) :: cycles [31.0] :: bound [10.0] :: IPC [1.00] :: bottleneck [R2]' "$tmp/out"
has run-row ':: cycles [31.5] :: bound [10.0]' "$tmp/out"
has header '# Core: ' "$tmp/out"
[ -s "$tmp/err" ] && { echo "FAIL: unexpected stderr:"; cat "$tmp/err"; fail=1; }

XDG_DATA_HOME="$tmp/xdg" "$PERPI" report -i "$tmp/t.data" --model "$tmp/m.json" --json |
	python3 -c '
import json, sys
d = json.load(sys.stdin)
f = [x for x in d["functions"] if x["name"] == "f"][0]
t = d["totals"]
assert f["cycles"]["predicted"] == 31 and f["cycles"]["resource_bound"] == 10, f
assert f["cycles"]["measured"] is None and f["l1_miss_rate"] == 0, f
assert t["cycles"]["predicted"] == 31.5 and t["cycles"]["resource_bound"] == 10, t
assert t["cycles"]["measured"] is None and t["cycles"]["flagged"] is False, t
' || { echo "FAIL: --json"; fail=1; }

# Native figures kept with the run (test_cycles.c, measured_run()): f
# timed, 40 cycles; the whole run 41.5. Then only h, which the trace does
# not have: f not measured, the whole run 99.
"$tc" write "$tmp/tf.data" "$tmp/m.json" "$tmp/xdg/perpi/core.json" f &&
	"$tc" write "$tmp/th.data" "$tmp/m.json" "$tmp/xdg/perpi/core.json" h ||
	{ echo "FAIL: writing the measured runs"; exit 1; }
XDG_DATA_HOME="$tmp/xdg" "$PERPI" report -i "$tmp/tf.data" --model "$tmp/m.json" > "$tmp/out" 2>&1
has measured-f '(1 call) :: cycles [31.0] :: measured [40.0] :: bound [10.0]' "$tmp/out"
has measured-run ':: cycles [31.5] :: measured [41.5] :: bound [10.0]' "$tmp/out"
XDG_DATA_HOME="$tmp/none" "$PERPI" report -i "$tmp/tf.data" > "$tmp/out" 2>&1
has measured-no-model '(1 call) :: measured [40.0]' "$tmp/out"
XDG_DATA_HOME="$tmp/xdg" "$PERPI" report -i "$tmp/th.data" --model "$tmp/m.json" > "$tmp/out" 2>&1
grep -q '^f .*measured \[' "$tmp/out" && { echo "FAIL: f measured without a figure"; fail=1; }
has measured-h-run ':: cycles [31.5] :: measured [99.0] :: bound [10.0]' "$tmp/out"
for t in f h; do
	XDG_DATA_HOME="$tmp/xdg" "$PERPI" report -i "$tmp/t$t.data" --model "$tmp/m.json" --json |
		python3 -c '
import json, sys
d = json.load(sys.stdin)
f = [x for x in d["functions"] if x["name"] == "f"][0]["cycles"]
t = d["totals"]["cycles"]
if sys.argv[1] == "f":
    assert f["measured"] == 40 and f["measured_min_call"] == 40 and f["predicted"] == 31, f
    assert t["measured"] == 41.5 and t["predicted"] == 31.5 and "measured_min_call" not in t, t
else:
    assert f["measured"] is None and f["measured_min_call"] is None, f
    assert t["measured"] == 99, t
' "$t" || { echo "FAIL: --json of the run measured ($t)"; fail=1; }
done

# A real perpi record --measure of tests/measure/cases: add_chain is 2000
# dependent "add rax, rdi" after a "mov rax, rdi" (chains.S); with the
# core of test_cycles.c (add: latency 1; the mov, without one: 1) a call,
# the pipeline drained at its entry, completes its chain 2001 cycles in and
# retires its ret within the next cycle: 3 calls, 6003 to 6006 cycles. Its
# measured cycles are what perpi measure -i reads from the same file.
cases="$top_builddir/tests/measure/cases"
if [ -x "$cases" ] && "$PERPI" record -q -o "$tmp/ch.data" --measure=1 --function add_chain \
	"$cases" chains 3 > /dev/null 2> "$tmp/err"; then
	"$PERPI" measure -i "$tmp/ch.data" --json > "$tmp/meas.json" ||
		{ echo "FAIL: measure -i"; fail=1; }
	XDG_DATA_HOME="$tmp/xdg" "$PERPI" report -i "$tmp/ch.data" --model "$tmp/m.json" --json |
		python3 -c '
import json, sys
d = json.load(sys.stdin)
m = {x["name"]: x for x in json.load(open(sys.argv[1]))["functions"]}["add_chain"]
f = [x for x in d["functions"] if x["name"] == "add_chain"][0]["cycles"]
assert 6003 <= f["predicted"] <= 6006, f
# perpi measure -i prints tenths of a cycle
assert abs(f["measured"] - m["total"]) < 0.051, (f, m)
assert abs(f["measured_min_call"] - m["min"]) < 0.051 and m["min"] > 0, (f, m)
' "$tmp/meas.json" || { echo "FAIL: --json of a run recorded with --measure"; fail=1; }
	XDG_DATA_HOME="$tmp/xdg" "$PERPI" report -i "$tmp/ch.data" --model "$tmp/m.json" \
		> "$tmp/out" 2>&1
	grep -q '^add_chain .*(3 calls) :: cycles \[600[3-6]\.[0-9]\] :: measured \[[0-9.]*\] :: bound' \
		"$tmp/out" || { echo "FAIL: text of a run recorded with --measure:"; cat "$tmp/out"; fail=1; }
else
	echo "note: no real --measure recording ($cases: $(cat "$tmp/err" 2>/dev/null))"
fi

# No core file: the bound alone, null predictions, and how to measure one.
XDG_DATA_HOME="$tmp/none" "$PERPI" report -i "$tmp/t.data" --model "$tmp/m.json" \
	> "$tmp/out" 2> "$tmp/err"
grep -q 'cycles \[' "$tmp/out" && { echo "FAIL: predicted cycles without a core file"; fail=1; }
has no-core-bound ':: bound [10.0]' "$tmp/out"
has no-core-hint "'perpi core --from perpi.data'" "$tmp/err"
XDG_DATA_HOME="$tmp/none" "$PERPI" report -i "$tmp/t.data" --json 2>/dev/null | python3 -c '
import json, sys
t = json.load(sys.stdin)["totals"]
assert t["cycles"] == {"predicted": None, "resource_bound": None, "measured": None}, t
assert t["l1_miss_rate"] is None, t
' || { echo "FAIL: --json without a model"; fail=1; }

# A corrupt default core file: a warning, and the report without predictions.
mkdir -p "$tmp/bad/perpi" && echo '{"format": "perpi-core"' > "$tmp/bad/perpi/core.json"
XDG_DATA_HOME="$tmp/bad" "$PERPI" report -i "$tmp/t.data" --model "$tmp/m.json" \
	> "$tmp/out" 2> "$tmp/err" || { echo "FAIL: a bad core file stopped the report"; fail=1; }
has bad-core 'ignoring the default core file' "$tmp/err"

# The live run and its replay: the same prediction, within the bounds above.
loop="$top_builddir/tests/lift/loop"
if [ -x "$loop" ] && "$PERPI" record -q -o "$tmp/loop.data" "$loop" > /dev/null 2>&1; then
	cp "$tmp/m.json" "$tmp/xdg/perpi/model.json"
	live=$(XDG_DATA_HOME="$tmp/xdg" "$PERPI" -o /dev/stdout "$loop" 2>/dev/null |
		sed -n 's/^main .*:: cycles \[\([0-9.]*\)\].*/\1/p')
	replay=$(XDG_DATA_HOME="$tmp/xdg" "$PERPI" report -i "$tmp/loop.data" 2>/dev/null |
		sed -n 's/^main .*:: cycles \[\([0-9.]*\)\].*/\1/p')
	[ -n "$live" ] && [ "$live" = "$replay" ] ||
		{ echo "FAIL: live '$live' and replayed '$replay' cycles differ"; fail=1; }
	python3 -c "import sys; c = float(sys.argv[1]); sys.exit(not 300 <= c <= 426)" "${live:-0}" ||
		{ echo "FAIL: loop's $live cycles outside [300, 426]"; fail=1; }
fi

# The TUI's Functions screen: the predicted cycles beside the bound.
if command -v tmux > /dev/null && "$PERPI" tui --help > /dev/null 2>&1; then
	. "$top_srcdir/tests/tui/tmux.sh"
	tmux_start 80 24 XDG_DATA_HOME="$tmp/xdg" "$PERPI" tui --model "$tmp/m.json" "$tmp/t.data"
	expect "tui: f" '^ f +11 +10 +1\.10 +1 +31\.0 +10\.0 +1\.00 *$'
	expect "tui: note" 'run 31\.5 cycles predicted, bound 10\.0 cycles'
	tmux_keys q
	tmux_stop
	# with native figures: a measured column beside the predicted cycles
	tmux_start 80 24 XDG_DATA_HOME="$tmp/xdg" "$PERPI" tui --model "$tmp/m.json" "$tmp/tf.data"
	expect "tui: measured header" 'cycles +measured +bound +IPC *$'
	expect "tui: f measured" '^ f +11 +10 +1\.10 +1 +31\.0 +40\.0 +10\.0 +1\.00 *$'
	expect "tui: note measured" 'run 31\.5 cycles predicted, 41\.5 measured, bound 10\.0'
	tmux_keys q
	tmux_stop
	[ "$failures" = 0 ] || fail=1
fi
exit $fail

#!/bin/sh
# perpi report with the Palmed columns, on the hand-made run of
# tests/lift/test_lift.c (its comment derives every figure by hand):
#   f:         cycles 12.0, IPC 33/12 = 2.75, bottleneck R1, covered 33 of the
#              33 instructions that are not control transfers = 100.0%
#   whole run: cycles 12.0, IPC 2.75, bottleneck R1, covered 33/33 = 100.0%
#              (46 instructions, 13 control transfers)
#   blocks:    0x2000 (10 occurrences, 1.00 cycles each, 10.0 in all, R1) first;
#              its ILP is 4.00: the hand-made events carry no dependencies, so
#              each occurrence's 4 instructions all run at step 1
# No model: the hint; a model of another CPU: a warning; a bad model: an error.
: "${PERPI:=./perpi}" "${top_builddir:=.}"
tl="$top_builddir/tests/lift/test_lift"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
"$tl" write "$tmp/t.data" "$tmp/m.json" host || { echo "FAIL: writing the run"; exit 1; }
has() { # has NAME TEXT FILE: FILE has a line containing TEXT
	grep -qF -- "$2" "$3" || { echo "FAIL: $1: no '$2' in:"; cat "$3"; fail=1; }
}

"$PERPI" report -i "$tmp/t.data" --model "$tmp/m.json" --blocks > "$tmp/out" 2> "$tmp/err" ||
	{ echo "FAIL: report --model"; cat "$tmp/err"; fail=1; }
has f-row '(1 call) :: bound [12.0] :: IPC [2.75] :: bottleneck [R1] :: covered [100.0%]' "$tmp/out"
has run-row ':: bound [12.0] :: IPC [2.75] :: bottleneck [R1] :: covered [100.0%]' "$tmp/out"
grep -q '^whole run .*:: bound' "$tmp/out" || { echo "FAIL: whole-run row"; fail=1; }
first=$(grep -A2 '^address' "$tmp/out" | sed -n 2p | tr -s ' ')
[ "$first" = "0x2000 f 10 4 4.00 1.00 10.0 R1 100.0% " ] || { echo "FAIL: first block: '$first'"; fail=1; }
# With a model but no core file: no predicted cycles, one line saying how
# to measure one.
grep -v "no core file at .*'perpi core --from perpi.data'" "$tmp/err" | grep -q . &&
	{ echo "FAIL: unexpected stderr:"; cat "$tmp/err"; fail=1; }
grep -q 'cycles \[' "$tmp/out" && { echo "FAIL: predicted cycles without a core file"; fail=1; }

# JSON: the same figures.
"$PERPI" report -i "$tmp/t.data" --model "$tmp/m.json" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = [x for x in d["functions"] if x["name"] == "f"][0]["palmed"]
t = d["totals"]["palmed"]
assert abs(f["cycles"] - 12) < 1e-9 and abs(f["ipc"] - 2.75) < 1e-9, f
assert f["bottleneck"] == "R1" and f["covered"] == 33 and f["instructions"] == 44, f
assert t["covered"] == 33 and t["instructions"] == 46 and t["control"] == 13, t
assert abs(t["coverage"] - 1) < 1e-9 and t["uncovered"] == [], t
b = d["palmed"]["blocks"][0]
assert b["address"] == "0x2000" and b["occurrences"] == 10 and b["bottlenecks"] == ["R1"], b
assert b["forms"][:3] == ["ADD_GPR64_GPR64", "ADDSD_XMM_XMM", "ADDSD_XMM_XMM"], b
' || { echo "FAIL: --json"; fail=1; }

# A model without IMUL (test_lift.c derives it): f is covered 31 of 33
# (93.9%), 10.25 cycles; the two imuls are named, with the model's reason.
"$tl" write "$tmp/n.data" "$tmp/n.json" host noimul || { echo "FAIL: writing noimul"; exit 1; }
"$PERPI" report -i "$tmp/n.data" --model "$tmp/n.json" --blocks > "$tmp/out" 2> "$tmp/err" ||
	{ echo "FAIL: report --model noimul"; cat "$tmp/err"; fail=1; }
has noimul-f '(1 call) :: bound [10.2] :: IPC [3.02] :: bottleneck [R1] :: covered [93.9%] :: uncovered [IMUL_GPR64_GPR64 x2]' "$tmp/out"
has noimul-header '# uncovered: IMUL_GPR64_GPR64, 2 instructions: refused for this test' "$tmp/out"
has noimul-header-count '# covered: 31 of the 33 instructions that are not control transfers (93.9%); the 13 control transfers cannot be benchmarked' "$tmp/out"
grep '^0x200d ' "$tmp/out" | grep -q 'IMUL_GPR64_GPR64 x2$' || { echo "FAIL: block B names IMUL"; cat "$tmp/out"; fail=1; }
"$PERPI" report -i "$tmp/n.data" --model "$tmp/n.json" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = [x for x in d["functions"] if x["name"] == "f"][0]["palmed"]
assert f["uncovered"] == [{"form": "IMUL_GPR64_GPR64", "instructions": 2,
                           "reason": "refused for this test"}], f
assert abs(f["coverage"] - 31 / 33) < 1e-9 and f["control"] == 11, f
' || { echo "FAIL: --json noimul"; fail=1; }

# The default model ($XDG_DATA_HOME/perpi/model.json) is used when present.
mkdir -p "$tmp/xdg/perpi" && cp "$tmp/m.json" "$tmp/xdg/perpi/model.json"
XDG_DATA_HOME="$tmp/xdg" "$PERPI" report -i "$tmp/t.data" > "$tmp/out" 2>&1
has default-model 'covered [100.0%]' "$tmp/out"

# No model: the report as before, and one line saying how to build one.
XDG_DATA_HOME="$tmp/none" "$PERPI" report -i "$tmp/t.data" > "$tmp/out" 2> "$tmp/err" ||
	{ echo "FAIL: report without a model"; fail=1; }
has hint "'perpi palmed build --from perpi.data'" "$tmp/err"
[ "$(wc -l < "$tmp/err")" = 1 ] || { echo "FAIL: hint not one line"; cat "$tmp/err"; fail=1; }
grep -q 'bound \[' "$tmp/out" && { echo "FAIL: columns without a model"; fail=1; }
has no-model-row 'f         :: I [44] :: C [1] :: ILP [44.00] (1 call)' "$tmp/out"

# A damaged default model: a warning, and the report without the columns.
mkdir -p "$tmp/bad/perpi" && echo '{"format": ' > "$tmp/bad/perpi/model.json"
XDG_DATA_HOME="$tmp/bad" "$PERPI" report -i "$tmp/t.data" > "$tmp/out" 2> "$tmp/err" ||
	{ echo "FAIL: a damaged default model stopped the report"; fail=1; }
has bad-default 'ignoring the default model' "$tmp/err"
has bad-default-row 'f         :: I [44] :: C [1] :: ILP [44.00] (1 call)' "$tmp/out"

# A model of another CPU: used, with a warning naming that CPU.
"$tl" write "$tmp/t2.data" "$tmp/other.json" "OtherVendor family 1 model 2: elsewhere" ||
	{ echo "FAIL: writing the other model"; fail=1; }
"$PERPI" report -i "$tmp/t.data" --model "$tmp/other.json" > "$tmp/out" 2> "$tmp/err"
has other-cpu "model was built for CPU 'OtherVendor family 1 model 2: elsewhere'" "$tmp/err"
has other-cpu-columns 'covered [100.0%]' "$tmp/out"

# A missing or corrupt named model is an error.
"$PERPI" report -i "$tmp/t.data" --model "$tmp/nosuch.json" > /dev/null 2> "$tmp/err"
[ $? = 1 ] && grep -q '^perpi report: --model' "$tmp/err" || { echo "FAIL: missing model"; cat "$tmp/err"; fail=1; }
echo '{"format": "perpi-palmed-model", "version": 1' > "$tmp/bad.json"
"$PERPI" report -i "$tmp/t.data" --model "$tmp/bad.json" > /dev/null 2> "$tmp/err"
[ $? = 1 ] && grep -q 'bad.json' "$tmp/err" || { echo "FAIL: corrupt model"; cat "$tmp/err"; fail=1; }
"$PERPI" report -i "$tmp/t.data" --blocks=0 > /dev/null 2>&1
[ $? = 2 ] || { echo "FAIL: --blocks=0 accepted"; fail=1; }

# palmed build --from: just the run's 7 forms (call, hlt, add, addsd, jne,
# imul, ret), here measured on the simulated Skylake-like machine (ALUs
# on ports 0 1 5 6, addsd on 0 1, imul on 1). Its truth, by hand: A = add
# + 2 addsd: 2 addsd on 2 ports = 1 cycle (3 ALU uops on 4 ports: 0.75),
# B = 2 imul on port 1 = 2 cycles; f = 10 x 1 + 2 = 12 cycles. The model
# inferred from the simulator's measurements must give the same.
"$PERPI" palmed build --sim intel --from "$tmp/t.data" -o "$tmp/sim.json" > "$tmp/out" 2> "$tmp/err" ||
	{ echo "FAIL: palmed build --from"; cat "$tmp/err"; fail=1; }
has from-count 'palmed: 7 forms from' "$tmp/err"
has from-built '3 forms on 3 resources (4 unmapped)' "$tmp/out"
"$PERPI" report -i "$tmp/t.data" --model "$tmp/sim.json" > "$tmp/out" 2>&1
has from-lifted '(1 call) :: bound [12.0] :: IPC [2.75]' "$tmp/out"
# The same run twice: the union is still those 7 forms, each measured once.
"$PERPI" palmed build --sim intel --from "$tmp/t.data" --from "$tmp/t.data" -o "$tmp/sim2.json" \
	> "$tmp/out" 2> "$tmp/err" || { echo "FAIL: palmed build --from twice"; cat "$tmp/err"; fail=1; }
has from-twice '3 forms on 3 resources (4 unmapped)' "$tmp/out"
"$PERPI" palmed build --sim intel --from "$tmp/nosuch.data" -o "$tmp/x.json" > /dev/null 2> "$tmp/err"
[ $? = 1 ] && grep -q '^perpi: palmed build: --from' "$tmp/err" || { echo "FAIL: --from a missing file"; cat "$tmp/err"; fail=1; }

[ $fail = 0 ] && echo "PASS: report with the Palmed columns"
exit $fail

#!/bin/sh
# perpi report/hist/graph/critical on the hand-made run "calls" of
# tests/outputs/make_trace.c, every figure derived by hand from the
# ideal-machine rule c = 1 + max(ready(sources)), all ready at 0 at first:
#
#   #   insn               sources (ready)               step
#   0   mov eax, 1         -                             1
#   1   mov ecx, 2         -                             1
#   2   call f             rsp(0)                        1   rsp, [S-8] ready 1
#   3   addsd xmm0, xmm1   xmm0(0) xmm1(0)               1
#   4   addsd xmm0, xmm2   xmm0(1)                       2
#   5   mulsd xmm3, xmm1   -                             1
#   6   add rax, rcx       rax(1) rcx(1)                 2
#   7   ret                rsp(1) [S-8](1)               2
#   8   call f             rsp(2)                        3
#   9   addsd xmm0, xmm1   xmm0(2)                       3
#   10  addsd xmm0, xmm2   xmm0(3)                       4
#   11  mulsd xmm3, xmm1   xmm3(1)                       2
#   12  add rax, rcx       rax(2) rcx(1)                 3
#   13  ret                rsp(3) [S-8](3)               4
#   14  mov [rdi], rax     rax(3)                        4
#   15  mov rdx, [rdi]     [0x601000](4)                 5
# I = 16, C = 5, ILP 3.20; per step 5, 4, 3, 3, 1 instructions.
# f in isolation (what came before the call ready at 0): #3 1, #4 2, #5 1,
# #6 1, #7 1: I = 5, C = 2 per call; 2 calls: I = 10, C = 4, ILP 2.50.
set -u
: "${PERPI:?}" "${top_builddir:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$PERPI" report --help >/dev/null 2>&1 || { echo "SKIP: perpi has no report command"; exit 77; }
"$top_builddir/tests/outputs/make_trace" calls "$tmp/calls.data" || exit 1
"$top_builddir/tests/outputs/make_trace" pushes "$tmp/pushes.data" || exit 1
cd "$tmp"

check() { # check NAME WANT CMD...: the output of CMD contains the line WANT
	name=$1 want=$2
	shift 2
	out=$("$@" 2>&1)
	if ! printf '%s\n' "$out" | grep -qxF -- "$want"; then
		echo "FAIL: $name: no line '$want' in:"; printf '%s\n' "$out"; fail=1
	fi
}
refused() { # refused NAME STATUS MESSAGE CMD...: fails with STATUS and MESSAGE
	name=$1 status=$2 msg=$3
	shift 3
	out=$("$@" 2>&1); rc=$?
	if [ "$rc" != "$status" ] || ! printf '%s\n' "$out" | grep -qF -- "$msg"; then
		echo "FAIL: $name: exit $rc (want $status), output:"; printf '%s\n' "$out"; fail=1
	fi
}

# Whole run and the per-function line (perpi.data is the default input).
cp calls.data perpi.data
check whole 'whole run :: I [16] :: C [5] :: ILP [3.20]' "$PERPI" report
check function-row 'f         :: I [10] :: C [4] :: ILP [2.50] (2 calls)' "$PERPI" report
# --function f: its instances, isolated: the f row again.
check function 'f :: I [10] :: C [4] :: ILP [2.50] (2 calls)' "$PERPI" report --function f
# --call 2: #9 1, #10 2, #11 1, #12 1, #13 1: I = 5, C = 2.
check call 'f :: I [5] :: C [2] :: ILP [2.50] (call 2 of 2)' "$PERPI" report --function f --call 2
# --only fp: only #3-#5 and #9-#11 count; the others are free, so xmm0 goes
# 1, 2, 3, 4 and xmm3 1, 2: I = 6, C = 4.
check only-fp 'whole run :: I [6] :: C [4] :: ILP [1.50]' "$PERPI" report --only fp
# --steps 2:3: steps 2 and 3 hold #4, #6, #7, #11 and #8, #9, #12: I = 7, C = 2.
check steps 'step range :: I [7] :: C [2] :: ILP [3.50]' "$PERPI" report --steps 2:3
# --window 1: each instruction waits for the one before: ILP exactly 1.
check window1 'whole run :: I [16] :: C [16] :: ILP [1.00]' "$PERPI" report --window 1
# --width 1: one instruction per step: C = I.
check width1 'whole run :: I [16] :: C [16] :: ILP [1.00]' "$PERPI" report --width 1
# --width 2, each instruction at the first step >= its ready step with room:
# steps 1: #0 #1, 2: #2 #3, 3: #4 #5, 4: #6 #7, 5: #8 #9, 6: #10 #11,
# 7: #12 #13, 8: #14, 9: #15: C = 9.
check width2 'whole run :: I [16] :: C [9] :: ILP [1.78]' "$PERPI" report --width 2
"$PERPI" hist --width 2 --csv w2.csv >/dev/null
awk -F, 'NR > 1 && $12 > 2 { bad = 1 } END { exit bad }' w2.csv ||
	{ echo "FAIL: --width 2 put more than 2 instructions in a step"; fail=1; }
# --latency: addsd takes 4 steps (its result is ready 3 steps after it
# issues, and that is its step); every other form 1. #3 issues at 1, step 4;
# #4 at 5, step 8; #9 reads xmm0 (8): 12; #10: 16. The rest as before, at
# most step 5: C = 16. In f alone: #3 4, #4 8: C = 8 per call, 16 for two.
printf '# hand-made\nADDSD_XMM_XMM 4\n' > lat.txt
check latency 'whole run :: I [16] :: C [16] :: ILP [1.00]' "$PERPI" report --latency lat.txt
check latency-f 'f :: I [10] :: C [16] :: ILP [0.62] (2 calls)' \
	"$PERPI" report --latency lat.txt --function f
# 11 static instructions, of which the 2 addsd are listed: 9 are not.
check latency-header '# --latency lat.txt: 9 static instructions of forms not listed took 1 step' \
	"$PERPI" report --latency lat.txt
printf 'ADDSD_XMM_XMM four\n' > badlat.txt
refused bad-latency 1 'badlat.txt:1' "$PERPI" report --latency badlat.txt
# Scenario pushes: 4 x push rax, chained through rsp: C = 4; with the stack
# engine the rsp updates are free and each push waits only for rax: C = 1.
check pushes 'whole run :: I [4] :: C [4] :: ILP [1.00]' "$PERPI" report -i pushes.data
check stack-engine 'whole run :: I [4] :: C [1] :: ILP [4.00]' \
	"$PERPI" report -i pushes.data --stack-engine

# JSON, read back by Python's parser: the same figures as the text report.
"$PERPI" report --json > r.json || { echo "FAIL: report --json"; fail=1; }
python3 - r.json <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
t = r["totals"]
want = (16, 5, 1, 1, 2, 6, 0, 2, 4, 0)
got = (t["instructions"], t["steps"]) + tuple(t["classes"][k] for k in
       ("load", "store", "int", "fp", "vec", "move", "branch", "other"))
f = r["functions"][0]
ok = got == want and abs(t["ilp"] - 3.2) < 1e-12 and (f["name"], f["calls"], f["instructions"], f["steps"]) == ("f", 2, 10, 4)
ok = ok and r["trace"]["end"] == {"kind": "exited", "status": 0, "events": 16} and r["schema"] == 1
if not ok:
    print("FAIL: JSON figures", got, f, r["trace"]["end"])
sys.exit(0 if ok else 1)
PY

# With --steps 2:3, the same 7 instructions in 2 steps as the text report.
"$PERPI" report --json --steps 2:3 | python3 -c '
import json, sys
r = json.load(sys.stdin)
t = r["totals"]
sys.exit(0 if (t["instructions"], t["steps"], r["options"]["steps"], r["functions"]) == (7, 2, [2, 3], []) else 1)' ||
	{ echo "FAIL: JSON with --steps"; fail=1; }

# Histogram: CSV rows are the per-step counts, they add up to I.
"$PERPI" hist --csv h.csv --svg h.svg > h.txt || { echo "FAIL: hist"; fail=1; }
[ "$(awk -F, 'NR > 1 { printf "%s ", $12; s += $12 } END { print s }' h.csv)" = "5 4 3 3 1 16" ] ||
	{ echo "FAIL: CSV rows"; cat h.csv; fail=1; }
xmllint --noout h.svg || { echo "FAIL: SVG is not XML"; fail=1; }
grep -q '^legend: l load' h.txt || { echo "FAIL: no legend"; fail=1; }
# 2 bins: steps 1-3 hold 12, steps 4-5 hold 4.
"$PERPI" hist --bins 2 --csv b.csv >/dev/null
[ "$(awk -F, 'NR > 1 { printf "%s-%s:%s ", $1, $2, $12 }' b.csv)" = "1-3:12 4-5:4 " ] ||
	{ echo "FAIL: 2 bins"; cat b.csv; fail=1; }

# Data-flow graph: 16 nodes; 13 edges, one per producer and reader: #4
# xmm0, #6 rax and rcx, #7 rsp + [S-8] (one edge from #2), #8 rsp, #9 xmm0,
# #10 xmm0, #11 xmm3, #12 rax and rcx, #13 rsp + [S-8], #14 rax,
# #15 [0x601000]. Graphviz renders it.
"$PERPI" graph -o g.dot 2>/dev/null || { echo "FAIL: graph"; fail=1; }
[ "$(grep -c -- '-> n[0-9]* \[label' g.dot)" = 13 ] || { echo "FAIL: edges"; fail=1; }
grep -qF 'n14 -> n15 [label="[0x601000]:8"]' g.dot || { echo "FAIL: memory edge"; fail=1; }
grep -qF 'n2 -> n7 [label="rsp, [0x7ffdfff8]:8"]' g.dot || { echo "FAIL: merged edge"; fail=1; }
if command -v dot >/dev/null; then
	dot -Tsvg g.dot -o g.svg && xmllint --noout g.svg || { echo "FAIL: dot -Tsvg"; fail=1; }
fi
refused max-nodes 1 'more than the limit of 10' "$PERPI" graph -o big.dot --max-nodes 10
[ ! -e big.dot ] || { echo "FAIL: refused graph left a file"; fail=1; }
# --steps 2:3 holds 7 instructions (above): a limit of 5 says so.
refused max-nodes-steps 1 'the 2 steps of --steps hold 7 instructions' \
	"$PERPI" graph -o big.dot --max-nodes 5 --steps 2:3
refused no-output 2 'give -o FILE.dot' "$PERPI" graph

# Critical path: #0 -> #6 -> #12 -> #14 -> #15 (5 = C instructions), two of
# them on scenario.c:21 (f's add).
check critical 'critical path: 5 instructions, steps 1-5' "$PERPI" critical
check critical-line '         2  40.0%  /src/scenario.c:21' "$PERPI" critical

# Bad input.
refused unknown-function 1 'no function of that name' "$PERPI" report --function nosuch
refused empty-steps 1 'empty step range' "$PERPI" report --steps 9:12
refused reversed-steps 2 'empty step range' "$PERPI" report --steps 3:2
refused call-alone 2 '--call N needs --function' "$PERPI" report --call 1
refused bad-class 2 "unknown class 'flop'" "$PERPI" report --only flop
refused missing 1 'cannot open nosuch.data' "$PERPI" report -i nosuch.data
refused foreign 1 'not a perpi trace file' "$PERPI" report -i h.csv
head -c 100 calls.data > cut.data
refused truncated 1 'truncated' "$PERPI" hist -i cut.data
python3 -c "
d = bytearray(open('calls.data', 'rb').read()); d[len(d) // 2] ^= 0x20
open('bad.data', 'wb').write(d)"
refused corrupt 1 'corrupt' "$PERPI" critical -i bad.data
refused bad-option 2 "--frobnicate: unknown option" "$PERPI" report --frobnicate

# An empty run: zero figures, and a histogram that says why it is empty.
"$top_builddir/tests/outputs/make_trace" empty empty.data || exit 1
check empty 'whole run :: I [0] :: C [0] :: ILP [0.00]' "$PERPI" report -i empty.data
refused empty-hist 1 'the analysed run is empty' "$PERPI" hist -i empty.data
check empty-critical 'critical path: no instruction in the analysed range' "$PERPI" critical -i empty.data

[ "$fail" = 0 ] && echo "PASS: filters, constraints and outputs on hand-made runs"
exit "$fail"

#!/bin/sh
# perpi record --measure: the native figures go into perpi.data and come
# back out (perpi measure -i, text and JSON); the trace is the same as
# without them; a damaged measurement chunk is refused by name.
. "$top_srcdir/tests/measure/lib.sh"

data="$tmp/chains.data"
"$PERPI" record -q -o "$data" --measure=2 --function add_chain --function imul_chain \
	"$C" chains 20 >/dev/null 2>"$tmp/err" || fail "record --measure: $(cat "$tmp/err")"
"$PERPI" measure -i "$data" >"$out" 2>"$tmp/err" || fail "measure -i: $(cat "$tmp/err")"
# 20 calls of each (cases.c), timed in 2 runs
expect_calls add_chain 20 "-i"
expect_calls imul_chain 20 "-i"
grep -q "^# 2 runs" "$out" || fail "-i: the runs are not told"
"$PERPI" measure -i "$data" --json -o "$tmp/j" || fail "measure -i --json"
python3 - "$tmp/j" <<'PY' || fail "-i --json: wrong figures"
import json, sys
j = json.load(open(sys.argv[1]))
f = {x["name"]: x for x in j["functions"]}
assert j["runs"] == 2 and j["region"] is None, j
assert f["add_chain"]["calls"] == 20 and f["imul_chain"]["calls"] == 20, f
# 1000 imuls at 3 cycles against 2000 adds at 1: imul_chain is the longer
assert f["imul_chain"]["min"] > f["add_chain"]["min"] > 0, f
assert j["whole"] >= f["add_chain"]["total"] + f["imul_chain"]["total"] - 1, j
PY
# the trace itself: each function traced in its 20 calls
"$PERPI" report -i "$data" >"$tmp/report" 2>&1 || fail "report -i: $(cat "$tmp/report")"
grep -q "^add_chain .*(20 calls)" "$tmp/report" || fail "the trace lost add_chain's calls"

# the region (markers) kept as the region
"$PERPI" record -q -o "$tmp/region.data" --measure=1 "$C" region 1 >/dev/null 2>&1 ||
	fail "record --measure of a region"
"$PERPI" measure -i "$tmp/region.data" >"$out" 2>&1
expect_calls perpi_start..perpi_stop 2 "-i region"

# without --measure: no figures; with -p: refused
"$PERPI" record -q -o "$tmp/plain.data" "$C" small 1 >/dev/null 2>&1
"$PERPI" measure -i "$tmp/plain.data" >/dev/null 2>&1 && fail "-i found figures in a plain trace"
"$PERPI" record -o "$tmp/p.data" --measure -p 1 >/dev/null 2>"$tmp/err"
[ $? = 2 ] || fail "record --measure -p: exit status"
grep -q "not one attached to with -p" "$tmp/err" || fail "record --measure -p: $(cat "$tmp/err")"

# a damaged measurement chunk: one byte of its payload changed
python3 - "$data" "$tmp/bad.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
meta = struct.unpack_from("<I", b, 12)[0]
chunk = 8 + 8 + meta + 4
assert b[chunk:chunk + 4] == b"MEAS"
b[chunk + 12 + 10] ^= 0x20
open(sys.argv[2], "wb").write(b)
PY
"$PERPI" measure -i "$tmp/bad.data" >/dev/null 2>"$tmp/err"
[ $? = 1 ] || fail "-i a damaged chunk: exit status"
grep -q "corrupt trace file.*measurement chunk" "$tmp/err" || fail "damaged chunk: $(cat "$tmp/err")"
"$PERPI" report -i "$tmp/bad.data" >/dev/null 2>&1 && fail "report read a damaged file"
finish

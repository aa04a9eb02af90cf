#!/bin/sh
# forms.S under both backends, recorded: every event the same (instruction,
# units, bytes; see test_same_events.c), where Valgrind's own memory records
# would duplicate, split or invent accesses (REP strings, lock, fxsave,
# xsave, masked moves, gathers, maskmovdqu, prefetch, clflush).
. "$top_srcdir/tests/valgrind/lib.sh"
grep -qw avx2 /proc/cpuinfo || { echo "SKIP: this CPU has no AVX2 (forms.S gathers)"; exit 77; }
for b in ptrace valgrind; do
	"$PERPI" record -q --backend=$b -o "$tmp/$b.data" "$B/forms" >"$tmp/out" 2>&1 ||
		fail "perpi record --backend=$b forms: $(cat "$tmp/out")"
done
"$B/test_same_events" "$tmp/ptrace.data" "$tmp/valgrind.data" || fail "the events differ"
# each file names the backend that recorded it (perpi.data(5): "backend")
for b in ptrace valgrind; do
	"$PERPI" report --json -i "$tmp/$b.data" 2>/dev/null | grep -q "\"backend\":\"$b\"" ||
		fail "$b.data: its metadata does not say backend $b"
done
# Counted by hand in forms.S: main 10 (sub, 6 calls, add, xor, ret);
# rep_strings 29: 16 plain instructions and 13 string events, one per
# iteration (movsb 3, movsb 1 with RCX = 0, stosq 1, cmpsb 3 and 2, scasb
# 3); lock_ops 11; saves 8; masked 13; no_access 5; dynamic 17: 93 in all.
"$PERPI" report -i "$tmp/valgrind.data" >"$tmp/report" 2>&1
grep -q '^whole run *:: I \[93\]' "$tmp/report" || fail "valgrind: I is not 93: $(cat "$tmp/report")"
grep -q '^rep_strings *:: I \[29\]' "$tmp/report" || fail "valgrind: rep_strings' I is not 29"
finish

#!/bin/sh
# Names in the report: the program's functions by name, a library's as
# NAME@LIBRARY, a call through the PLT by its target, a function without a
# symbol by its object and link-time offset, a shared object loaded by
# dlopen while the program ran (the names are looked up after the program
# has exited, from the snapshot of its mappings); the same names replayed.
. "$top_srcdir/tests/tracer/lib.sh"

# row NAME I C CALLS: the report has NAME's line with these figures
row()
{
	calls="$4 call"
	[ "$4" = 1 ] || calls="${calls}s"
	grep -q "^$1  *:: I \[$2\]  *:: C \[$3\]  *:: ILP \[[0-9.]*\]  *($calls)\$" "$report" ||
		fail "no line '$1 :: I [$2] :: C [$3] ... ($calls)' in: $(cat "$report")"
}

run 0 "$B/names" "$B/libplugin.so"
for want in 'main' 'puts@libc.so.6' 'dlopen@libc.so.6' 'plugin_work@libplugin.so'; do
	grep -q "^$want  *:: I \[" "$report" || fail "names: no line for $want"
done
grep -q '@plt' "$report" && fail "names: a call is named after its PLT stub: $(grep @plt "$report")"
grep -q '^0x' "$report" && fail "names: a run-time address for a name: $(grep '^0x' "$report")"
run 0 "$B/names_noplt" "$B/libplugin.so"
grep -q "^puts@libc.so.6  *:: I \[" "$report" || fail "names_noplt: no line for puts@libc.so.6"

# plt.S, its libraries bound at start (-z now), every figure by hand; each
# call instance is analysed alone, what came before it ready at step 0:
# - plugin_work through its PLT stub: jmp [GOT] (the slot was written
#   before: step 1), lea eax, [rdi+rdi+1] (rdi: 1), ret (rsp and the return
#   address, written by the call before the instance: 1): I 3, C 1.
# - helper, static in libunnamed.so (stripped): lea (1), ret (1): I 2, C 1;
#   named by its object and its address in it, as nm shows it unstripped.
# - unnamed_work through its stub: jmp (1), sub rsp (1), call helper (rsp:
#   2), helper's lea (1) and ret (rsp 2: 3), add rsp (4), add eax (2),
#   ret (rsp 4: 5): I 8, C 5.
# - main: its 8 instructions and both calls: I 19.
helper=$(nm "$B/libunnamed-g.so" | sed -n 's/^0*\([0-9a-f]*\) t helper$/\1/p')
[ -n "$helper" ] || fail "nm finds no helper in libunnamed-g.so"
run 0 "$B/plt_now"
row plugin_work@libplugin.so 3 1 1
row unnamed_work@libunnamed.so 8 5 1
row "libunnamed.so+0x$helper" 2 1 1
row main 19 11 1
cp "$report" "$tmp/first"
# Again, loaded elsewhere (ASLR): the same names.
run 0 "$B/plt_now"
cmp -s "$tmp/first" "$report" || fail "plt_now: another report in a second run: $(diff "$tmp/first" "$report")"

# Bound lazily, the first call runs the dynamic linker's resolver from the
# stub: still a call of its target (the resolver's work inside it).
run 0 "$B/plt_lazy"
for want in 'plugin_work@libplugin.so' 'unnamed_work@libunnamed.so' "libunnamed.so+0x$helper"; do
	grep -q "^$want  *:: I \[[0-9]*\] .*(1 call)\$" "$report" || fail "plt_lazy: no line for $want (1 call)"
done
grep -q '@plt\|^0x' "$report" && fail "plt_lazy: $(grep '@plt\|^0x' "$report")"

# Replayed: the names recorded in the trace, in the report, the JSON and
# the critical path (through helper's ret, the instruction after its lea,
# as objdump reads the unstripped object).
"$PERPI" record -q -o "$tmp/plt.data" "$B/plt_now" >/dev/null 2>&1 || fail "record plt_now"
"$PERPI" report -i "$tmp/plt.data" 2>/dev/null | grep -v '^#' >"$tmp/replay"
cmp -s "$tmp/first" "$tmp/replay" || fail "replayed names differ: $(diff "$tmp/first" "$tmp/replay")"
"$PERPI" report --json -i "$tmp/plt.data" 2>/dev/null >"$tmp/json"
for want in plugin_work@libplugin.so unnamed_work@libunnamed.so "libunnamed.so+0x$helper"; do
	grep -q "\"name\":\"$want\"" "$tmp/json" || fail "--json: no function named $want"
done
"$PERPI" critical -i "$tmp/plt.data" --function unnamed_work >"$tmp/crit" 2>&1
ret=$(objdump -d "$B/libunnamed-g.so" | awk '/<helper>:/ { on = 1 } on && /\tret/ { print $1; exit }' |
	sed 's/^0*//; s/:$//')
grep -q "libunnamed.so+0x$ret .* ret " "$tmp/crit" || fail "critical: helper's ret not named: $(cat "$tmp/crit")"

# --function of a library, by name: looked up once the program reaches
# main; names.c calls puts once.
run 0 --function puts "$B/names" "$B/libplugin.so"
grep -q '^puts@libc.so.6  *:: I \[[0-9]*\] .*(1 call)$' "$report" ||
	fail "--function puts: no line 'puts@libc.so.6 ... (1 call)'"

# ... or of an object the program loads later with dlopen: plugin_work is
# lea + ret (plugin.c compiled with -O2), 2 instructions, 1 call.
run 0 --function plugin_work "$B/names" "$B/libplugin.so"
expect_i 2 "--function plugin_work (dlopen)"
grep -q '^plugin_work@libplugin.so  *:: I \[2\] .*(1 call)$' "$report" ||
	fail "--function plugin_work: no line 'plugin_work@libplugin.so :: I [2] (1 call)'"

# A name found nowhere: a warning, nothing traced, the program's status.
run 0 --function no_such_fn "$B/loop_pie"
expect_i 0 "--function no_such_fn"
grep -q "^perpi: --function no_such_fn: no function of that name" "$tmp/err" ||
	fail "--function no_such_fn: no warning ($(cat "$tmp/err"))"
finish

#!/bin/sh
# Names in the report: the program's functions by name, PLT stubs as
# NAME@plt, a library's functions as NAME@LIBRARY, and a shared object
# loaded by dlopen while the program ran (the names are looked up after
# the program has exited, from the snapshot of its mappings).
. "$top_srcdir/tests/tracer/lib.sh"

run 0 "$B/names" "$B/libplugin.so"
for want in 'main' 'puts@plt' 'dlopen@plt' 'plugin_work@libplugin.so'; do
	grep -q "^$want  *:: I \[" "$report" || fail "names: no line for $want"
done
run 0 "$B/names_noplt" "$B/libplugin.so"
grep -q "^puts@libc.so.6  *:: I \[" "$report" || fail "names_noplt: no line for puts@libc.so.6"

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

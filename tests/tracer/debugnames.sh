#!/bin/sh
# Names from separate debug files: libc6-dbg installs the full symbol table
# of the stripped libc under /usr/lib/debug/.build-id/, by build-id. With
# it, malloc's static helper _int_malloc (no dynamic symbol) is named.
# Its address comes from the debug file through nm, a second reader.
. "$top_srcdir/tests/tracer/lib.sh"

grep -q '^#define HAVE_LIBDW 1' "$top_builddir/config.h" ||
	{ echo "SKIP: perpi built without libdw, which reads the build-ids"; exit 77; }
libc=$(ldd "$B/names" | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
id=$(readelf -n "$libc" 2>/dev/null | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
debug=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
[ -n "$id" ] && [ -f "$debug" ] ||
	{ echo "SKIP: no debug file for $libc (install libc6-dbg)"; exit 77; }
nm "$debug" | grep -q ' t _int_malloc$' ||
	{ echo "SKIP: $debug has no _int_malloc"; exit 77; }

# names.c's puts allocates its buffer: malloc calls _int_malloc.
run 0 "$B/names" "$B/libplugin.so"
grep -q '^_int_malloc@libc.so.6  *:: I \[' "$report" ||
	fail "no line for _int_malloc@libc.so.6 in: $(cat "$report")"
# glibc's local aliases (__GI_*) and symbol versions (name@GLIBC_2.2.5)
# do not name functions: the global, plain name does.
grep -q '^__GI_\|@GLIBC' "$report" && fail "an alias names a function: $(grep '^__GI_\|@GLIBC' "$report")"
grep -q '^puts@libc.so.6  *:: I \[' "$report" || fail "puts is not named puts"
finish

#!/bin/sh
# What the Valgrind backend cannot do ends in a clear error, never in a
# result from another path than the native one: an AVX-512 instruction
# (named, with its address and function, and the advice to use ptrace), an
# instruction Valgrind does not implement (pushfw), a program marked
# x86-64-v4; and -p, which only ptrace can do.
. "$top_srcdir/tests/valgrind/lib.sh"

# expect_error STATUS TEXT... -- PERPI_ARGS: perpi fails so, naming TEXTs
expect_error()
{
	want=$1
	shift
	texts=
	while [ "$1" != -- ]; do
		texts="$texts|$1"
		shift
	done
	shift
	"$PERPI" -o "$tmp/report" "$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	[ "$status" = "$want" ] || fail "perpi $*: exit $status, want $want"
	echo "$texts" | tr '|' '\n' | while read -r t; do
		[ -z "$t" ] || grep -qF -- "$t" "$tmp/err" || echo "perpi $*: no '$t' in: $(cat "$tmp/err")"
	done >"$tmp/missing"
	[ ! -s "$tmp/missing" ] || fail "$(cat "$tmp/missing")"
	! grep -q "whole run" "$tmp/report" 2>/dev/null || fail "perpi $*: a report was written"
}

expect_error 1 "'vpaddd zmm0, zmm0, zmm1'" "(main+0x2)" "AVX-512" "ptrace backend" -- \
	--backend=valgrind "$B/evex"
expect_error 1 "'pushf'" "tf_seen" "does not implement" "ptrace backend" -- \
	--backend=valgrind "$top_builddir/tests/tracer/pushf"
expect_error 127 "x86-64-v4" "ptrace backend" -- --backend=valgrind "$B/isa_v4"
expect_error 2 "-p" "valgrind backend cannot attach" -- --backend=valgrind -p 1
expect_error 2 "--backend vax: not a backend" -- --backend=vax /bin/true

# perpi record: the same error, and the trace says it was cut short
"$PERPI" record -q --backend=valgrind -o "$tmp/evex.data" "$B/evex" >/dev/null 2>"$tmp/err"
[ $? = 1 ] || fail "perpi record evex: exit status, want 1"
grep -q "AVX-512" "$tmp/err" || fail "perpi record evex: no error naming AVX-512"

# no tool where PERPI_VALGRIND_LIB says
export PERPI_VALGRIND_LIB="$tmp/none"
expect_error 127 "PERPI_VALGRIND_LIB" -- --backend=valgrind /bin/true
unset PERPI_VALGRIND_LIB
finish

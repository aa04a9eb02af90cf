#!/bin/sh
# End-to-end checks of perpi on compiled programs (tests/qa/), each figure
# derived by hand in the sources of the functions it names:
#  - C++ exceptions unwinding through qa_middle keep the per-function
#    figures consistent (qa_throw.cc, qa_throw_s.S);
#  - longjmp out of a recursion closes every instance (qa_jmp.c, qa_jmp_s.S);
#  - an AVX2 loop chained through 32-byte stores and loads (qa_avx2_s.S).
set -u
: "${PERPI:?PERPI must name the perpi binary}" "${top_builddir:?}"
B="$top_builddir/tests/qa"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run PROG WANT_OUTPUT: perpi PROG, exit 0, the program's output intact
run() {
	"$PERPI" -o "$tmp/rep" "$B/$1" >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ "$st" = 0 ] || fail "$1: exit $st ($(cat "$tmp/err"))"
	[ "$(cat "$tmp/out")" = "$2" ] || fail "$1: output '$(cat "$tmp/out")', want '$2'"
	# no warning (an undecodable instruction...) but the hint that no
	# Palmed model exists for resource-bound cycles
	grep -v 'no Palmed model' "$tmp/err" >"$tmp/warn"
	[ -s "$tmp/warn" ] && fail "$1: warnings: $(cat "$tmp/warn")"
	cp "$tmp/rep" "$tmp/$1.rep"
}
# field NAME I|C|calls: a figure of NAME's line in the last report
field() {
	line=$(sed -n "s/^$1 *:: //p" "$tmp/rep" | head -n 1)
	case $2 in
	I) echo "$line" | sed -n 's/^I \[\([0-9]*\)\].*/\1/p' ;;
	C) echo "$line" | sed -n 's/.*:: C \[\([0-9]*\)\].*/\1/p' ;;
	calls) echo "$line" | sed -n 's/.*(\([0-9]*\) calls*)$/\1/p' ;;
	esac
}
expect() { # WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}
whole_is_main() { # the one main instance holds the whole run
	expect "$1: main's calls" "$(field main calls)" 1
	expect "$1: main's I = the whole run's" "$(field main I)" "$(field 'whole run' I)"
}

# C++: qa_middle(i) for i = 0..4, qa_thrower throws for i = 3, 4, caught in
# main, then qa_leaf(i). qa_leaf: 5 calls of I = 2, C = 1 (qa_throw_s.S).
# qa_middle's own instructions: 3 returns x 5 + 2 throws x 2 = 19, plus
# the one instruction per throw that libgcc's landing sequence (mov rsp,
# rcx; pop rcx; jmp rcx) runs at qa_middle's entry RSP: its pop is where
# qa_middle's ret would be, so RSP matching keeps it in qa_middle (and
# qa_thrower's instance, unwound at that RSP, ends just before). A frame
# left open after the catch would take main's later instructions instead.
run qa_throw 241
whole_is_main qa_throw
expect "qa_throw: qa_leaf" "$(field qa_leaf I)/$(field qa_leaf C)/$(field qa_leaf calls)" 10/5/5
expect "qa_throw: qa_middle's calls" "$(field qa_middle calls)" 5
expect "qa_throw: qa_thrower's calls" "$(field qa_thrower calls)" 5
mi=$(field qa_middle I)
ti=$(field qa_thrower I)
if [ -n "$mi" ] && [ -n "$ti" ]; then
	own=$((mi - ti))
	[ "$own" -ge 19 ] && [ "$own" -le 21 ] ||
		fail "qa_throw: qa_middle's own instructions $own, want 19 to 21"
else
	fail "qa_throw: no qa_middle or qa_thrower line"
fi

# setjmp/longjmp: each of 3 rounds nests qa_deep(4) > ... > qa_deep(0) >
# longjmp, all left at once. Inclusive I of qa_deep(n) = 5n + 6 + L (L:
# longjmp's instance): over n = 0..4, 80 + 5L; over 3 rounds,
# 240 + 5 x longjmp's I. 15 calls; qa_leaf: 3 calls of I = 2, C = 1.
run qa_jmp 33
whole_is_main qa_jmp
expect "qa_jmp: qa_deep's calls" "$(field qa_deep calls)" 15
expect "qa_jmp: qa_leaf" "$(field qa_leaf I)/$(field qa_leaf C)/$(field qa_leaf calls)" 6/3/3
li=$(field longjmp@libc.so.6 I) # a call through the PLT is named after its target
[ -n "$li" ] || li=$(field longjmp I)
if [ -n "$li" ]; then
	expect "qa_jmp: qa_deep's I" "$(field qa_deep I)" $((240 + 5 * li))
else
	fail "qa_jmp: no longjmp line"
fi

# AVX2: I = 43, C = 17 (qa_avx2_s.S); exit 77 without AVX2.
"$B/qa_avx2" >/dev/null 2>&1
if [ $? = 77 ]; then
	echo "SKIP: qa_avx2: this CPU has no AVX2"
else
	run qa_avx2 ok
	whole_is_main qa_avx2
	expect "qa_avx2: qa_avx2_chain" \
		"$(field qa_avx2_chain I)/$(field qa_avx2_chain C)/$(field qa_avx2_chain calls)" 43/17/1
	# a recorded run replays to the same figures
	if "$PERPI" record -q -o "$tmp/avx2.data" "$B/qa_avx2" >/dev/null 2>&1 &&
		"$PERPI" report -i "$tmp/avx2.data" --function qa_avx2_chain >"$tmp/rep" 2>&1; then
		expect "qa_avx2 replayed: qa_avx2_chain" \
			"$(field qa_avx2_chain I)/$(field qa_avx2_chain C)" 43/17
	else
		fail "qa_avx2: record/report failed: $(cat "$tmp/rep")"
	fi
fi

if [ "$fails" -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo PASS

#!/bin/sh
# End-to-end figures of the assembly programs of tests/asm, each built PIE
# and non-PIE. Their sources carry the expected figures, derived by hand:
#   EXPECT NAME I=n C=m          perpi --function NAME PROGRAM
#   EXPECT[OPTIONS] NAME I=n C=m (with --limits) perpi record PROGRAM, then
#                                perpi report --function NAME OPTIONS
# and the report must hold the line
#   NAME :: I [n] :: C [m] :: ILP [...] (1 call)
# Usage: run-asm.sh            the ideal machine, live
#        run-asm.sh --limits   constrained machines and filters, replayed
#        run-asm.sh --recorded every line, from one perpi record per program
# PERPI_BACKEND=valgrind traces with the Valgrind backend (the same figures).
set -u
limits=no
all=no
[ "${1:-}" = --limits ] && limits=yes
[ "${1:-}" = --recorded ] && limits=yes && all=yes
: "${PERPI:?PERPI must name the perpi binary}"
: "${top_srcdir:?}" "${top_builddir:?}"
backend=--backend=${PERPI_BACKEND:-ptrace}

fail=0
pass=0
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# compare WHAT NAME I C FILE: FILE holds NAME's line with these figures
compare() {
	what=$1 name=$2 want_i=$3 want_c=$4 out=$5
	line=$(sed -n "s/^\($name\) *:: /\1 :: /p" "$out" | tr -s ' ' | head -n 1)
	want="$name :: I [$want_i] :: C [$want_c] :: "
	case "$line" in
	"$want"*"(1 call)")
		pass=$((pass + 1)) ;;
	*)
		fail=$((fail + 1))
		echo "FAIL: $what: want '$want... (1 call)', got '${line:-no line}'"
		sed 's/^/    /' "$out" | head -n 20 ;;
	esac
}

for src in regs vec mem calls signal; do
	for variant in "" -nopie; do
		prog="$top_builddir/tests/asm/$src$variant"
		if [ ! -x "$prog" ]; then
			echo "FAIL: $prog not built"
			fail=$((fail + 1))
			continue
		fi
		data="$tmp/$src$variant.data"
		# " * EXPECT name I=5 C=4" or " * EXPECT[--width 2] name I=11 C=6"
		sed -n 's/.*EXPECT\(\[[^]]*\]\)* \([A-Za-z_0-9]*\) I=\([0-9]*\) C=\([0-9]*\).*/\2 \3 \4 \1/p' \
			"$top_srcdir/tests/asm/$src.S" >"$tmp/expect"
		while read -r name i c opts; do
			opts=$(printf '%s' "$opts" | tr -d '[]')
			[ -z "$opts" ] && [ $limits = yes ] && [ $all = no ] && continue
			[ -n "$opts" ] && [ $limits = no ] && continue
			what="$src$variant $name${opts:+ ($opts)}"
			if [ $limits = no ]; then
				"$PERPI" $backend --function "$name" "$prog" >/dev/null 2>"$tmp/out" </dev/null
			else
				if [ ! -f "$data" ]; then
					"$PERPI" record $backend -q -o "$data" "$prog" >/dev/null 2>"$tmp/out" </dev/null ||
						{ echo "FAIL: perpi record $prog:"; cat "$tmp/out"; }
				fi
				# shellcheck disable=SC2086 # OPTIONS are words
				"$PERPI" report -i "$data" --function "$name" $opts >"$tmp/out" 2>&1
			fi
			compare "$what" "$name" "$i" "$c" "$tmp/out"
		done <"$tmp/expect"
	done
done
echo "asm: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# End-to-end figures: for each assembly program of tests/asm, built PIE and
# non-PIE, run `perpi --function NAME` for every "EXPECT NAME I=n C=m" line of
# its source and compare with the report's line
#     NAME :: I [n] :: C [m] :: ILP [...] (1 call)
# The expected figures are derived by hand in the sources' comments.
set -u
: "${PERPI:?PERPI must name the perpi binary}"
: "${top_srcdir:?}" "${top_builddir:?}"

fail=0
pass=0
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

check() { # program name I C
	prog=$1 name=$2 want_i=$3 want_c=$4
	out="$tmp/out"
	"$PERPI" --function "$name" "$prog" >"$tmp/stdout" 2>"$out"
	rc=$?
	line=$(sed -n "s/^\($name\) *:: /\1 :: /p" "$out" | tr -s ' ' | head -n 1)
	want="$name :: I [$want_i] :: C [$want_c] :: "
	case "$line" in
	"$want"*"(1 call)")
		pass=$((pass + 1)) ;;
	*)
		fail=$((fail + 1))
		echo "FAIL: $(basename "$prog") $name: want '$want... (1 call)', got '${line:-no line}' (exit $rc)"
		sed 's/^/    /' "$out" | head -n 20 ;;
	esac
}

for src in regs vec mem calls; do
	for variant in "" -nopie; do
		prog="$top_builddir/tests/asm/$src$variant"
		if [ ! -x "$prog" ]; then
			echo "FAIL: $prog not built"
			fail=$((fail + 1))
			continue
		fi
		# Lines like " * EXPECT name I=5 C=4" in the source
		sed -n 's/.*EXPECT \([A-Za-z_0-9]*\) I=\([0-9]*\) C=\([0-9]*\).*/\1 \2 \3/p' \
			"$top_srcdir/tests/asm/$src.S" >"$tmp/expect"
		while read -r name i c; do
			check "$prog" "$name" "$i" "$c"
		done <"$tmp/expect"
	done
done
echo "asm: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

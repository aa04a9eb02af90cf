# Helpers for perpi measure's shell tests: run perpi measure with the
# figures in a file, read a figure from it, count failures.
set -u
C="$top_builddir/tests/measure/cases"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out="$tmp/figures"
fails=0

fail()
{
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# measure WANT_STATUS ARGS...: perpi measure -o $out ARGS; checks the status.
measure()
{
	want=$1
	shift
	rm -f "$out"
	"$PERPI" measure -o "$out" "$@" >"$tmp/stdout" 2>"$tmp/err"
	status=$?
	[ "$status" = "$want" ] || fail "perpi measure $*: exit $status, want $want ($(cat "$tmp/err"))"
}

# column NAME FIELD: a figure of the text output (FIELD: 2 calls, 3 min,
# 4 median, 5 total); the region's line is "region NAME ...".
column()
{
	awk -v n="$1" -v f="$2" '$1 == "region" { $1 = ""; $0 = $0; $1 = $1 }
		$1 == n { print $f; exit }' "$out" 2>/dev/null
}

# expect_calls NAME WANT WHAT
expect_calls()
{
	got=$(column "$1" 2)
	[ "$got" = "$2" ] || fail "$3: $1 timed $got calls, want $2"
}

finish()
{
	if [ "$fails" -ne 0 ]; then
		echo "$fails failure(s)"
		exit 1
	fi
	echo PASS
	exit 0
}

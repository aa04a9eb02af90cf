# Helpers for the tracer's shell tests: run perpi with the report in a
# file, read the whole-run I from it, count failures.
# The expected values come from the test programs' sources, counted by hand.
set -u
B="$top_builddir/tests/tracer"
# PERPI_BACKEND=valgrind: the same expectations under the Valgrind backend
backend=--backend=${PERPI_BACKEND:-ptrace}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
report="$tmp/report"
fails=0

fail()
{
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# run WANT_STATUS PERPI_ARGS...: run perpi, report in $report, stdout and
# stderr in $tmp/out and $tmp/err; checks the exit status.
run()
{
	want=$1
	shift
	rm -f "$report"
	"$PERPI" -o "$report" $backend "$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	[ "$status" = "$want" ] || fail "perpi $*: exit $status, want $want ($(cat "$tmp/err"))"
	[ -s "$report" ] || fail "perpi $*: no report"
}

whole_i()
{
	sed -n 's/^whole run *:: I \[\([0-9]*\)\].*/\1/p' "$report" 2>/dev/null
}

# expect_i WANT WHAT: the whole-run I of the last run
expect_i()
{
	got=$(whole_i)
	[ "$got" = "$1" ] || fail "$2: I = '$got', want $1"
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

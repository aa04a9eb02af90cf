# Helpers of the Valgrind backend's tests: skip (77) when perpi was built
# without it, a scratch directory, failures counted.
set -u
[ -x "$top_builddir/tracer/valgrind/perpi-amd64-linux" ] || {
	echo "SKIP: perpi was built without the Valgrind backend (configure --with-valgrind)"
	exit 77
}
B="$top_builddir/tests/valgrind"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail()
{
	echo "FAIL: $*"
	fails=$((fails + 1))
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

#!/bin/sh
# The tracer's own tests under the Valgrind backend, with their expected
# figures counted by hand in tests/tracer: where tracing starts and stops
# (main, entry point, --all, markers, --function, --start/--stop, library
# functions, --duration), signal handlers, fork, threads, execve, a crash,
# SIGKILL, and the names of functions.
. "$top_srcdir/tests/valgrind/lib.sh"
for t in regions pitfalls names; do
	PERPI_BACKEND=valgrind sh "$top_srcdir/tests/tracer/$t.sh" || fail "tests/tracer/$t.sh"
done
finish

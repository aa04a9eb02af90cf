#!/bin/sh
# The tracer's own tests under the Valgrind backend, with their expected
# figures counted by hand in tests/tracer: where tracing starts and stops
# (main, entry point, --all, markers, --function, --start/--stop, library
# functions, --duration), signal handlers, fork, threads, execve, a crash,
# SIGKILL, and the names of functions (debug files, PLT targets, module+offset).
. "$top_srcdir/tests/valgrind/lib.sh"
for t in regions pitfalls names debugnames; do
	PERPI_BACKEND=valgrind sh "$top_srcdir/tests/tracer/$t.sh"
	rc=$?
	[ "$rc" -eq 77 ] && echo "(tests/tracer/$t.sh skipped: its reason above)"
	[ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || fail "tests/tracer/$t.sh"
done
finish

#!/bin/sh
# The hand-derived figures of tests/asm (every EXPECT line, constrained
# machines and filters included) under the Valgrind backend, from one perpi
# record per program; and the same recorded way under ptrace (its live run
# is ilp's run-asm.sh).
. "$top_srcdir/tests/valgrind/lib.sh"
PERPI_BACKEND=valgrind sh "$top_srcdir/tests/asm/run-asm.sh" --recorded || fail "valgrind backend"
PERPI_BACKEND=ptrace sh "$top_srcdir/tests/asm/run-asm.sh" --recorded || fail "ptrace backend, recorded"
finish

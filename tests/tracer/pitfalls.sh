#!/bin/sh
# The step loop's pitfalls, each with a program that exercises it; the
# expected I is counted by hand in the program's source.
. "$top_srcdir/tests/tracer/lib.sh"

# A signal handler's instructions are traced: 207 (signal_work.S); the
# program checks that its handler ran once.
run 0 --function work "$B/signal"
expect_i 207 "signal handler"

# A handler's rt_sigreturn restores the program's r11: perpi must not clear
# TF in it as in the RFLAGS a syscall saves (the program exits 1 if r11
# changed).
run 0 "$B/sigr11"

# pushf must not show the trap flag (the program exits 1 if it does). A
# single-stepper's pitfall; Valgrind cannot run pushfw (tests/valgrind).
[ "$backend" = --backend=valgrind ] || run 0 "$B/pushf"

# fork and vfork children run untraced, exit normally (the program checks
# their statuses); with --function g only the parent's last call: 2.
run 0 "$B/fork"
run 0 --function g "$B/fork"
expect_i 2 "fork --function g"

# A second thread runs untraced through perpi's breakpoint; main's call: 2.
run 0 "$B/thread"
run 0 --function g "$B/thread"
expect_i 2 "thread --function g"

# execve: tracing stops, the new program's status (3) becomes perpi's.
run 3 "$B/exec"

# A crash: the report of what ran (22, crash.S), exit 128+SIGSEGV.
run 139 "$B/crash"
expect_i 22 "crash"

# Killed by SIGKILL: the report (25, killed.S), exit 128+9.
run 137 "$B/killed"
expect_i 25 "SIGKILL"

# The program's own output and exit status pass through.
run 0 "$B/loop_pie"
[ ! -s "$tmp/out" ] || fail "loop_pie printed something"
finish

#!/bin/sh
# perpi measure on bad input: a clear message, the figures timed so far,
# a non-zero exit where something failed (and the program's own status or
# 128+signal where it failed itself).
. "$top_srcdir/tests/measure/lib.sh"

# expect_err TEXT WHAT: stderr says TEXT
expect_err()
{
	grep -q -- "$1" "$tmp/err" || fail "$2: stderr lacks '$1': $(cat "$tmp/err")"
}

# what cannot be run at all
printf '#!/bin/sh\necho hi\n' >"$tmp/script"
chmod +x "$tmp/script"
measure 127 "$tmp/script"
expect_err "not an ELF file" "a script"
measure 127 "$tmp/missing"
expect_err "No such file" "a missing program"
measure 2 --function nosuch "$C" small 1
expect_err "function nosuch: no function of that name" "an unknown function"
measure 2 --start work "$C" small 1
expect_err "give both" "--start without --stop"
measure 2 --runs 0 "$C" small 1
measure 2 --method fast "$C" small 1
measure 2
expect_err "no program given" "no program"
# a loop whose head is the function's entry: calls and turns look alike
# (found when its code is read, in the started program)
measure 1 --function loop_head "$C" small 1
expect_err "goes back to its first instruction" "a loop head at the entry"

# a function never called: said, its figures 0, exit 1
measure 1 --runs 2 --function work --function tiny "$C" small 3
expect_err "function work: never called in 2 runs" "never called"
expect_calls work 0 "never called"
expect_calls tiny 3 "never called (the other function)"

# a region that starts and never ends
measure 1 --runs 2 "$C" noend
expect_err "started but never ended" "a region never ended"
grep -q "(1 never ended)" "$out" || fail "the unended region is not shown"
# main as the region, left by exit(): said (a function called before is timed)
measure 0 --runs 2 --function work "${C}_nomarkers" exit 3
expect_calls work 3 "exit from main"
measure 1 --runs 2 "${C}_nomarkers" exit 3
expect_err "main: never returned" "main never returns"

# the program crashes, or is killed, after 10 calls: the 10 calls timed
# (read from the buffer it shares with perpi), no further run, 128+signal
measure 139 --runs 3 --function work "$C" crash 10
expect_err "killed by signal 11 (SIGSEGV)" "a crash"
expect_calls work 10 "crash"
grep -q "^# 1 run (fewer than asked)" "$out" || fail "crash: runs after the crash"
measure 137 --runs 3 --function work "$C" killed 10
expect_err "killed by signal 9 (SIGKILL)" "SIGKILL"
expect_calls work 10 "killed"

# the program's own failure status is passed on, the figures kept (a mode
# cases does not know: work N times, exit status 2)
measure 2 --runs 2 --function work "$C" unknown-mode 4
expect_err "exited with status 2" "the program's status"
expect_calls work 4 "the program's status"

# a perpi.data: without figures, or not a trace at all
"$PERPI" record -q -o "$tmp/plain.data" "$C" small 1 >/dev/null 2>&1 ||
	fail "perpi record failed"
"$PERPI" measure -i "$tmp/plain.data" >"$tmp/stdout" 2>"$tmp/err"
[ $? = 1 ] || fail "-i a file without figures: exit status"
expect_err "no native measurements in it" "-i a file without figures"
"$PERPI" measure -i "$tmp/script" >"$tmp/stdout" 2>"$tmp/err"
[ $? = 1 ] || fail "-i a script: exit status"
expect_err "not a perpi trace file" "-i a script"
finish

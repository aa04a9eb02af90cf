#!/bin/sh
# perpi measure counts exactly the calls it should, and the program still
# computes what it computes: the counts are those cases.c makes by
# construction (derived in its header comment), or counted by the
# program itself (recursion).
. "$top_srcdir/tests/measure/lib.sh"

for method in jump breakpoint; do
	# 7 calls of each, under both ways of taking an entry over; the
	# functions check their own results (exit 1 if one is wrong)
	measure 0 --runs 2 --method $method --function rip_first --function tiny \
		--function short_one --function short_two "$C" small 7
	for f in rip_first tiny short_one short_two; do
		expect_calls $f 7 "small ($method)"
	done
	# the region: 3 calls of add_chain between the markers, twice
	measure 0 --runs 2 --method $method "$C" region 3
	expect_calls perpi_start..perpi_stop 2 "region ($method)"
done
# built with -Os, perpi_start and perpi_stop are a 1-byte ret each, side
# by side: no jump fits, their calls are redirected instead (a breakpoint
# at perpi_stop would stop the program inside the region)
objdump -d "${C}_os" | grep -A1 '<perpi_start>:' | grep -q 'ret' ||
	fail "cases_os: perpi_start is not the 1-byte function this test is about"
for method in jump breakpoint; do
	measure 0 --runs 2 --method $method "${C}_os" region 1
	expect_calls perpi_start..perpi_stop 2 "tiny markers ($method)"
done

# short_one is 3 bytes with short_two right after it: no jump fits, a
# breakpoint is used and said so
measure 0 --runs 1 --function short_one "$C" small 2
grep -q "short_one: a breakpoint" "$tmp/err" || fail "no word of short_one's breakpoint"
grep -q "entries taken over by a breakpoint" "$out" || fail "the method used is not stated"

# recursion: every call counted, nested ones included, the result right:
# fib(12) makes 2 fib(13) - 1 = 2 x 233 - 1 = 465 calls (chains.S)
measure 0 --runs 2 --function fib "$C" recurse 12
expect_calls fib 465 "recurse"

# longjmp out of a timed call: 5 of 10 calls return, 5 are left
measure 0 --runs 2 --function jumper --function work "$C" jump 10
expect_calls jumper 5 "jump"
expect_calls work 10 "jump"
grep -q "^jumper .*(5 never returned)" "$out" || fail "jump: the 5 calls left are not told"

# another thread's calls are not timed (20), the main thread's are (10)
measure 0 --runs 2 --function work "$C" threads 10
expect_calls work 10 "threads"

# a forked child's calls (30) are not timed and it runs normally (the
# program exits 1 otherwise); the parent's 2 x 10 are
measure 0 --runs 2 --function work "$C" fork 10
expect_calls work 20 "fork"

# main as the region when the program has no markers: one call
measure 0 --runs 2 "${C}_nomarkers" small 1
expect_calls main 1 "main"
# --start/--stop: from each entry of jumper to the next entry of work
# (jumper calls work first): 10 regions
measure 0 --runs 2 --start jumper --stop work "$C" jump 10
expect_calls jumper..work 10 "start/stop"
finish

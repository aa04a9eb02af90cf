#!/bin/sh
# Where tracing starts and stops: main (PIE, non-PIE, static, static PIE),
# the entry point of a program without main (stripped too), --all, the
# perpi_start/perpi_stop markers, --function, --start/--stop by name and by
# address. Expected I: counted by hand in loop.S, nolibc.S, markers.S.
. "$top_srcdir/tests/tracer/lib.sh"

# The same function, dynamic and static builds: 2003 each (loop.S).
for p in loop_pie loop_nopie loop_static loop_static_pie; do
	run 0 "$B/$p"
	expect_i 2003 "$p (main by default)"
	grep -q '^main  *:: I \[2003\] .*(1 call)$' "$report" || fail "$p: no line 'main :: I [2003]'"
	run 0 --function main "$B/$p"
	expect_i 2003 "$p --function main"
done

# No main: from the entry point; --all is the same for a static program
# without a loader (nolibc.S: 203, exit 7).
run 7 "$B/nolibc"
expect_i 203 "nolibc (entry point)"
run 7 --all "$B/nolibc"
expect_i 203 "nolibc --all"
if command -v strip >/dev/null 2>&1; then
	strip -o "$tmp/nolibc_stripped" "$B/nolibc"
	run 7 "$tmp/nolibc_stripped"
	expect_i 203 "stripped nolibc (entry point)"
fi

# --all on a dynamic program traces the loader first: more than main's
# 2003, and the loader's functions are named after it.
run 0 --all "$B/loop_pie"
got=$(whole_i)
[ "${got:-0}" -gt 2003 ] || fail "--all loop_pie: I = '$got', want more than 2003"
grep -q '@ld-linux-x86-64.so.2 ' "$report" || fail "--all: no function of the loader named"

# --duration on a program perpi started: tracing stops, the program runs
# on untraced to its end and its exit status is perpi's.
run 0 --all --duration 0.3 "$B/loop_pie"

# Markers (markers.S): 103 by default, 102 from work to perpi_stop.
run 0 "$B/markers"
expect_i 103 "markers"
run 0 --start work --stop perpi_stop "$B/markers"
expect_i 102 "--start work --stop perpi_stop"
run 0 --function work "$B/markers"
expect_i 102 "--function work"
grep -q '^work  *:: I \[102\]' "$report" || fail "--function work: no line 'work :: I [102]'"
if command -v objdump >/dev/null 2>&1; then
	# --stop alone starts at main (markers.S): push, call perpi_start,
	# perpi_start's own instructions (counted by objdump, they are the
	# compiler's), call work, work's 102; the call of perpi_stop is not.
	n_start=$(objdump -d --no-show-raw-insn --disassemble=perpi_start "$B/markers" |
		sed -n '/<perpi_start>:/,$p' | grep -cE '^ +[0-9a-f]+:')
	run 0 --stop perpi_stop "$B/markers"
	expect_i $((1 + 1 + n_start + 1 + 102)) "--stop perpi_stop (from main)"
fi
if command -v nm >/dev/null 2>&1; then
	# an address as nm shows it (link-time: perpi adds the PIE load bias)
	addr=0x$(nm "$B/markers" | awk '$3 == "work" { print $1 }')
	run 0 --start "$addr" --stop perpi_stop "$B/markers"
	expect_i 102 "--start $addr --stop perpi_stop"
fi
finish

#!/bin/sh
# perpi measure says when the core ran slower than its best after a run:
# the ALU throughput probe (8 chains of adds) against perpi bench's best on
# this machine, kept in $XDG_CACHE_HOME/perpi/probe-reference. The best is
# set here by hand: 0.0001 cycles per add (no x86-64 core adds 10,000 a
# cycle: every run counts as slowed) and 1000 (no core is that slow: none
# does); without a reference there is nothing to compare with. The window
# probe (sqrtsd chains around 288 nops over around 64, above
# PERPI_WINDOW_SPLIT when a sibling thread split the reorder window) is
# set by hand too: 0.0001 (every ratio is above: every run split, and
# slowed) and 1000 (none is; the throughput cases run with it, so that a
# window the host really split does not count).
. "$top_srcdir/tests/measure/lib.sh"
export XDG_CACHE_HOME="$tmp/cache"
ref="$XDG_CACHE_HOME/perpi/probe-reference"
# perpi bench writes this machine's line (its key names the CPU)
if ! "$PERPI" bench --no-db ADD_GPR64_GPR64 >"$tmp/bench" 2>&1 || [ ! -s "$ref" ]; then
	echo "SKIP: perpi bench cannot time a kernel here: $(tail -1 "$tmp/bench")"
	exit 77
fi
key=$(cut -f1 "$ref" | head -1)
field() # the JSON's probe.$1
{
	sed -n '/"probe"/,/}/s/.*"'"$1"'":\([0-9]*\).*/\1/p' "$out"
}
slowed() # the JSON's probe.slowed_runs
{
	field slowed_runs
}
export PERPI_WINDOW_SPLIT=1000
for best in 0.0001 1000; do
	printf '%s\talu=%s load=0 fp=0 front=0\n' "$key" "$best" >"$ref"
	measure 0 --runs 2 --json --function add_chain "$C" chains 3
	if [ "$best" = 0.0001 ]; then
		[ "$(slowed)" = 2 ] || fail "best $best: slowed_runs $(slowed), want 2"
		grep -q "shared the core" "$tmp/err" || fail "best $best: no warning: $(cat "$tmp/err")"
	else
		[ "$(slowed)" = 0 ] || fail "best $best: slowed_runs $(slowed), want 0"
		! grep -q "shared the core" "$tmp/err" || fail "best $best: warned: $(cat "$tmp/err")"
	fi
done
rm -f "$ref"
measure 0 --runs 2 --json --function add_chain "$C" chains 3
grep -q '"best":null' "$out" || fail "no reference: $(grep -A3 '"probe"' "$out")"
[ "$(slowed)" = 0 ] || fail "no reference: slowed_runs $(slowed)"
printf '%s\talu=1000 load=0 fp=0 front=0\n' "$key" >"$ref"
for split in 0.0001 1000; do
	PERPI_WINDOW_SPLIT=$split measure 0 --runs 2 --json --function add_chain "$C" chains 3
	if [ "$split" = 0.0001 ]; then
		[ "$(field split_runs)" = 2 ] && [ "$(field slowed_runs)" = 2 ] ||
			fail "split $split: split_runs $(field split_runs), slowed_runs $(field slowed_runs), want 2"
		grep -q "window split" "$tmp/err" || fail "split $split: no warning: $(cat "$tmp/err")"
	else
		[ "$(field split_runs)" = 0 ] || fail "split $split: split_runs $(field split_runs), want 0"
		! grep -q "window split" "$tmp/err" || fail "split $split: warned: $(cat "$tmp/err")"
	fi
done
[ $fails -eq 0 ] && echo "PASS: perpi measure's probe" || exit 1

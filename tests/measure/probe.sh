#!/bin/sh
# perpi measure says when the core ran slower than its best after a run:
# the ALU throughput probe (8 chains of adds) against perpi bench's best on
# this machine, kept in $XDG_CACHE_HOME/perpi/probe-reference. The best is
# set here by hand: 0.0001 cycles per add (no x86-64 core adds 10,000 a
# cycle: every run counts as slowed) and 1000 (no core is that slow: none
# does); without a reference there is nothing to compare with.
. "$top_srcdir/tests/measure/lib.sh"
export XDG_CACHE_HOME="$tmp/cache"
ref="$XDG_CACHE_HOME/perpi/probe-reference"
# perpi bench writes this machine's line (its key names the CPU)
if ! "$PERPI" bench --no-db ADD_GPR64_GPR64 >"$tmp/bench" 2>&1 || [ ! -s "$ref" ]; then
	echo "SKIP: perpi bench cannot time a kernel here: $(tail -1 "$tmp/bench")"
	exit 77
fi
key=$(cut -f1 "$ref" | head -1)
slowed() # the JSON's probe.slowed_runs
{
	sed -n '/"probe"/,/}/s/.*"slowed_runs":\([0-9]*\).*/\1/p' "$out"
}
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
[ $fails -eq 0 ] && echo "PASS: perpi measure's probe" || exit 1

#!/bin/sh
# The option table (cmd/options.c): each command's --help lists what it
# takes, its man page documents each of them, each is accepted, an option
# of another command is refused, and the live run gives the figures of
# 'perpi report' on a recording (the second method: the replay).
set -u
: "${PERPI:?}" "${top_builddir:?}" "${top_srcdir:?}"
ex="$top_builddir/examples"
man="$top_srcdir/man"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
pin=""
command -v taskset >/dev/null && pin="taskset -c 0"
bad() { echo "FAIL: $*"; fail=1; }

# The options of a command's --help: "  -o, --output FILE  ..." -> --output, -o
help_options() {
	"$PERPI" "$@" --help | sed -n 's/^  \(-[-a-z]*\)\(, \(--[-a-z]*\)\)\{0,1\}[ =[].*/\1 \3/p; s/^  \(--[-a-z]*\)$/\1/p' |
		tr ' ' '\n' | grep -v '^$' | sort
}

# A value that each option accepts, on the recording s.data.
printf 'ADDSD_XMM_XMM 4\n' >"$tmp/lat"
value() {
	case $1 in
	-o | --output) echo "$tmp/out.x" ;;
	-i | --input) echo "$tmp/s.data" ;;
	--function) echo Sum ;;
	--call) echo 1 ;;
	--steps) echo 1:20 ;;
	--only) echo fp ;;
	--window | --width | --bins | --max-nodes) echo 4 ;;
	--cpu) echo 0 ;;
	--latency) echo "$tmp/lat" ;;
	--csv | --svg) echo "$tmp/h.$1" ;;
	--start) echo Sum ;;
	--stop) echo DDSum ;;
	--duration) echo 100 ;;
	--model) echo "$top_srcdir/docs/lift-zen4-hand.json" ;;
	esac
}

$pin "$PERPI" record -q -o "$tmp/s.data" "$ex/summation" 30 >/dev/null || bad "record"

# man page of each command, and the options it takes.
for cmd in run record report hist graph critical tui; do
	case $cmd in
	run) page=$man/perpi.1 ;;
	record | tui) page=$man/perpi-$cmd.1 ;;
	*) page=$man/perpi-report.1 ;;
	esac
	opts=$(help_options $cmd)
	[ -n "$opts" ] || bad "$cmd --help lists no option"
	twice=$(printf '%s\n' "$opts" | uniq -d)
	[ -z "$twice" ] || bad "$cmd --help lists $twice twice (two table entries for one command)"
	for o in $opts; do
		# roff writes - as \-
		grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$page" ||
			bad "$cmd: $o is in --help, not in $(basename "$page")"
		case $o in -h | --help | -p | --pid | --version) continue ;; esac
		v=$(value "$o")
		case $cmd in
		run | record) set -- $o ${v:+"$v"} "$ex/summation" 30 ;;
		tui) set -- $o ${v:+"$v"} "$tmp/s.data" ;;
		graph) set -- -o "$tmp/g.dot" -i "$tmp/s.data" $o ${v:+"$v"} ;;
		*) set -- -i "$tmp/s.data" $o ${v:+"$v"} ;;
		esac
		case "$cmd $o" in # the combinations each needs
		"run --all" | "record --all") # from the first instruction: a program with no loader
			set -- --all "$top_builddir/tests/tracer/nolibc" ;;
		*" --call") set -- "$@" --function Sum ;;
		esac
		if [ "$cmd" = tui ]; then
			case $o in
			--function | --start | --stop | --duration | --cpu)
				set -- $o ${v:+"$v"} -- "$ex/summation" 30 ;;
			--all) set -- --all -- "$top_builddir/tests/tracer/nolibc" ;;
			esac
		fi
		(cd "$tmp" && $pin "$PERPI" $cmd "$@" </dev/null >"$tmp/o" 2>"$tmp/e")
		if grep -q 'unknown option\|needs a value\|takes no value\|unexpected argument\|not a number' "$tmp/e"; then
			bad "$cmd $*: refused: $(cat "$tmp/e")"
		fi
	done
done

# What a command does not take is refused (status 2), saying where it belongs.
refused() { # refused MESSAGE ARGS...
	msg=$1
	shift
	(cd "$tmp" && "$PERPI" "$@" >"$tmp/o" 2>"$tmp/e")
	rc=$?
	[ $rc = 2 ] && grep -qF -- "$msg" "$tmp/e" || bad "perpi $*: exit $rc, $(cat "$tmp/e")"
}
refused "an option of the analyses of a recorded run" record --only fp "$ex/summation" 30
refused "an option of the analyses of a recorded run" --call 1 "$ex/summation" 30
refused "--frobnicate: unknown option" hist --frobnicate
refused "--json takes no value" report --json=1
refused "--window needs a value" report --window
refused "unexpected argument" critical extra
refused "--start traces a program: give it after --" tui --start main s.data

# Live and replayed: the same text (the replay without its # lines) and the
# same JSON figures, for each analysis option.
$pin "$PERPI" record -q -o "$tmp/h.data" "$ex/horner" 12 >/dev/null || bad "record horner"
for opts in "--only fp" "--window 4 --width 2" "--steps 5:30" "--stack-engine --only load,fp" \
	"--latency $tmp/lat"; do
	$pin "$PERPI" $opts -o "$tmp/live" "$ex/horner" 12 >/dev/null 2>"$tmp/e" || bad "live $opts"
	"$PERPI" report -i "$tmp/h.data" $opts -o "$tmp/replay.full" 2>/dev/null || bad "report $opts"
	grep -v '^#' "$tmp/replay.full" >"$tmp/replay"
	cmp -s "$tmp/live" "$tmp/replay" || { bad "$opts: live differs from replay"; diff "$tmp/live" "$tmp/replay"; }
done
figures='import json, sys
d = json.load(open(sys.argv[1]))
print(d["totals"], d["options"])
for f in d["functions"]: print(f["name"], f["calls"], f["instructions"], f["steps"])'
$pin "$PERPI" --json --only fp -o "$tmp/live.json" "$ex/horner" 12 >/dev/null
"$PERPI" report --json --only fp -i "$tmp/h.data" -o "$tmp/replay.json" 2>/dev/null
python3 -c "$figures" "$tmp/live.json" >"$tmp/live.fig" || bad "live --json is no JSON"
python3 -c "$figures" "$tmp/replay.json" >"$tmp/replay.fig" || bad "replayed --json is no JSON"
cmp -s "$tmp/live.fig" "$tmp/replay.fig" || { bad "--json: live differs"; diff "$tmp/live.fig" "$tmp/replay.fig"; }
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["trace"]["file"] is not None)' \
	"$tmp/live.json" || bad "live --json: trace.file is not null"

# The PerPI paper's Table 2, the FP-only ILP of the live run, derived by
# hand from examples/summation.c and eft.h for n = 1000 (only the
# floating-point instructions count; loads, moves and loop control are free):
# - Sum: s += x[i], one dependent add per value: I = C = 1000, ILP 1.00.
# - Sum2: two_sum (6 flops) and sigma += q (1) for i = 1..999, then p + sigma:
#   I = 7 * 999 + 1 = 6994. p's chain takes one step per value (x_i at step
#   i); q_i = (p - (x - z)) + (x_i - z) is ready 4 steps later, and
#   sigma_i = sigma_(i-1) + q_i at i + 5: sigma_999 at 1004, C = 1005, ILP 6.96.
# - DDSum: two_sum (6), e += lo (1), fast_two_sum (3) per value, then hi + lo:
#   I = 10 * 1000 + 1 = 10001. hi goes x = hi + x_i (1), z (2), x - z (3),
#   hi - (x - z) (4), e (5), e + lo (6), hi' = x + e (7): 7 steps a value;
#   lo' = e - (hi' - x) 2 steps later: hi + lo at 7 * 1000 + 3, C = 7003, ILP 1.43.
$pin "$PERPI" --only fp -o "$tmp/table2" "$ex/summation" 1000 >/dev/null || bad "--only fp live run"
for want in 'Sum       :: I [1000]  :: C [1000] :: ILP [1.00] (1 call)' \
	'Sum2      :: I [6994]  :: C [1005] :: ILP [6.96] (1 call)' \
	'DDSum     :: I [10001] :: C [7003] :: ILP [1.43] (1 call)'; do
	grep -qxF -- "$want" "$tmp/table2" || { bad "Table 2: no line '$want'"; cat "$tmp/table2"; }
done

[ "$fail" = 0 ] && echo "PASS: the option table: help, man pages, live = replay, Table 2"
exit "$fail"

#!/bin/sh
# Ctrl-C during `perpi palmed build`: the build stops after the batch it is
# measuring, says how many benchmarks it made and where they are, exits
# 128 + SIGINT = 130 without writing a model, and the same command then
# resumes from the database (its first kernels come from there).
# Skipped when this machine cannot time a kernel now.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! $PERPI bench --no-db ADD_GPR64_GPR64 >"$tmp/probe" 2>&1; then
	echo "SKIP: this machine cannot time a kernel now: $(tail -1 "$tmp/probe")"
	exit 77
fi
printf '%s\n' ADD_GPR64_GPR64 IMUL_GPR64_GPR64 MOV_GPR64_M64 MOV_M64_GPR64 \
	ADDSD_XMM_XMM MULSD_XMM_XMM PADDD_XMM_XMM SHL_GPR64_IMM8 >"$tmp/forms"
fail=0
$PERPI palmed build --forms "$tmp/forms" --db "$tmp/db" -q -o "$tmp/m.json" 2>"$tmp/err" &
pid=$!
# Wait for the first measurements (the singles) to reach the database:
# a row naming one of the forms (the database also holds the probes').
for i in $(seq 1 600); do
	$PERPI db --db "$tmp/db" export --csv 2>/dev/null | grep -q '_GPR64\|_XMM' && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
kill -INT $pid
t0=$(date +%s.%N)
wait $pid
status=$?
# The runner checks the stop flag between repetitions (a tenth of a
# second): the build must not wait for its slice or retries to end. The
# bound is loose (a loaded machine); what it catches is a build that runs on.
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
echo "stopped $took s after SIGINT"
awk -v t="$took" 'BEGIN { exit !(t < 10) }' || { echo "FAIL: $took s to stop after SIGINT"; fail=1; }
if [ $status -eq 0 ]; then
	echo "SKIP: the build finished before the interrupt (a very fast machine)"
	exit 77
fi
[ $status -eq 130 ] || { echo "FAIL: exit status $status, not 130"; fail=1; }
grep -q '^perpi: palmed build: interrupted after [0-9]* benchmarks; the measurements are in .*db: the same command resumes' "$tmp/err" ||
	{ echo "FAIL: no interruption message"; cat "$tmp/err"; fail=1; }
[ ! -e "$tmp/m.json" ] || { echo "FAIL: a model was written"; fail=1; }
made=$(sed -n 's/.*interrupted after \([0-9]*\) benchmarks.*/\1/p' "$tmp/err")
# Resume: a small budget; the kernels measured before come from the database.
timeout 300 $PERPI palmed build --forms "$tmp/forms" --db "$tmp/db" -q --budget 200 --training 50 \
	-o "$tmp/m.json" >"$tmp/out" 2>&1
rc=$?
if [ $rc -eq 124 ]; then # a loaded machine: slow, which says nothing of resuming
	echo "SKIP: the resumed build took over 300 s (a loaded machine): $(tail -1 "$tmp/out")"
	exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: resumed build (exit $rc)"; cat "$tmp/out"; fail=1; }
found=$(sed -n 's/.*(\([0-9]*\) found in the database).*/\1/p' "$tmp/out")
# The measurements stored before the stop are what resuming is about (the
# message's count is the inference's: the batch's kernels stored while the
# inference had not taken them yet are not in it, and may make it 0).
if [ "${found:-0}" -lt 1 ]; then
	echo "FAIL: nothing resumed (interrupted after ${made:-?}, found ${found:-0})"; cat "$tmp/out"; fail=1
fi
[ $fail = 0 ] && echo "ok interrupted after $made benchmarks, exit 130, resumed with $found of them"

# Ctrl-C during `perpi palmed eval`: the report covers the kernels measured
# so far (its kernel count is that number), then exit 130.
$PERPI palmed eval -m "$tmp/m.json" --db "$tmp/db" -n 2000 --no-mca -o "$tmp/eval" \
	>"$tmp/eval.out" 2>"$tmp/eval.err" &
pid=$!
sleep 2
kill -INT $pid
wait $pid
status=$?
if [ $status -ne 0 ]; then
	[ $status -eq 130 ] || { echo "FAIL: eval exit status $status, not 130"; cat "$tmp/eval.err"; fail=1; }
	n=$(sed -n 's/.*interrupted: \([0-9]*\) of the 2000 random kernels measured.*/\1/p' "$tmp/eval.err")
	rows=$(awk '$1 == "palmed" && $2 == "all" { print $3 }' "$tmp/eval.out")
	lines=$(($(wc -l <"$tmp/eval/eval.csv") - 1))
	# the table counts the measured kernels the runner accepted: at most n,
	# and exactly the CSV's rows
	if [ -n "$n" ] && [ -n "$rows" ] && [ "$rows" -le "$n" ] && [ "$rows" -eq "$lines" ]; then
		echo "ok eval interrupted after $n of 2000 kernels: reported on $rows, exit 130"
	else
		echo "FAIL: interrupted eval (n=$n, table $rows, csv $lines)"; cat "$tmp/eval.out" "$tmp/eval.err"; fail=1
	fi
fi
exit $fail

#!/bin/sh
# A kernel the generator flags is refused by `perpi palmed build` without
# being run: SHA1MSG1 (legacy SSE, no VEX form) beside VADDPD ymm would
# mix the encodings (state transitions on an Intel core: such a loop runs
# for seconds there). The build of the two forms measures each alone, and
# their pairs are refused for the mix: the database holds a refusal that
# names it for such a kernel and no throughput row of one (before, each
# was run, stored flagged, then refused). `perpi bench` still runs one on
# request and prints the flag beside its figure.
# Skipped when this machine cannot time a kernel now.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! $PERPI bench --no-db ADD_GPR64_GPR64 >"$tmp/probe" 2>&1; then
	echo "SKIP: this machine cannot time a kernel now: $(tail -1 "$tmp/probe")"
	exit 77
fi
if ! grep -q avx2 /proc/cpuinfo || ! grep -q sha_ni /proc/cpuinfo; then
	echo "SKIP: this CPU lacks AVX2 or SHA"
	exit 77
fi
printf '%s\n' SHA1MSG1_XMM_XMM VADDPD_YMM_YMM_YMM >"$tmp/forms"
fail=0
$PERPI palmed build --forms "$tmp/forms" --training 20 --budget 60 --db "$tmp/db" -q \
	-o "$tmp/m.json" >"$tmp/out" 2>"$tmp/err"
status=$?
if [ $status -ne 0 ] && grep -q 'undisturbed by the host' "$tmp/err"; then
	echo "SKIP: the host is busy: $(tail -1 "$tmp/err")"
	exit 77
fi
[ $status -eq 0 ] || { echo "FAIL: build: $(tail -1 "$tmp/err")"; fail=1; }
$PERPI db --db "$tmp/db" export --csv >"$tmp/csv"
mixed='SHA1MSG1_XMM_XMM[^,]* VADDPD_YMM_YMM_YMM'
refused=$(grep "$mixed" "$tmp/csv" | grep -c ',refused,.*legacy-SSE SHA1MSG1_XMM_XMM beside VEX')
ran=$(grep "$mixed" "$tmp/csv" | grep -c ',throughput,')
echo "mixed kernels: $refused refused for the mix, $ran measured"
[ "$refused" -ge 1 ] || { echo "FAIL: no mixed kernel refused for the mix"; fail=1; }
[ "$ran" = 0 ] || { echo "FAIL: $ran flagged kernels were run and stored"; fail=1; }
grep -q ',throughput,.*' "$tmp/csv" && grep -q '^[^"]*,SHA1MSG1_XMM_XMM,throughput,' "$tmp/csv" ||
	{ echo "FAIL: SHA1MSG1_XMM_XMM alone was not measured"; fail=1; }
# perpi bench on request: run, its figure flagged (on an Intel core the
# mixed loop may keep every repetition from reading calm: then it says so)
$PERPI bench --no-db 'SHA1MSG1_XMM_XMM VADDPD_YMM_YMM_YMM' >"$tmp/bench" 2>&1
if grep -q 'undisturbed by the host' "$tmp/bench"; then
	echo "perpi bench ran the mix, no repetition calm: $(tail -1 "$tmp/bench")"
elif ! grep -q '^[0-9].*\[flagged: [^]]*legacy-SSE' "$tmp/bench"; then
	echo "FAIL: perpi bench gave no flagged figure: $(cat "$tmp/bench")"
	fail=1
fi
[ $fail = 0 ] && echo "ok: flagged kernels refused unrun by the build, run by perpi bench"
exit $fail

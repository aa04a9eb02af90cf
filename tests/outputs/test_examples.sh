#!/bin/sh
# The examples check their own numerical results against exactly known
# values (see examples/*.c): the compensated algorithms must be accurate on
# data where the plain ones are not. Here: they run, pass their checks, and
# the data are really ill-conditioned (the plain algorithm's error is huge).
set -u
ex="$top_builddir/examples"
out=$("$ex/summation") || { echo "FAIL: summation's own check failed"; echo "$out"; exit 1; }
echo "$out"
# relative error of Sum >= 1: the exact sum (< 9 * 1000) is lost in the 2^59 roundings
echo "$out" | awk '/^Sum /{ if ($NF + 0 < 1) { print "FAIL: Sum is accurate: data not ill-conditioned"; exit 1 } }' || exit 1
out=$("$ex/horner") || { echo "FAIL: horner's own check failed"; echo "$out"; exit 1; }
echo "$out"
echo "$out" | awk '/^Horner /{ if ($NF + 0 < 1) { print "FAIL: Horner is accurate: not ill-conditioned"; exit 1 } }' || exit 1
"$ex/horner" 0 2>/dev/null && { echo "FAIL: degree 0 accepted"; exit 1; }
echo "PASS: examples"

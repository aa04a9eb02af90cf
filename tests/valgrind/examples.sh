#!/bin/sh
# The bundled examples (the PerPI paper's summation and polynomial
# evaluation algorithms) under both backends: the same output, the same
# report, line by line (every function's I, C and ILP, the whole run's).
. "$top_srcdir/tests/valgrind/lib.sh"
for ex in summation horner; do
	for b in ptrace valgrind; do
		"$PERPI" --backend=$b -o "$tmp/$b.report" "$top_builddir/examples/$ex" \
			>"$tmp/$b.out" 2>"$tmp/$b.err" || fail "$ex --backend=$b: $(cat "$tmp/$b.err")"
	done
	cmp -s "$tmp/ptrace.out" "$tmp/valgrind.out" || fail "$ex: another output under valgrind"
	grep -q '^whole run *:: I \[[1-9]' "$tmp/ptrace.report" || fail "$ex: no figures"
	diff "$tmp/ptrace.report" "$tmp/valgrind.report" >"$tmp/diff" ||
		fail "$ex: the reports differ: $(cat "$tmp/diff")"
done
finish

#!/bin/sh
# Every fuzz target, built without libFuzzer (fuzz/replay.c), on its seeds
# (fuzz/corpus/NAME) and on every input a campaign found a defect with
# (fuzz/regress/NAME): no crash, no sanitizer report (--enable-sanitizers).
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
fail=0
for dir in "$top_srcdir"/fuzz/corpus/*/; do
	name=$(basename "$dir")
	bin="$top_builddir/fuzz/replay_$name"
	[ -x "$bin" ] || { echo "FAIL: $bin not built"; fail=1; continue; }
	set -- "$dir"*
	[ -d "$top_srcdir/fuzz/regress/$name" ] && set -- "$@" "$top_srcdir/fuzz/regress/$name"/*
	if "$bin" "$@" >"$top_builddir/fuzz/replay_$name.out" 2>&1; then
		echo "ok $name: $# inputs"
	else
		echo "FAIL: $name: $(tail -n 5 "$top_builddir/fuzz/replay_$name.out")"
		fail=1
	fi
done
exit $fail

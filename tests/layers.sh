#!/bin/sh
# The layers of docs/HACKING.md, checked two ways: what each folder's files
# #include, and which folders define the functions each folder's objects
# call (nm over the built objects). A folder uses only the ones below it:
#
#   perpi.c -> cmd/ -> tui/ -> palmed/ -> ilp/ -> tracer/ -> common/
#
# with these limits: ilp/ and tui/ see only tracer/'s event type (ilp/
# knows nothing of ptrace, tui/ starts no tracer); tui/ does not see
# tracer/ otherwise.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# may FOLDER: the folders whose headers FOLDER may include
may() {
	case $1 in
	common) echo "common" ;;
	tracer) echo "common tracer" ;;
	ilp) echo "common tracer/event.h ilp" ;;
	palmed) echo "common tracer ilp palmed" ;;
	tui) echo "common tracer/event.h ilp palmed tui" ;;
	cmd) echo "common tracer ilp palmed tui cmd" ;;
	.) echo "cmd" ;;
	esac
}

cd "$top_srcdir" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for dir in common tracer ilp palmed tui cmd .; do echo "$dir $(may "$dir")"; done >"$tmp/may"
# "FOLDER FILE HEADER" for every #include "folder/header.h"
grep -H '^#include "[a-z_]*/' common/*.[ch] tracer/*.[ch] ilp/*.[ch] palmed/*.[ch] tui/*.[ch] \
	cmd/*.[ch] ./*.c | sed 's|^\(\([^/]*\)/[^:]*\):#include "\([^"]*\)".*|\2 \1 \3|' >"$tmp/includes"
checked=$(wc -l <"$tmp/includes")
[ "$checked" -gt 100 ] || bad "only $checked includes seen: the check reads nothing"
awk 'FILENAME ~ /may$/ { for (i = 2; i <= NF; i++) ok[$1, $i] = 1; list[$1] = $0; next }
	{ folder = $3; sub("/.*", "", folder)
	  if (!ok[$1, folder] && !ok[$1, $3]) {
		print "FAIL: " $2 " includes " $3 " (may: " list[$1] ")"; bad = 1 } }
	END { exit bad }' "$tmp/may" "$tmp/includes" || fail=1

# The same with the symbols: who defines what each object calls (the
# objects of the sources there are: a stale one of a moved file is not ours).
command -v nm >/dev/null || { echo "SKIP: no nm for the symbol check (includes: $checked checked)"; exit $fail; }
cd "$top_builddir" || exit 1
objects=$(cd "$top_srcdir" && ls common/*.c tracer/*.c ilp/*.c palmed/*.c tui/*.c cmd/*.c |
	sed 's/\.c$/.o/' | while read -r o; do [ -f "$top_builddir/$o" ] && echo "$o"; done)
[ -n "$objects" ] || { echo "SKIP: the objects are not built (includes: $checked checked)"; exit $fail; }
# "D SYMBOL FOLDER" for what each folder defines, "U SYMBOL FOLDER OBJECT" for what it calls
{
	nm -A --defined-only -g $objects | awk 'NF == 3 { split($1, p, "/"); print "D", $3, p[1] }'
	nm -A -u $objects | awk '{ o = $1; sub(":$", "", o); split(o, p, "/"); print "U", $NF, p[1], o }'
} >"$tmp/syms"
awk 'FILENAME ~ /may$/ { for (i = 2; i <= NF; i++) ok[$1, $i] = 1; next }
	$1 == "D" { def[$2] = $3; next }
	$1 == "U" && ($2 in def) && def[$2] != $3 && !ok[$3, def[$2]] {
		print "FAIL: " $4 " calls " $2 " of " def[$2] "/"; bad = 1 }
	END { exit bad }' "$tmp/may" "$tmp/syms" || fail=1
[ "$fail" = 0 ] && echo "PASS: layers ($checked includes, and the objects' symbols)"
exit "$fail"

#!/bin/sh
# The measurement database:
# - a second run of the same kernels hits the cache: same figures, marked cached;
# - kill -9 in the middle of a campaign, then the same campaign again: every
#   measurement finished before the kill is reused unchanged, the rest is
#   measured, and each kernel is stored exactly once;
# - a corrupt file and a foreign SQLite database are refused with a message;
# - a database of another machine's measurements (its machine row changed
#   to a family 99 model 17, which no CPU is: this runs on family 25 too)
#   is said so when opened, none of its
#   measurements is used, and they stay apart;
# - export then import (SQL and CSV) into an empty database gives the same
#   rows, and importing twice duplicates nothing;
# - a kernel whose generated code changed at a later generator version is
#   keyed by it, the others by the old one.
set -u
PERPI=${PERPI:-./perpi}
command -v as >/dev/null || { echo "SKIP: GNU as is not installed"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: the sqlite3 shell is needed to inspect the database"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read JSON"; exit 77; }
fail=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
db=$t/m.db
# A measurement refused because the host kept disturbing it says nothing of
# the database: skip rather than fail.
busy_skip() {
	grep -q 'undisturbed by the host' "$t/err" || return 0
	echo "SKIP: the host is too busy to measure: $(head -1 "$t/err")"
	exit 77
}

# cache
"$PERPI" bench --db "$db" --json ADD_GPR64_GPR64 'IMUL_GPR64_GPR64 MOV_GPR64_M64^2' >"$t/a.json" 2>"$t/err" || {
	grep -q 'undisturbed by the host' "$t/err" && { echo "SKIP: the host is too busy to measure: $(head -1 "$t/err")"; exit 77; }
	echo "FAIL: first run"; exit 1; }
"$PERPI" bench --db "$db" --json ADD_GPR64_GPR64 'IMUL_GPR64_GPR64 MOV_GPR64_M64^2' >"$t/b.json" || { echo "FAIL: second run"; exit 1; }
python3 - "$t/a.json" "$t/b.json" <<'PY' || fail=1
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ok = all(not x["cached"] for x in a) and all(y["cached"] for y in b) and \
     all(x["cycles"] == y["cycles"] and x["samples"] == y["samples"] for x, y in zip(a, b))
print("cache:", "hit, same figures" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
"$PERPI" bench --db "$db" --json --fresh ADD_GPR64_GPR64 >"$t/f.json" 2>"$t/err" || busy_skip
grep -q '"cached":false' "$t/f.json" || { echo "FAIL: --fresh used the cache"; fail=1; }
[ "$(sqlite3 "$db" 'select count(*) from measurement')" = 2 ] || { echo "FAIL: --fresh duplicated a row"; fail=1; }

# kill -9 mid-campaign, then resume. 28 distinct kernels, each slow enough
# (5M instructions per repetition) that the campaign takes a second or more
# (1M: 0.22 s on a quiet Zen 5, and the kill came after the last kernel).
# A kernel the busy host disturbs for its whole budget fails (not stored);
# the checks allow for those.
forms="ADD_GPR64_GPR64 SUB_GPR64_GPR64 XOR_GPR64_GPR64 AND_GPR64_GPR64 OR_GPR64_GPR64 IMUL_GPR64_GPR64 MOV_GPR64_M64 LEA_GPR64_MEM"
for a in $forms; do for b in $forms; do [ "$a" \< "$b" ] && echo "$a $b"; done; done | head -40 >"$t/campaign"
n=$(wc -l <"$t/campaign")
cdb=$t/c.db
"$PERPI" bench --db "$cdb" --total 5000000 --max-seconds 0.5 -f "$t/campaign" >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 600 ]; do
	c=$(sqlite3 "$cdb" 'select count(*) from measurement' 2>/dev/null || echo 0)
	[ "${c:-0}" -ge 3 ] && break
	sleep 0.02; i=$((i + 1))
done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
before=$(sqlite3 "$cdb" 'select count(*) from measurement')
sqlite3 "$cdb" 'select k.spec, m.cycles, m.samples from measurement m join kernel k on k.id = m.kernel_id order by k.spec' >"$t/before"
echo "killed with $before of $n kernels stored"
[ "$before" -ge 3 ] && [ "$before" -lt "$n" ] || { echo "FAIL: the kill did not land mid-campaign ($before of $n)"; fail=1; }
"$PERPI" bench --db "$cdb" --total 5000000 --max-seconds 0.5 -f "$t/campaign" >"$t/resume" 2>"$t/resume.err"
disturbed=$(grep -c 'undisturbed by the host' "$t/resume.err")
grep -v 'undisturbed by the host' "$t/resume.err" | grep . && { echo "FAIL: resume"; fail=1; }
cached=$(grep -c '(cached)' "$t/resume")
rows=$(sqlite3 "$cdb" 'select count(*) from measurement')
distinct=$(sqlite3 "$cdb" 'select count(distinct kernel_id) from measurement')
sqlite3 "$cdb" 'select k.spec, m.cycles, m.samples from measurement m join kernel k on k.id = m.kernel_id order by k.spec' >"$t/after"
echo "resumed: $cached cached, $rows rows, $distinct distinct kernels, $disturbed failed (host too busy)"
[ "$cached" = "$before" ] || { echo "FAIL: $cached kernels reused, $before were stored"; fail=1; }
[ "$rows" = $((n - disturbed)) ] && [ "$distinct" = "$rows" ] || { echo "FAIL: $rows rows for $n kernels"; fail=1; }
grep -Fxf "$t/before" "$t/after" | cmp -s - "$t/before" || { echo "FAIL: stored measurements changed on resume"; fail=1; }

# another machine's database: kept apart, with a note
odb=$t/other.db
cp "$db" "$odb"
sqlite3 "$odb" 'pragma wal_checkpoint(TRUNCATE)' >/dev/null
sqlite3 "$odb" "update machine set family = 99, model = 17"
"$PERPI" bench --db "$odb" --json ADD_GPR64_GPR64 >"$t/o.json" 2>"$t/err" || busy_skip
grep -q '^perpi: note: database .* holds 2 measurements of another machine, .* family 99 model 17.*kept apart' "$t/err" ||
	{ echo "FAIL: no note on another machine's database: $(cat "$t/err")"; fail=1; }
grep -q '"cached":false' "$t/o.json" || { echo "FAIL: another machine's measurement used"; fail=1; }
[ "$(sqlite3 "$odb" 'select count(*) from measurement m join machine ma on ma.id = m.machine_id where ma.family = 99')" = 2 ] ||
	{ echo "FAIL: the other machine's measurements were touched"; fail=1; }
"$PERPI" bench --db "$odb" ADD_GPR64_GPR64 >/dev/null 2>"$t/err" || busy_skip
grep -q 'note' "$t/err" && { echo "FAIL: note repeated once this machine has measurements"; fail=1; }

# corrupt and foreign files
head -c 8192 /dev/urandom >"$t/corrupt.db"
"$PERPI" bench --db "$t/corrupt.db" ADD_GPR64_GPR64 >/dev/null 2>"$t/err"; rc=$?
{ [ $rc -ne 0 ] && grep -q '^perpi: bench: database .*corrupt' "$t/err"; } || { echo "FAIL: corrupt db: $rc $(cat "$t/err")"; fail=1; }
sqlite3 "$t/foreign.db" 'create table t(x); insert into t values(1)'
"$PERPI" bench --db "$t/foreign.db" ADD_GPR64_GPR64 >/dev/null 2>"$t/err"; rc=$?
{ [ $rc -ne 0 ] && grep -q 'not a perpi measurement database' "$t/err"; } || { echo "FAIL: foreign db: $rc $(cat "$t/err")"; fail=1; }
[ "$(sqlite3 "$t/foreign.db" 'select count(*) from sqlite_master')" = 1 ] || { echo "FAIL: foreign db touched"; fail=1; }

# export / import
for fmt in sql csv; do
	"$PERPI" db --db "$cdb" export --$fmt "$t/dump.$fmt" || { echo "FAIL: export $fmt"; fail=1; }
	"$PERPI" db --db "$t/new-$fmt.db" import --$fmt "$t/dump.$fmt" || { echo "FAIL: import $fmt"; fail=1; }
	"$PERPI" db --db "$t/new-$fmt.db" import --$fmt "$t/dump.$fmt" || { echo "FAIL: second import $fmt"; fail=1; }
	q='select ma.vendor, ma.model, k.spec, m.kind, m.params, m.timing, m.cycles, m.samples, m.clean, m.date from measurement m join kernel k on k.id = m.kernel_id join machine ma on ma.id = m.machine_id order by k.spec'
	sqlite3 "$cdb" "$q" >"$t/orig.rows"; sqlite3 "$t/new-$fmt.db" "$q" >"$t/new.rows"
	cmp -s "$t/orig.rows" "$t/new.rows" || { echo "FAIL: $fmt round trip differs"; diff "$t/orig.rows" "$t/new.rows" | cut -c1-200; fail=1; }
done
# a perpi database whose b-tree pages were overwritten: refused too
sqlite3 "$cdb" 'pragma wal_checkpoint(TRUNCATE)' >/dev/null
cp "$cdb" "$t/broken.db"
python3 -c "
import sys
f = open(sys.argv[1], 'r+b')
for page in (1, 2, 3, 4):
    f.seek(4096 * page); f.write(b'\x0d' + b'\xff' * 7)
" "$t/broken.db"
"$PERPI" bench --db "$t/broken.db" ADD_GPR64_GPR64 >/dev/null 2>"$t/err"; rc=$?
{ [ $rc -ne 0 ] && grep -q '^perpi: bench: database .*: corrupt (' "$t/err"; } || { echo "FAIL: damaged db: $rc $(cat "$t/err")"; fail=1; }

printf 'vendor,nonsense\n' >"$t/bad.csv"
"$PERPI" db --db "$t/x.db" import "$t/bad.csv" 2>"$t/err"; rc=$?
{ [ $rc -ne 0 ] && grep -q '^perpi: db import: ' "$t/err"; } || { echo "FAIL: bad CSV accepted"; fail=1; }
printf -- '-- perpi measurement database export, format 1\nDROP TABLE kernel;\n' >"$t/evil.sql"
"$PERPI" db --db "$cdb" import "$t/evil.sql" 2>/dev/null && { echo "FAIL: an import dropped a table"; fail=1; }
[ "$(sqlite3 "$cdb" 'select count(*) from kernel')" -ge "$rows" ] || { echo "FAIL: kernel table damaged"; fail=1; }
# The generator's version by kernel: a kernel whose code changed at
# version 9 (pcmpestrm writes xmm0 without naming it, now out of the
# pools) is stored under gen=9, the others stay under gen=8; the gen=8
# measurement of the old code (a database from before) is not used.
vdb=$t/v.db
"$PERPI" bench --db "$vdb" ADD_GPR64_GPR64 PCMPESTRM_XMM_XMM_IMM8 >/dev/null 2>"$t/err" || busy_skip
keys=$(sqlite3 "$vdb" "select k.spec || ' ' || substr(m.params, 1, 5) from measurement m join kernel k on k.id = m.kernel_id order by k.spec" | tr '\n' ,)
[ "$keys" = "ADD_GPR64_GPR64 gen=8,PCMPESTRM_XMM_XMM_IMM8 gen=9," ] || { echo "FAIL: generator versions: $keys"; fail=1; }
sqlite3 "$vdb" "update measurement set params = replace(params, 'gen=9', 'gen=8'), cycles = 7 where params like 'gen=9 %'"
"$PERPI" bench --db "$vdb" --json PCMPESTRM_XMM_XMM_IMM8 >"$t/v.json" 2>"$t/err" || busy_skip
python3 -c "import json,sys; x=json.load(open(sys.argv[1]))[0]; sys.exit(x['cached'] or x['cycles'] == 7)" "$t/v.json" || { echo "FAIL: the old code's measurement was used"; fail=1; }
echo "generator versions: $keys the old code's measurement left"

# A new database opened by several perpi processes at once (a build and
# 'perpi db export' beside it): each sees it whole, none refuses it as
# foreign or half created (seen 2 times in 30 rounds before its creation
# was one transaction).
for r in $(seq 1 30); do
	rm -f "$t/race.db" "$t/race.db-wal" "$t/race.db-shm"
	for j in 1 2 3 4; do "$PERPI" db --db "$t/race.db" export --csv >/dev/null 2>>"$t/race.err" & done
	wait
done
[ -s "$t/race.err" ] && { echo "FAIL: concurrent opening of a new database: $(sort -u "$t/race.err" | head -2)"; fail=1; }

exit $fail

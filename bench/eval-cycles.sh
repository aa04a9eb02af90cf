#!/bin/sh
# The whole evaluation of the cycle prediction (issue 11), unattended, on a
# quiet machine (docs/BENCHMARKS.md, "Cycle prediction"; README's Table 1):
#   sh bench/eval-cycles.sh [OUTDIR] [BUILDDIR]     (from the source tree,
#                                                   after make; OUTDIR
#                                                   default /tmp/perpi-eval-cycles)
# 1. builds every kernel of bench/kernels/ at -O2 and -O3 -march=native;
# 2. records each (perpi record --function kernel, 3 calls);
# 3. the Palmed model of the forms they execute (perpi palmed build --from
#    every recording; PERPI_MODEL=FILE uses that model instead), and the
#    core file (perpi core --from every recording: probes and latencies);
#    both in OUTDIR, the user's own files are not touched;
# 4. perpi eval cycles over all of them: native cycles, perpi's prediction,
#    the lifted resource bound and lifted llvm-mca-19 (PERPI_NO_MCA=1 leaves
#    it out; PERPI_KERNELS="a b" evaluates those kernels only); RMS error, Kendall's tau, coverage; eval-cycles.csv and the
#    SVG scatter plots in OUTDIR/eval;
# 5. writes OUTDIR/benchmarks-rows.md (the table and metrics for
#    docs/BENCHMARKS.md) and OUTDIR/table1.md (the README's Table 1: the
#    PerPI paper's Horner, CompHorner and DDHorner, -O2: floating-point
#    instructions and their ILP per call from perpi report, predicted and
#    native cycles from the evaluation, ratios to Horner).
# Resumable: the model build and the latencies reuse the measurement
# database ($XDG_DATA_HOME/perpi/measurements.db). Nothing else may run on
# the machine meanwhile: the native timings and the Pipedream measurements
# are what is evaluated.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/perpi-eval-cycles}
build=${2:-$top}
perpi="$build/perpi"
[ -x "$perpi" ] || { echo "eval-cycles: no $perpi: build perpi first" >&2; exit 1; }
command -v python3 >/dev/null || { echo "eval-cycles: python3 is needed" >&2; exit 1; }
mkdir -p "$out/rec" "$out/eval"
log() { echo "eval-cycles: $(date -u +%H:%M:%S) $*" >&2; }
start=$(date +%s)

log "building the kernels into $out/kernels"
sh "$top/bench/kernels/build.sh" "$out/kernels"
bins=$(ls "$out/kernels"/*-O2 "$out/kernels"/*-O3native)
if [ -n "${PERPI_KERNELS:-}" ]; then # a smoke run: these kernels only
	bins=$(for k in $PERPI_KERNELS; do ls "$out/kernels/$k"-O2 "$out/kernels/$k"-O3native; done)
fi

log "recording $(echo "$bins" | wc -l) kernels"
from=""
for b in $bins; do
	n=$(basename "$b")
	"$perpi" record -q --function kernel -o "$out/rec/$n.data" "$b" 3 >/dev/null
	from="$from --from $out/rec/$n.data"
done

model=${PERPI_MODEL:-$out/model.json}
if [ -z "${PERPI_MODEL:-}" ]; then
	log "building the Palmed model of their forms ($model)"
	# shellcheck disable=SC2086
	"$perpi" palmed build -q $from -o "$model"
fi
log "measuring the core file ($out/core.json)"
# shellcheck disable=SC2086
"$perpi" core $from -o "$out/core.json" > "$out/core.txt"

log "perpi eval cycles"
mca=""
[ -n "${PERPI_NO_MCA:-}" ] && mca=--no-mca
# shellcheck disable=SC2086
"$perpi" eval cycles -m "$model" --core "$out/core.json" -o "$out/eval" $mca $bins |
	tee "$out/eval.txt"

log "writing $out/benchmarks-rows.md and $out/table1.md"
for k in paper_horner paper_comphorner paper_ddhorner; do
	"$perpi" report -i "$out/eval/$k-O2.data" --function kernel --only fp --json \
		> "$out/$k-fp.json" 2>> "$out/report.err"
done
python3 "$top/bench/eval-cycles-tables.py" "$out" "$(uname -n)" \
	"$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')" "$(date -u +%Y-%m-%d)" \
	"$(( $(date +%s) - start ))"
log "done in $(( $(date +%s) - start )) s"

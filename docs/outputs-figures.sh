#!/bin/sh
# Regenerates the figures and numbers of docs/OUTPUTS.md from the examples.
#   usage: sh docs/outputs-figures.sh [BUILDDIR]   (run from the source tree)
# Needs a built perpi (with record), Graphviz and rsvg-convert (librsvg2-bin).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top}
perpi="$build/perpi"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$build"
taskset -c 0 "$perpi" record -q -o "$tmp/sum.data" ./examples/summation >/dev/null
taskset -c 0 "$perpi" record -q -o "$tmp/horner.data" ./examples/horner >/dev/null
echo "== summation, all instructions"
"$perpi" report -i "$tmp/sum.data"
echo "== horner, --only fp"
"$perpi" report -i "$tmp/horner.data" --only fp
"$perpi" hist -i "$tmp/horner.data" --function CompHorner --svg "$tmp/comphorner.svg" >/dev/null
rsvg-convert "$tmp/comphorner.svg" -o "$top/docs/img/comphorner-hist.png"
"$perpi" graph -i "$tmp/sum.data" --function Sum2 --steps 1:5 -o "$tmp/sum2.dot" 2>/dev/null
dot -Tpng -Gdpi=60 "$tmp/sum2.dot" -o "$top/docs/img/sum2-graph.png"
echo "== CompHorner histogram (terminal)"
"$perpi" hist -i "$tmp/horner.data" --function CompHorner --bins 12 --no-color
echo "== DDHorner critical path, per line"
"$perpi" critical -i "$tmp/horner.data" --function DDHorner --only fp | sed -n '/per source line/,$p'

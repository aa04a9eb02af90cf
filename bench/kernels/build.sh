#!/bin/sh
# Build the cycle-prediction kernels, each at -O2 and at -O3 -march=native:
#   sh bench/kernels/build.sh OUTDIR [CC]
# writes OUTDIR/NAME-O2 and OUTDIR/NAME-O3native for every bench/kernels/*.c
# but driver.c. `perpi eval cycles OUTDIR/*` evaluates them.
set -e
out=${1:?usage: build.sh OUTDIR [CC]}
cc=${2:-cc}
dir=$(dirname "$0")
mkdir -p "$out"
for src in "$dir"/*.c; do
	name=$(basename "$src" .c)
	[ "$name" = driver ] && continue
	$cc -O2 -o "$out/$name-O2" "$dir/driver.c" "$src" -lm
	$cc -O3 -march=native -o "$out/$name-O3native" "$dir/driver.c" "$src" -lm
done

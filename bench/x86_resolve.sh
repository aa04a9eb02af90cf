#!/bin/sh
# Cost of decoding and of x86_resolve over libc's instructions.
# Usage: sh bench/x86_resolve.sh   (from the build directory)
set -e
make -s bench/bench_x86_resolve
exec ./bench/bench_x86_resolve "$@"

#!/bin/sh
# The two backends on real programs (DESIGN.md: "Two tracing backends
# produce the same events"): whole-run I and C of ls, gzip and sort under
# --backend=ptrace and --backend=valgrind, and their relative difference
# (target: within 0.1%). Run from the build directory:
#   sh bench/valgrind_compare.sh [PERPI]
#
# Valgrind 3.19 presents an Intel CPU with AVX2 and no AVX-512, so glibc
# picks other string functions and thresholds there than on this CPU. Both
# runs get the same environment, which makes glibc choose alike:
# - GLIBC_TUNABLES masks AVX-512 and the features Valgrind lacks on the
#   ptrace run, sets the preferences Valgrind's CPU has (Fast_Rep_String,
#   Fast_Unaligned_Load/Copy, Prefer_PMINUB_for_stringop) and fixes the
#   copy thresholds and cache sizes (the same string on both sides);
# - LD_BIND_NOW=1: no lazy binding (its trampoline saves the state with
#   xsavec natively, xsave under Valgrind: other instructions);
# - Valgrind adds VALGRIND_LIB and LD_PRELOAD (its core preload) to the
#   program's environment: the ptrace run gets the same two variables;
# - LC_ALL=C, both pinned to one CPU (sort sizes its work by the CPUs it may
#   use), no address randomisation for the ptrace run (setarch -R).
# What stays different is the vDSO, which Valgrind does not give the
# program: one object fewer for _dl_fini at exit, and clock_gettime (ls -l)
# a system call under Valgrind but vDSO code natively, whose retry loop
# runs a varying number of times under single-stepping (docs/BENCHMARKS.md).
set -u
PERPI=${1:-./perpi}
lib=${PERPI_VALGRIND_LIB:-$(cd "$(dirname "$PERPI")" && pwd)/tracer/valgrind}
[ -x "$lib/perpi-amd64-linux" ] || { echo "no Valgrind tool in $lib (configure --with-valgrind)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -c 4000 /usr/share/common-licenses/GPL-3 >"$tmp/text"

masked=-AVX512F,-AVX512CD,-AVX512BW,-AVX512DQ,-AVX512VL,-AVX512_VBMI,-AVX512_VBMI2
masked=$masked,-AVX512_VNNI,-AVX512_BITALG,-AVX512_VPOPCNTDQ,-AVX512_BF16,-AVX512_FP16
masked=$masked,-XSAVEC,-FSRM,-VAES,-VPCLMULQDQ,-GFNI
prefer=Fast_Rep_String,Fast_Unaligned_Load,Fast_Unaligned_Copy,Prefer_PMINUB_for_stringop
sizes=glibc.cpu.x86_non_temporal_threshold=0x200000:glibc.cpu.x86_rep_movsb_threshold=0x2000
sizes=$sizes:glibc.cpu.x86_rep_stosb_threshold=0x800:glibc.cpu.x86_data_cache_size=0x8000
sizes=$sizes:glibc.cpu.x86_shared_cache_size=0x800000
# the programs' whole environment, in this order on both sides (Valgrind
# appends LD_PRELOAD; the ptrace run gets it last, by hand)
base="PATH=/usr/bin:/bin LC_ALL=C LD_BIND_NOW=1 GLIBC_TUNABLES=glibc.cpu.hwcaps=$masked,$prefer:$sizes"
base="$base PERPI_VALGRIND_LIB=$lib VALGRIND_LIB=$lib"

# figures FILE: "I C" of the whole run
figures() { sed -n 's/^whole run *:: I \[\([0-9]*\)\] *:: C \[\([0-9]*\)\].*/\1 \2/p' "$1"; }

printf '%-40s %12s %12s %9s %10s %10s %9s\n' program I_ptrace I_valgrind dI C_ptrace C_valgrind dC
for cmd in "ls /usr/share/doc" "ls -l /usr/share/common-licenses" "gzip -c $tmp/text" "sort $tmp/text"; do
	# shellcheck disable=SC2086 # base and cmd are words
	env -i $base LD_PRELOAD="$lib/vgpreload_core-amd64-linux.so" setarch -R "$PERPI" -q \
		--cpu 0 -o "$tmp/p" $cmd >/dev/null 2>&1
	# shellcheck disable=SC2086
	env -i $base "$PERPI" -q --backend=valgrind --cpu 0 -o "$tmp/v" $cmd >/dev/null 2>&1
	set -- $(figures "$tmp/p") $(figures "$tmp/v")
	[ $# -eq 4 ] || { echo "$cmd: no figures"; continue; }
	echo "$cmd" | sed "s|$tmp/||" | awk -v ip="$1" -v cp="$2" -v iv="$3" -v cv="$4" '{
		printf "%-40s %12d %12d %8.3f%% %10d %10d %8.3f%%\n", $0, ip, iv,
			(iv - ip) * 100 / ip, cp, cv, (cv - cp) * 100 / cp }'
done

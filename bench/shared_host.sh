#!/bin/sh
# perpi bench on a host whose cores another guest shares (docs/BENCHMARKS.md,
# "A Zen 3 VM shared with another guest"): ROUNDS rounds, each timing the
# kernels below with every PERPI given (an older build and this one, say),
# one after the other, --no-db, pinned to CPU 0, each perpi with a probe
# reference of its own (a fresh XDG_CACHE_HOME each, kept over the rounds).
# Per perpi, one row: kernels measured and refused for a busy host, seconds
# per kernel, repetitions timed per kernel and the share of them clean, and
# the measured kernels off by more than 5% from the cycles the kernel takes
# on a Zen 3 (the reciprocal throughputs of uops.info's Zen 3 tables: an
# add 0.25, imul 1, addpd 0.5, a load 0.33, a store 0.5, a ymm FMA 0.5, a
# push with a pop 1 cycle). Other CPUs take other cycles: run it on a Zen 3.
# Then a row per kernel: the median, least and most cycles each perpi
# measured over the rounds.
# usage: sh bench/shared_host.sh ROUNDS PERPI...
set -eu
rounds=${1:-10}
shift
[ $# -gt 0 ] || set -- ./perpi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# kernel<TAB>cycles an iteration takes on a Zen 3 (forms in perpi's order)
cat >"$tmp/kernels" <<'EOF'
ADD_GPR64_GPR64	0.25
IMUL_GPR64_GPR64	1
ADDPD_XMM_XMM MOV_GPR64_M64	0.5
VFMADD231PD_YMM_YMM_YMM	0.5
MOV_GPR64_M64	0.3333
MOV_M64_GPR64	0.5
POP_GPR64 PUSH_GPR64	1
MULSD_XMM_XMM	0.5
EOF
cut -f1 "$tmp/kernels" >"$tmp/specs"
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) (family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1) model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)), $rounds rounds of $(wc -l <"$tmp/specs") kernels"
i=0
for p in "$@"; do
	i=$((i + 1))
	mkdir -p "$tmp/cache$i"
	: >"$tmp/out$i"
	: >"$tmp/times$i"
	: >"$tmp/err$i"
done
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	i=0
	for p in "$@"; do
		i=$((i + 1))
		start=$(date +%s.%N)
		XDG_CACHE_HOME="$tmp/cache$i" PERPI_BENCH_TIMES=1 "$p" bench --no-db --cpu 0 --json \
			-f "$tmp/specs" >"$tmp/json" 2>"$tmp/log" || true
		echo "$start $(date +%s.%N)" >>"$tmp/times$i"
		grep '^perpi: worker: [0-9]* repetitions' "$tmp/log" >>"$tmp/err$i" || true
		grep -c 'undisturbed by the host' "$tmp/log" >>"$tmp/refused$i" || true
		sed -n 's/.*"kernel":"\([^"]*\)".*/\1/p; s/.*"cycles":\([0-9.e+-]*\).*/\1/p' "$tmp/json" |
			paste - - >>"$tmp/out$i"
	done
done
printf '| perpi | kernels measured | refused (busy host) | seconds a kernel | repetitions a kernel | clean | off by >5%% |\n|---|---|---|---|---|---|---|\n'
i=0
for p in "$@"; do
	i=$((i + 1))
	awk -F'\t' -v name="$p" -v total=$((rounds * $(wc -l <"$tmp/specs"))) \
		-v times="$tmp/times$i" -v reps="$tmp/err$i" -v refused="$tmp/refused$i" '
	FILENAME == ARGV[1] { want[$1] = $2; next }
	{ n++; d = $2 / want[$1] - 1; if (d > 0.05 || d < -0.05) off++ }
	END {
		while ((getline line < times) > 0) { split(line, t, " "); secs += t[2] - t[1] }
		while ((getline line < reps) > 0) { split(line, w, " "); all += w[3]; clean += w[5] }
		while ((getline line < refused) > 0) busy += line
		printf "| %s | %d of %d | %d | %.2f | %.0f | %.1f%% | %d |\n", name, n, total, busy,
			secs / total, all / total, all ? 100 * clean / all : 0, off }' \
		"$tmp/kernels" "$tmp/out$i"
done
echo
printf '| kernel | Zen 3 |'
for p in "$@"; do printf ' %s (median, min-max) |' "$p"; done
printf '\n|---|---|'
for p in "$@"; do printf -- '---|'; done
echo
while IFS='	' read -r k want; do
	printf '| %s | %s |' "$k" "$want"
	i=0
	for p in "$@"; do
		i=$((i + 1))
		awk -F'\t' -v k="$k" '$1 == k { print $2 }' "$tmp/out$i" | sort -g |
			awk '{ v[NR] = $1 } END { if (NR) printf " %.3f (%.3f-%.3f) |", v[int((NR + 1) / 2)], v[1], v[NR]; else printf " - |" }'
	done
	echo
done <"$tmp/kernels"

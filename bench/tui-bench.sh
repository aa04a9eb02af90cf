#!/bin/sh
# perpi tui's speed targets: the first screen within 2 s of starting on a
# run of 10^7 instructions, every key within 100 ms.
#   sh bench/tui-bench.sh [perpi.data]
# Without a file, tests/tui/tui_synth replays 10^6 iterations of synth.c's
# 10-instruction loop (10^7 instructions) through the same engine and
# model in memory. Run from the build directory after `make check`.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${top_builddir:-$top}
if [ $# -ge 1 ]; then
	what="perpi tui $1"
	cmd="$build/perpi tui $1"
else
	what="synthetic run, 10^7 instructions (tests/tui/tui_synth 1000000)"
	cmd="$build/tests/tui/tui_synth 1000000"
fi
command -v tmux >/dev/null || { echo "tmux is needed"; exit 1; }
sock="perpi-tui-bench-$$"
timing=$(mktemp)
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -f "$timing"' EXIT

start=$(date +%s.%N)
tmux -L "$sock" new-session -d -x 80 -y 24 "env PERPI_TUI_TIMING=$timing $cmd; sleep 60"
until tmux -L "$sock" capture-pane -p | grep -q '^ Functions:'; do
	sleep 0.01
done
first=$(echo "$(date +%s.%N) - $start" | bc)

# A tour of every screen: the histogram zoomed and panned, a range opened
# in the graph, producers and consumers followed, the other screens.
for k in 2 Right Right Right + + + - End Home ']' m Right Enter c p c b Tab Down Up \
	 Escape Escape 4 Down Enter Escape 5 Down Enter Escape 1 i c l Enter n a Escape; do
	tmux -L "$sock" send-keys "$k"
	sleep 0.15
done
keys=$(wc -l < "$timing")
worst=$(sort -k2 -g "$timing" | tail -1 | awk '{ printf "%s ms (key %s)", $2, $1 }')
mean=$(awk '{ s += $2 } END { printf "%.1f", s / NR }' "$timing")
printf '%s\n' "$what"
printf 'first screen: %.2f s (target 2 s)\n' "$first"
printf 'keys: %s, mean %s ms, slowest %s (target 100 ms)\n' "$keys" "$mean" "$worst"
# Every key in the order played, with its milliseconds (the first Enter on
# the Functions screen opens the largest function's histogram).
printf 'all keys: %s\n' "$(awk '{ printf "%s %s; ", $1, $2 }' "$timing")"

#!/bin/sh
# The screens of the hand-made run of tests/tui/synth.c, driven with
# scripted keys in tmux. Every expected figure comes from the derivation in
# synth.c (by hand), not from an earlier capture of the screen.
. "$top_srcdir/tests/tui/tmux.sh"
tmux_require
TUI="$top_builddir/tests/tui/tui_synth"
trap tmux_stop EXIT

tmux_start 80 24 "$TUI"
# Functions: f, I_f 8, C_f 4 (2 + 2), ILP 2.00, 2 calls; whole run 15/5/3.00.
expect "whole run" 'I \[15\] :: C \[5\] :: ILP \[3\.00\]'
expect "function f" '^ f +8 +4 +2\.00 +2 *$'
expect "bottom bar" '1 Functions 2 Histogram 3 Graph +4 Critical +5 Blocks'

# Enter: f's histogram, its calls overlaid: step 1 holds int 2, move 2, branch 2.
tmux_keys Enter
expect "f's title" 'Histogram: f, 2 calls :: I \[8\] :: C \[4\] :: ILP \[2\.00\]'
expect "f step 1" 'steps 1-1: 6 insns, ILP 6\.00 \| int 2 move 2 branch 2'
tmux_keys n
expect "f's first call" 'f, call 1 of 2 :: I \[4\] :: C \[2\]'
# Enter: the graph of the whole-run steps the call spans (its instructions
# 3-6 are at steps 2, 3, 1, 2), at its first instruction.
tmux_keys Enter
expect "call's graph" 'Graph: steps 1-3, 10 instructions'
expect "call's first instruction" '#3  step 2  0x2000  add rax, rbx'
tmux_keys Escape Escape

# Whole-run histogram: step 1 = fp 1, move 4, branch 1; the last step, 5,
# holds the load and the second imul.
tmux_keys 2
expect "step 1" 'steps 1-1: 6 insns, ILP 6\.00 \| fp 1 move 4 branch 1'
tmux_keys End
expect "step 5" 'steps 5-5: 2 insns, ILP 2\.00 \| load 1 int 1'
# Range 1-3: 6 + 2 + 2 = 10 instructions over 3 steps.
tmux_keys Home m Right Right
expect "range" 'steps 1-3: 10 insns, ILP 3\.33'

# Its graph: 10 nodes; the first, mov rax, 1, starts the critical path;
# its consumer is the add of f's first call (#3, step 2).
tmux_keys Enter
expect "graph title" 'Graph: steps 1-3, 10 instructions'
expect "selected node" '#0  step 1  0x1000  mov rax, 1 .*critical path'
tmux_keys c
expect "consumer" '#3  step 2  0x2000  add rax, rbx'
expect "its producers" 'producers: #0 s1 mov rax, 1 \(rax\); #1 s1 mov rbx, 2 \(rbx\)'
tmux_keys c
expect "imul" '#4  step 3  0x2003  imul rax, rax'
expect "imul's consumers" 'consumers: #8 s4 mov \[0x5000\], rax \(rax\); #11 s4 add rax, rbx \(rax\)'
# The store's consumer reads the 8 bytes it wrote: a memory edge.
tmux_keys c
expect "store" '#8  step 4  0x1017  mov \[0x5000\], rax'
expect "memory edge" 'consumers: #9 s5 mov rdx, \[0x5000\] \(mem\)'
tmux_keys b b
expect "back" '#3  step 2'

# Critical path: C = 5 instructions on t.c:6 (2), t.c:10 (2), t.c:3 (1).
tmux_keys 4
expect "path length" 'Critical path: 5 instructions'
expect "t.c:6" '40\.0% +2  t\.c:6 '
expect "t.c:10" '40\.0% +2  t\.c:10 '
expect "t.c:3" '20\.0% +1  t\.c:3 '

# Blocks: f's body twice, 4 instructions, ILP 8/4 = 2.00, 8 of 15 = 53.3%.
tmux_keys 5
expect "block f" '^ f +4 +2 +2\.00 +53\.3%'
expect "block A" '^ 0x1000 +3 +1 +3\.00 +20\.0%'

# Help lists the screen's keys and the global ones.
tmux_keys '?'
expect "help" 'keys of the Blocks screen'
expect "help quit" '^  q +quit'
tmux_keys x

# Resizes are followed; too small shows a message; q quits cleanly.
t resize-window -t tui -x 100 -y 30; sleep 0.3
expect "wider" '^1 Functions .*\? Help  q Quit *$'
t resize-window -t tui -x 70 -y 20; sleep 0.3
expect "too small" 'perpi tui needs 80x24; this terminal is 70x20'
t resize-window -t tui -x 80 -y 24; sleep 0.3
expect "back to 80x24" 'Blocks: 3 basic blocks'
tmux_keys q
expect "exit status" '^EXIT=0$'
[ "$(alternate_screen)" = 0 ] || { echo "FAIL: terminal left in the alternate screen"; failures=$((failures + 1)); }

# A terminal too small at start: a message and a clean exit.
tmux_start 60 20 "$TUI"
expect "too small at start" 'perpi: tui: terminal too small: 60x20, perpi tui needs at'
expect "too small status" '^EXIT=1$'

# NO_COLOR: no colour in the escape sequences, letters still tell classes.
tmux_start 80 24 NO_COLOR=1 "$TUI"
tmux_keys 2
expect "monochrome legend" 'l load s store i int f fp v vec m move b branch o other'
if screen_colours | grep -Eq '\[(3[0-7]|4[0-7]|38;|48;)'; then
	echo "FAIL: colours shown with NO_COLOR"; failures=$((failures + 1))
fi

# A fatal signal restores the terminal.
kill -TERM "$(pgrep -P "$(t display-message -t tui -p '#{pane_pid}')")"
expect "killed" '^EXIT=143$'
[ "$(alternate_screen)" = 0 ] || { echo "FAIL: terminal not restored after SIGTERM"; failures=$((failures + 1)); }

[ $failures = 0 ] && echo "PASS: tui screens on the hand-made run"
exit $((failures != 0))

#!/bin/sh
# Regenerates the screen captures of docs/TUI.md: records the summation
# example, drives perpi tui over it in an 80x24 tmux pane with NO_COLOR, and
# prints each screen as a Markdown code block, in the order of docs/TUI.md.
#   sh tests/tui/make-captures.sh > /tmp/captures.md   (from the build directory)
set -eu
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$(pwd)}
PERPI=${PERPI:-$top_builddir/perpi}
. "$top_srcdir/tests/tui/tmux.sh"
tmp=$(mktemp -d)
trap 'tmux_stop; rm -rf "$tmp"' EXIT
"$PERPI" record -q -o "$tmp/perpi.data" -- "$top_builddir/examples/summation" 100 >/dev/null 2>&1
cd "$tmp" # the title shows the file as given: perpi.data
XDG_DATA_HOME="$tmp/none" # no default Palmed model for the first screens
export XDG_DATA_HOME
tmux_start 80 24 NO_COLOR=1 "$PERPI" tui
shot() {
	printf '### %s\n\n```\n' "$1"
	# trailing spaces off, runs of empty rows shortened to two
	screen | sed 's/ *$//' | awk '/^ *│? *$/ { if (++e > 2) next; print; next } { e = 0; print }'
	printf '```\n\n'
}
shot "Functions"
tmux_keys 2
shot "Histogram"
tmux_keys ']' + + + m Right Right Right
shot "Histogram, zoomed on a low-ILP stretch, a range marked"
tmux_keys Enter p
shot "Graph"
tmux_keys 4
shot "Critical path"
tmux_keys 5
shot "Blocks"
tmux_keys 1 Enter
shot "Function histogram"
tmux_keys '?'
shot "Help"
# With the Palmed model written by hand from AMD's Zen 4 guide (docs/LIFT.md).
cp "$top_srcdir/docs/lift-zen4-hand.json" zen4-hand.json
tmux_start 80 24 NO_COLOR=1 "$PERPI" tui --model zen4-hand.json
shot "Functions, with a Palmed model"
tmux_keys 5
shot "Blocks, with a Palmed model"

# Helpers to drive perpi's TUI headless in tmux: start a command in a
# detached session of a given size, send keys, read the screen as text.
# Sourced by the TUI's shell tests.
TMUX_SESSIONS=0
TMUX_SOCKET="perpi-tui-test-$$-0"
t() { tmux -L "$TMUX_SOCKET" "$@"; }

tmux_require() {
	command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }
}

# tmux_start COLS LINES COMMAND...: the command's exit status is printed
# after it as EXIT=n, and the pane stays open to read it.
tmux_start() {
	cols=$1 lines=$2
	shift 2
	t kill-server 2>/dev/null || true
	TMUX_SESSIONS=$((TMUX_SESSIONS + 1)) # a fresh server: no race with the last one's exit
	TMUX_SOCKET="perpi-tui-test-$$-$TMUX_SESSIONS"
	t new-session -d -x "$cols" -y "$lines" -s tui \
		"env $*; echo EXIT=\$?; sleep 60"
	# wait (up to 10 s on a loaded machine) until something is drawn
	n=0
	while [ $n -lt 100 ] && ! t capture-pane -t tui -p | grep -q '[^ ]'; do
		sleep 0.1
		n=$((n + 1))
	done
	sleep 0.2
}

tmux_keys() { t send-keys -t tui "$@"; sleep 0.3; }
screen() { t capture-pane -t tui -p; }
screen_colours() { t capture-pane -t tui -p -e; }
alternate_screen() { t display-message -t tui -p '#{alternate_on}'; }
tmux_stop() { t kill-server 2>/dev/null; }

failures=0
# expect NAME PATTERN: the screen holds (or comes to hold within 5 s) a
# line matching the extended regex.
expect() {
	n=0 # the screen may lag the keys on a loaded machine: retry for 5 s
	while [ $n -lt 50 ] && ! screen | grep -Eq -- "$2"; do
		sleep 0.1
		n=$((n + 1))
	done
	if screen | grep -Eq -- "$2"; then
		:
	else
		echo "FAIL: $1: no line matches '$2'; the screen is:"
		screen
		failures=$((failures + 1))
	fi
}

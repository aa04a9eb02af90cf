#!/bin/sh
# perpi tui --backend=valgrind -- PROGRAM: the TUI's figures equal the
# report's under the Valgrind backend (tests/tui/test_tui_live.sh, whose
# report is checked against the hand-derived figures of tests/asm/calls
# by asm.sh).
. "$top_srcdir/tests/valgrind/lib.sh"
PERPI_BACKEND=valgrind sh "$top_srcdir/tests/tui/test_tui_live.sh"

/* perpi tui: the curses browser's entry point. */
#ifndef PERPI_TUI_CMD_TUI_H
#define PERPI_TUI_CMD_TUI_H

int cmd_tui(int argc, char **argv);

#endif

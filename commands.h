/* Entry points of perpi's subcommands. Each lives in the module it belongs
 * to and returns the process exit status. */
#ifndef PERPI_COMMANDS_H
#define PERPI_COMMANDS_H

/* int cmd_NAME(int argc, char **argv); one line per command */
int cmd_run(int argc, char **argv); /* ilp/cmd_run.c: perpi [run] PROGRAM */

#endif

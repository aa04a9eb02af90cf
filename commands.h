/* Entry points of perpi's subcommands. Each lives in the module it belongs
 * to and returns the process exit status. */
#ifndef PERPI_COMMANDS_H
#define PERPI_COMMANDS_H

/* int cmd_NAME(int argc, char **argv); one line per command */
int cmd_bench(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_forms(int argc, char **argv);

#endif

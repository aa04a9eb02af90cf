/* Entry points of perpi's subcommands. Each lives in the module it belongs
 * to and returns the process exit status. */
#ifndef PERPI_COMMANDS_H
#define PERPI_COMMANDS_H

/* int cmd_NAME(int argc, char **argv); one line per command */
int cmd_run(int argc, char **argv); /* ilp/cmd_run.c: perpi [run] PROGRAM */
int cmd_report(int argc, char **argv);   /* ilp/cmd_report.c */
int cmd_hist(int argc, char **argv);     /* ilp/cmd_hist.c */
int cmd_graph(int argc, char **argv);    /* ilp/cmd_graph.c */
int cmd_critical(int argc, char **argv); /* ilp/cmd_critical.c */
int cmd_record(int argc, char **argv);   /* ilp/cmd_record.c */
int cmd_bench(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_forms(int argc, char **argv);
int cmd_palmed(int argc, char **argv);
int cmd_tui(int argc, char **argv);      /* tui/cmd_tui.c */

#endif

/* Entry points of perpi's subcommands, one file each in cmd/; each returns
 * the process exit status. perpi.c's table dispatches to them. */
#ifndef PERPI_COMMANDS_H
#define PERPI_COMMANDS_H

int cmd_run(int argc, char **argv);      /* cmd/run.c: perpi [run] PROGRAM */
int cmd_record(int argc, char **argv);   /* cmd/record.c */
int cmd_report(int argc, char **argv);   /* cmd/report.c */
int cmd_hist(int argc, char **argv);     /* cmd/hist.c */
int cmd_graph(int argc, char **argv);    /* cmd/graph.c */
int cmd_critical(int argc, char **argv); /* cmd/critical.c */
int cmd_tui(int argc, char **argv);      /* cmd/tui.c */
int cmd_bench(int argc, char **argv);    /* cmd/bench.c */
int cmd_db(int argc, char **argv);       /* cmd/db.c */
int cmd_forms(int argc, char **argv);    /* cmd/forms.c */
int cmd_palmed(int argc, char **argv);   /* cmd/palmed.c */
int cmd_measure(int argc, char **argv);  /* cmd/measure.c */
int cmd_core(int argc, char **argv);     /* cmd/core.c */
int cmd_eval(int argc, char **argv);     /* cmd/eval.c */

#endif

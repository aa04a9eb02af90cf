/* The subcommands of `perpi palmed` that live in files of their own. */
#ifndef PERPI_CMD_PALMED_H
#define PERPI_CMD_PALMED_H

#include <stddef.h>

int palmed_build_main(int argc, char **argv);	/* cmd/palmed_build.c */
int palmed_predict_main(int argc, char **argv); /* cmd/palmed_predict.c */
int palmed_eval_main(int argc, char **argv);	/* cmd/palmed_eval.c */

/* cmd/palmed_eval_print.c: the tables of palmed eval (all the kernels,
 * then each shape apart; the blocks' with where the runs' dynamic
 * instructions went), and the raw results and plots in dir. */
struct eval_set;
struct eval_blocks_stats;
void palmed_eval_print_table(const struct eval_set *s);
void palmed_eval_print_worst(const struct eval_set *s, size_t n);
void palmed_eval_print_blocks(const char *const *runs, size_t nruns,
			      const struct eval_blocks_stats *st, double refused,
			      const struct eval_set *s);
int palmed_eval_write_results(const struct eval_set *sets, const char *dir);

#endif

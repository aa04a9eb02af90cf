/* What perpi bench, perpi forms and perpi db share on the command line:
 * numbers, kernel lists, the database, and a progress line on a terminal. */
#ifndef PERPI_BENCH_CLI_H
#define PERPI_BENCH_CLI_H

#include <stddef.h>

#include "palmed/kernel.h"

struct db;

/* A decimal count in [min, max]; -1 with perpi_error() set otherwise. */
int bench_cli_count(const char *text, long *out, long min, long max);

/* Kernels from the arguments, or from file (one per line, '#' comments;
 * "-" is stdin). With single_form, each one must be a single form. */
int bench_cli_read_kernels(char **args, int n_args, const char *file, int single_form,
			   struct kernel **out, size_t *n);
void bench_cli_free_kernels(struct kernel *ks, size_t n);

/* Open path, or the default database if path is NULL; says on stderr when
 * it holds only another machine's measurements (db_foreign_note). */
int bench_cli_open_db(const char *path, struct db **out);

/* done/total, rate and time left on stderr, only when it is a terminal. */
struct bench_cli_progress {
	const char *what;
	double start;
	int tty, shown;
};
void bench_cli_progress_init(struct bench_cli_progress *p, const char *what);
void bench_cli_progress(void *p, size_t done, size_t total);
void bench_cli_progress_end(struct bench_cli_progress *p);

#endif

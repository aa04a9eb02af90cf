/* The real machine behind the Palmed inference: kernels measured by the
 * Pipedream runner (palmed/bench.h), cached in the measurement database, so
 * a build interrupted at any point resumes without measuring again. */
#ifndef PERPI_INFER_BENCH_H
#define PERPI_INFER_BENCH_H

#include <signal.h>

#include "palmed/bench.h"
#include "palmed/measure.h"

/* A measurement whose repetitions spread more than bench_max_spread
 * (palmed/bench_stats.h: relative interquartile range, 5%, 15% for slow
 * kernels) is taken again, and refused if it stays so. */

struct infer_bench {
	struct bench_ctx *bench, *fresh; /* owned; fresh re-measures cached kernels */
	char *cpu;			 /* owned */
	struct db *db;			 /* the caller's, may be NULL */
	char *key;			 /* the generation parameters (bench_options_key), owned */
	unsigned measured, cached, refused;
	/* A kernel refused (a busy host, repetitions that spread, a
	 * dependency the generator could not avoid) is remembered in the
	 * database, so that a resumed or repeated build takes the same path
	 * and measures nothing again; retry_refused measures those again. */
	int retry_refused;
	int accept_helpers; /* the call under way takes results timed with helpers */
	/* When *stop becomes non-zero, kernels the host disturbed are not
	 * measured again (a stop must not wait for retries); NULL: never. */
	const volatile sig_atomic_t *stop;
};

/* Fills out to measure with options o, caching in db (may be NULL; stays
 * the caller's); ib must outlive out. */
void infer_bench_init(struct infer_bench *ib, const struct bench_options *o, struct db *db,
		      struct measure *out);
void infer_bench_done(struct infer_bench *ib);

/* One kernel through ib's runner: retried while the host disturbs it or
 * its spread is above bench_max_spread. Returns 0 with *r filled
 * (the caller calls bench_result_done), or -1 with perpi_error() set. */
int infer_bench_measure(struct infer_bench *ib, const struct kernel *k, struct bench_result *r);

#endif

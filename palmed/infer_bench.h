/* The real machine behind the Palmed inference: kernels measured by the
 * Pipedream runner (palmed/bench.h), cached in the measurement database, so
 * a build interrupted at any point resumes without measuring again. */
#ifndef PERPI_INFER_BENCH_H
#define PERPI_INFER_BENCH_H

#include "palmed/bench.h"
#include "palmed/measure.h"

struct infer_bench {
	struct bench_ctx *bench; /* the caller's */
	char *cpu;               /* owned */
	unsigned measured, cached, refused;
};

/* Fills out to measure through bench; ib must outlive out. */
void infer_bench_init(struct infer_bench *ib, struct bench_ctx *bench, struct measure *out);
void infer_bench_done(struct infer_bench *ib);

#endif

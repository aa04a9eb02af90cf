/* Measuring the core's parameters (palmed/core.h) on the running CPU:
 * small loops generated as assembly and timed by the Pipedream harness
 * (palmed/harness.h: the TSC calibrated against a chain of adds,
 * disturbed repetitions dropped), and form latencies through Pipedream's
 * latency chains (bench_latency, kept in the measurement database). Each
 * probe is described in docs/CYCLES.md. */
#ifndef PERPI_CORE_MEASURE_H
#define PERPI_CORE_MEASURE_H

#include <stddef.h>
#include <stdio.h>

#include "palmed/bench.h"
#include "palmed/core.h"

/* The raw timings behind the parameters, in cycles per repetition of each
 * probe's body, for `perpi core` to show. */
struct core_probes {
	double load, load_vec, movq_round_trip, forward, forward_vec, renamed;
	double nops, mix, loop, branch_random, branch_fixed;
	double fp_mul, fp_add, fp_mul_add; /* mulsd, addsd and mulsd + addsd chains */
	double store_lines;		   /* 8-byte stores 64 bytes apart */
	double cmove, cmovl, cmova;	   /* cmp + cmovcc chains */
	double stream_store, stream_copy;  /* one rep stosb, rep movsb of STREAM_BYTES */
	size_t nwindow;
	unsigned *window_fill; /* instructions between the two chains */
	double *window_cycles; /* cycles per iteration for each fill */
	double window_base;    /* the iteration's cycles with a small fill */
};
void core_probes_done(struct core_probes *p);

/* The reorder window that one round of the window probe shows: cycles[i]
 * per iteration for a fill of 16 (i + 1) nops between two chains of 8
 * square roots, i < n (32 at most): the fill before the largest rise, plus
 * the two chains' 16; NAN without a rise of a quarter of cycles[0]. Of
 * three rounds, `perpi core` keeps the largest window. */
double core_window_of(const double *cycles, size_t n);

/* Measures every parameter but the latencies into c (marked measured);
 * cpu: the CPU to pin the probes to (-1: the current one). A parameter
 * whose probe fails keeps its value and a warning says why. Returns 0, or
 * -1 with perpi_error() when no probe could run at all. */
int core_measure_params(struct core *c, int cpu, struct core_probes *out);

/* The latency of each of forms[0..n) by Pipedream (bench_latency: a chain
 * through the register or flags each instance writes; the database
 * caches them) into c; a form without one (control flow, no chain
 * possible, a flagged kernel) is recorded in c with the reason. progress,
 * if not NULL, is called after each form. Returns how many latencies were
 * measured. This is what `perpi palmed build` may call for a model's forms. */
size_t core_measure_latencies(struct bench_ctx *b, struct core *c, char *const *forms, size_t n,
			      bench_progress_fn progress, void *arg);

#endif

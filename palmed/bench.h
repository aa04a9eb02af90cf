/* Pipedream: measure the throughput of a kernel (a multiset of instruction
 * forms, palmed/kernel.h) on the running CPU. The kernel is instantiated
 * with no dependency between its instructions (DESIGN.md, "Measuring a
 * kernel"), unrolled, assembled with GNU as into a shared object and run in
 * a worker process pinned to one CPU. Cycles come from PAPI_TOT_CYC when the
 * counters work, otherwise from the TSC calibrated against a chain of
 * dependent 1-cycle adds around every repetition; repetitions disturbed by
 * the host (steal, preemption) are detected with a probe and dropped.
 *
 * Typical use:
 *	struct bench_options o; bench_options_default(&o);
 *	struct bench_ctx *b = bench_new(&o, db);      // db may be NULL
 *	struct bench_result r;
 *	if (bench_measure(b, &kernel, &r) < 0) ... perpi_error() ...
 *	printf("%.3f cycles, IPC %.3f\n", r.cycles, r.ipc);
 *	bench_result_done(&r); bench_delete(b);
 */
#ifndef PERPI_BENCH_H
#define PERPI_BENCH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "palmed/kernel.h"

struct db;

enum timing_source { TIMING_TSC = 0, TIMING_PAPI = 1 };
const char *timing_source_name(enum timing_source s); /* "tsc", "papi" */

struct bench_options {
	unsigned unroll_size;  /* UNROLL_SIZE: min instructions in the loop body (256) */
	unsigned total_insn;   /* TOTAL_INSN: NUM_ITER = ceil(TOTAL_INSN / body size) (100000) */
	unsigned num_measures; /* NUM_MEASURES: repetitions timed after warm-up (15) */
	unsigned warmup;       /* warm-up rounds before timing (3) */
	double max_spread;     /* re-measure when the relative spread is above (0.02) */
	unsigned max_attempts; /* stop at max_attempts x NUM_MEASURES clean samples (3) */
	double max_seconds;    /* time budget per kernel while the host disturbs it (2.0) */
	int cpu;	       /* CPU the worker is pinned to; -1: the one perpi runs on */
	int force_tsc;	       /* do not use PAPI even if its counters work */
	int fresh;	       /* ignore cached results (still store the new ones) */
	double kernel_timeout; /* seconds before a kernel that runs on is stopped (0: 30) */
	/* A kernel the generator flags (not measurable as throughput: legacy
	 * SSE beside VEX without a twin...) is not run, and so not stored: its
	 * result comes back flagged, with no cycles (the inference, which
	 * refuses such results, sets it; perpi bench runs them and prints the
	 * flag beside the figure). */
	int skip_flagged;
	/* When *stop becomes non-zero (a signal handler sets it), the kernels
	 * not measured yet fail with "interrupted" within a tenth of a second;
	 * the ones measured are kept (and stored). NULL: never. */
	const volatile sig_atomic_t *stop;
};
void bench_options_default(struct bench_options *o);

/* In the error of a kernel the host disturbed throughout (fewer than 3
 * undisturbed repetitions: bench_batch.c, eval_gen_run.c): the host's
 * loss, not the kernel's (infer_bench.c, infer_meter.c). */
#define BENCH_BUSY_HOST "undisturbed by the host"

/* The generation parameters as one canonical string, the cache key part
 * "gen=2 unroll=256 total=100000 measures=15 warmup=3"; caller frees. */
char *bench_options_key(const struct bench_options *o);

struct bench_result {
	double cycles;	     /* core cycles per iteration (one instance of the multiset) */
	double ipc;	     /* instructions per cycle: kernel_size / cycles */
	double spread;	     /* relative spread of the clean samples: (q75-q25)/median */
	int bimodal;	     /* the clean samples fell into two modes: the faster one
			      * is cycles (palmed/bench_stats.h) */
	double other_cycles; /* bimodal: the slower mode */
	enum timing_source source;
	int flagged; /* the generated code still carries a dependency */
	char flag_reason[96];
	/* Instructions the loop runs per iteration besides the kernel's own
	 * (dependency breakers, a division's operands: gen.h's gen_info), as a
	 * kernel spec, "" if none. cycles is the time of the kernel and these
	 * together: the kernel really measured is the union of both. */
	char helpers[96];
	int from_cache;		/* found in the database, not measured now */
	unsigned n_samples;	/* every repetition timed, clean or not */
	double *samples;	/* cycles per iteration of each repetition; owned */
	unsigned char *clean;	/* whether repetition i was undisturbed; owned */
	double ticks_per_cycle; /* TSC calibration (median), 0 with PAPI */
};
void bench_result_init(struct bench_result *r);
void bench_result_done(struct bench_result *r);

struct bench_ctx;

/* db may be NULL (no cache, nothing stored); it stays the caller's. */
struct bench_ctx *bench_new(const struct bench_options *o, struct db *db);
void bench_delete(struct bench_ctx *b);
/* The repetitions this context's kernels were timed in so far, and how
 * many of them the host left undisturbed. */
void bench_repetitions(const struct bench_ctx *b, unsigned long *all, unsigned long *clean);

/* Throughput of one kernel: cache lookup, else generate, run, store.
 * Returns 0, or -1 with perpi_error() set (unknown or unsupported form,
 * assembly failure, faulting kernel...). */
int bench_measure(struct bench_ctx *b, const struct kernel *k, struct bench_result *out);

/* Many kernels at once (one shared object, one worker): much faster.
 * status[i] is 0 or -1 (errors[i] then holds a malloc'd message, freed by
 * the caller); progress, if not NULL, is called after each kernel. Returns
 * the number of kernels measured successfully. */
typedef void (*bench_progress_fn)(void *arg, size_t done, size_t total);
size_t bench_measure_many(struct bench_ctx *b, const struct kernel *ks, size_t n,
			  struct bench_result *out, int *status, char **errors,
			  bench_progress_fn progress, void *arg);

/* Latency of a form: cycles per instance of a chain where each instance
 * depends on the previous one through its written register (or flags).
 * Returns 0, or -1 with perpi_error() set (e.g. no register written). */
int bench_latency(struct bench_ctx *b, const char *form, struct bench_result *out);

/* The callback of palmed/measure.h's struct measure, so that the Palmed
 * inference measures through Pipedream: ctx is a struct bench_ctx *, and
 * *cycles_per_iter is bench_measure's result.cycles. Returns 0 or -1. */
int bench_cycles(void *ctx, const struct kernel *k, double *cycles_per_iter);

/* The generated assembly of the kernel's loop (latency: the chain of a
 * one-form kernel), for --show-asm; caller frees. NULL with perpi_error()
 * set on failure. */
char *bench_kernel_asm(struct bench_ctx *b, const struct kernel *k, int latency);

#endif

/* Shared by bench.c and bench_batch.c only: the runner's state and one
 * campaign of kernels (palmed/bench.h). */
#ifndef PERPI_BENCH_PRIVATE_H
#define PERPI_BENCH_PRIVATE_H

#include "palmed/bench.h"
#include "palmed/gen.h"
#include "palmed/harness.h"

#define BATCH_MAX 256 /* kernels per shared object */

struct bench_ctx {
	struct bench_options opt;
	struct db *db;
	char *dir; /* scratch directory, created on first use */
	struct gen_params gp;
	/* forms probed so far: semantics, or why they cannot be used */
	size_t n_forms, cap_forms;
	struct gen_form_info *forms;
	char **form_errors;
	unsigned batch;		  /* shared objects built, for unique names */
	double best[PROBE_COUNT]; /* the probes' fewest cycles per insn here, 0 unknown */
	int best_dirty;
	unsigned best_replaced; /* bit k: best[k] replaced a reference out of reach */
	/* repetitions timed so far, and the undisturbed ones (bench_repetitions) */
	unsigned long reps, reps_clean;
	char machine[160];	       /* key of the probe reference file */
	struct harness_worker *worker; /* kept between measurements; NULL until first use */
};

struct campaign {
	struct bench_ctx *b;
	const struct kernel *ks;
	struct bench_result *out;
	int *status;
	char **errors;
	size_t *kernel_of_job; /* job -> kernel index */
	struct harness_output *ho;
	int latency;
	struct gen_info *gi;
	bench_progress_fn progress;
	void *arg;
	size_t done_before, total;
	unsigned char *disturbed; /* per kernel: failed because the host never let it run clean */
};

int bench_ensure_dir(struct bench_ctx *b);
/* Probe every form of ks not seen yet (semantics: gen.h), in one run of as. */
int bench_probe_kernels(struct bench_ctx *b, const struct kernel *ks, size_t n);
/* The semantics of each term of k, or -1 with the first form's error. */
int bench_kernel_infos(struct bench_ctx *b, const struct kernel *k,
		       const struct gen_form_info **infos);
/* Fail the kernels idx[0..n) not measured yet with msg. */
void bench_fail_all(struct campaign *c, const size_t *idx, size_t n, const char *msg);
/* The database key of kernel k's measurements: the options and the
 * generator's version for its code (malloc'd). */
char *bench_kernel_key(struct bench_ctx *b, const struct kernel *k);
/* Generate, assemble and run one batch of kernels (indices idx). */
void bench_run_batch(struct campaign *c, const size_t *idx, size_t n);

#endif

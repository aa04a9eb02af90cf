/* The benchmark harness: GNU as and ld turn generated assembly into a
 * shared object; a worker process pinned to one CPU loads it and times
 * each kernel, so a faulting kernel costs a worker, never perpi. */
#ifndef PERPI_HARNESS_H
#define PERPI_HARNESS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "palmed/timing.h"

/* A fresh scratch directory under $TMPDIR; caller removes it with
 * harness_remove_dir and frees the string. NULL with perpi_error() set. */
char *harness_make_dir(void);
void harness_remove_dir(const char *dir);

/* dir/stem.s -> dir/stem.o. On failure returns -1 with perpi_error() set and,
 * if diag is not NULL, *diag = the assembler's messages (caller frees). */
int harness_assemble(const char *dir, const char *stem, const char *text, char **diag);
/* dir/stem.o -> dir/stem.so */
int harness_link(const char *dir, const char *stem);
/* The bytes of the .text section of an object file; caller frees. */
int harness_text_bytes(const char *path, uint8_t **bytes, size_t *len);

struct harness_job {
	const char *symbol; /* void symbol(uint64_t turns, void *read, void *write) */
	uint64_t turns;	    /* loop turns per timed call */
	double divisor;	    /* cycles of a call / divisor = cycles per kernel iteration */
};

struct harness_clock;

struct harness_config {
	unsigned measures, warmup, max_attempts;
	double max_spread;
	int cpu; /* -1: the one perpi runs on */
	int force_tsc;
	int check_only;		       /* run each job once, untimed: does it fault? */
	double max_seconds;	       /* time budget of one kernel while the host disturbs it */
	double best_hint[PROBE_COUNT]; /* the probes' best cycles per insn here, or 0 */
	/* A kernel still running after this many seconds (0: 30) is stopped
	 * (the worker is killed and restarted), reported as timed out, and the
	 * campaign goes on with the next one. */
	double kernel_timeout;
	/* When *stop becomes non-zero (a signal handler sets it), the jobs not
	 * yet run fail with "interrupted", within a tenth of a second even in
	 * the middle of a kernel. NULL: never. */
	const volatile sig_atomic_t *stop;
	/* The worker's clock (palmed/harness_measure.h); NULL: the real one. */
	const struct harness_clock *clock;
};

struct harness_output {
	int status; /* 0 ok, -1 failed (message in error) */
	char error[128];
	int papi;	 /* timed with PAPI cycles */
	unsigned n;	 /* samples */
	double *samples; /* cycles per kernel iteration; owned */
	unsigned char *clean;
	double ticks_per_cycle;
	double best[PROBE_COUNT]; /* the worker's best probes (cycles per insn) */
	unsigned replaced;	  /* bit k: best[k] replaced a reference out of reach */
	unsigned taken;		  /* repetitions timed, n of them sent */
};

/* Called in the parent as each job's output arrives (index: the job). */
typedef void (*harness_progress_fn)(void *arg, size_t index, size_t done, size_t total);

/* A worker process kept between runs: started on first use (pinned to
 * cfg->cpu, warmed up once), restarted after a kernel kills it, stopped by
 * harness_worker_delete. */
struct harness_worker;
struct harness_worker *harness_worker_new(void);
void harness_worker_delete(struct harness_worker *w);
/* Run every job of the shared object so_path in w; out[i] is filled for
 * each job. Returns 0, or -1 with perpi_error() set when no worker could
 * start (out[] then says so too). */
int harness_worker_run(struct harness_worker *w, const struct harness_config *cfg,
		       const char *so_path, const struct harness_job *jobs, size_t n,
		       struct harness_output *out, harness_progress_fn progress, void *arg);

/* The same with a worker for this run only. */
int harness_run(const char *so_path, const struct harness_job *jobs, size_t n,
		const struct harness_config *cfg, struct harness_output *out,
		harness_progress_fn progress, void *arg);
void harness_output_done(struct harness_output *o);

#endif

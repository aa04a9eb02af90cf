/* Timing one kernel in the worker (palmed/harness.h): repetitions, each
 * between two probe points (a calibration chain, the throughput probes,
 * a second calibration on the FP adders), judged in core cycles against the calibrations taken
 * around that very repetition, so that a change of the core clock costs one repetition, not the
 * campaign (DESIGN.md, "Measuring a kernel").
 *
 * The clock is pluggable: the real one reads the TSC and runs the probes
 * of palmed/timing.h and the kernel itself; a test gives a fake one whose
 * core clock it changes in the middle of a campaign. */
#ifndef PERPI_HARNESS_MEASURE_H
#define PERPI_HARNESS_MEASURE_H

#include <stdint.h>

#include "palmed/harness.h"
#include "palmed/timing.h"

typedef void (*harness_kernel_fn)(uint64_t turns, void *read, void *write);

struct harness_clock {
	uint64_t (*tsc)(void *ctx);   /* a timestamp, in ticks */
	uint64_t (*chain)(void *ctx); /* ticks of one calibration (TIMING_CHAIN_CYCLES cycles) */
	uint64_t (*probe)(void *ctx, enum timing_probe p); /* ticks of one throughput probe */
	uint64_t (*overhead)(void *ctx);		   /* ticks a timed empty region costs */
	/* run fn once (turns loop turns); the real clock calls it */
	void (*run)(void *ctx, harness_kernel_fn fn, const struct harness_job *job, void *read,
		    void *write);
	void *ctx;
	/* ticks of the second calibration (TIMING_FP_CHAIN_INSNS dependent FP
	 * adds); NULL: none, the chain of adds is trusted alone */
	uint64_t (*fp_chain)(void *ctx);
};

/* The TSC, the probes of palmed/timing.h, vzeroupper before each probe
 * (a kernel's dirty upper vector state must not slow the SSE probe). */
const struct harness_clock *harness_clock_real(void);

/* What a kernel's repetitions gave. */
struct harness_samples {
	unsigned n, n_clean;
	unsigned taken;	      /* repetitions timed, n of them kept */
	double *cycles;	      /* per kernel iteration, each repetition; owned */
	unsigned char *clean; /* owned */
	double tpc_sum;	      /* ticks per cycle, summed over the repetitions */
};
void harness_samples_done(struct harness_samples *s);

struct harness_session;

/* cfg and clock must outlive the session; clock NULL: the real one. */
struct harness_session *harness_session_new(const struct harness_config *cfg,
					    const struct harness_clock *clock);
void harness_session_delete(struct harness_session *s);
/* Find the clock and, without references from earlier runs, the probes'
 * best speeds. */
void harness_session_warm_up(struct harness_session *s);
/* Time fn until cfg->measures clean repetitions agree (or the budget is
 * spent). */
void harness_session_measure(struct harness_session *s, harness_kernel_fn fn,
			     const struct harness_job *job, void *read, void *write,
			     struct harness_samples *out);
/* Whether the cycles come from PAPI's counter. */
int harness_session_papi(const struct harness_session *s);
/* The probes' best cycles per instruction so far (PROBE_COUNT values). */
const double *harness_session_best(const struct harness_session *s);
/* Bit k set: probe k's reference (the hint or a best) was out of reach and
 * replaced by the speed it runs at (see rebase in harness_measure.c): the
 * reference kept across runs must be replaced too, not merely lowered. */
unsigned harness_session_replaced(const struct harness_session *s);

#endif

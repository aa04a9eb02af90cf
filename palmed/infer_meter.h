/* Measuring lists of kernels for the inference: in slices of about half a
 * second, so that a stop request (Ctrl-C) is honoured between two slices
 * instead of at the end of a long campaign, with a progress line that says
 * how far the stage is and about how long the whole build still needs. */
#ifndef PERPI_INFER_METER_H
#define PERPI_INFER_METER_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "palmed/measure.h"

struct infer_meter {
	const struct measure *ms;
	const volatile sig_atomic_t *stop;     /* NULL: never */
	FILE *progress;			       /* NULL: quiet */
	int tty;			       /* progress is a terminal: lines update in place */
	double seconds_per_kernel;	       /* over about the last 2000 kernels measured */
	double recent_seconds, recent_kernels; /* their time and count, decayed */
	unsigned long kernels;		       /* measured (or answered by a cache) so far */
	unsigned long planned;		       /* kernels the stages still to come expect */
	double last_line;		       /* when the progress line was last written */
	int line_open;			       /* a progress line is on screen, unfinished */
	char label[128];		       /* what is being measured, for the progress line */
	/* Kernels the host disturbed throughout (no undisturbed repetition:
	 * a busy sibling thread or another guest) are measured again once it
	 * is calm, waiting for it at most busy_wait seconds in all (0: not at
	 * all); busy_waited so far. */
	double busy_wait, busy_waited;
	/* The host's share of the repetitions lately (infer_meter_host) */
	unsigned long reps_seen, clean_seen;
	char host[112];
};

void infer_meter_init(struct infer_meter *mt, const struct measure *ms,
		      const volatile sig_atomic_t *stop, FILE *progress);

/* What the progress line says of the host: over the repetitions timed
 * since the last look (at least INFER_METER_HOST_REPS of them, else the
 * last word stands), "; the host disturbed N% of repetitions" when it
 * disturbed more than half (a busy sibling thread, another guest), else
 * "". Returns mt->host. */
#define INFER_METER_HOST_REPS 2000
const char *infer_meter_host(struct infer_meter *mt);

/* Whether a stop was requested. */
int infer_meter_stopped(const struct infer_meter *mt);

/* What the progress line says is being done ("pairs 12/125, 30 resources"),
 * shown at once on a terminal. */
void infer_meter_label(struct infer_meter *mt, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A line that stays (a stage's summary): on a terminal it replaces the
 * progress line; in a log it is the only kind written. */
void infer_meter_note(struct infer_meter *mt, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The cycles of ks[0..n): status[i] 0 with cycles[i] set, or -1 with
 * errors[i] a malloc'd reason (the caller frees it). After a stop request
 * the kernels not measured yet get status -1 and the reason "interrupted".
 * Returns the number of kernels measured. */
size_t infer_meter_run(struct infer_meter *mt, const struct kernel *ks, size_t n, double *cycles,
		       int *status, char **errors);
/* The same, taking kernels that run only beside helper instructions:
 * helpers[i] then names them (palmed/measure.h's cycles_many; NULL when
 * none ran; the caller frees them). A machine without cycles_many runs
 * none. */
size_t infer_meter_run_helpers(struct infer_meter *mt, const struct kernel *ks, size_t n,
			       double *cycles, int *status, char **errors, char **helpers);

/* "about 3 min left" for remaining kernels at the rate seen so far, into
 * buf; empty until a rate is known. */
void infer_meter_eta(const struct infer_meter *mt, unsigned long remaining, char *buf, size_t size);

#endif

/* perpi measure's work as other commands use it: perpi record --measure
 * times the program natively before it traces it. */
#ifndef PERPI_CMD_MEASURE_H
#define PERPI_CMD_MEASURE_H

#include <stddef.h>
#include <stdio.h>

#include "ilp/measured.h"
#include "tracer/measure.h"

#define MEASURE_DEFAULT_RUNS 4

/* What a series of native runs gave. */
struct measure_outcome {
	struct measured *summary; /* NULL when nothing could be timed */
	char **problems;	  /* what went wrong, one line each (also on stderr) */
	size_t n_problems;
	int status; /* the exit status perpi measure returns for it */
	/* The ALU throughput probe, cycles per add: its best on this machine
	 * (perpi bench's reference; 0 if unknown) and its slowest after a run,
	 * and in how many runs it was more than MEASURE_SLOWED slower. */
	double probe_best, probe_worst;
	/* The window probe after each run (timing_window_ratio): its largest,
	 * and in how many runs the window was split (above
	 * TIMING_WINDOW_SPLIT: a busy sibling thread, latency-bound code
	 * slowed); those runs count as slowed too. */
	double window_worst;
	unsigned split_runs;
	unsigned slowed_runs;
};

/* A run after which the probe ran this much slower than its best: the
 * core was shared (another hardware thread or VM), its figures high. */
#define MEASURE_SLOWED 1.10

/* Run argv[0] runs times under perpi measure's stubs (SIGINT and SIGTERM
 * stop the run in progress), calibrating the TSC in perpi's process
 * before and after each run, and summarize. Messages go to stderr as
 * "perpi WHO: ...". Fills out; returns out->status: 0 when every run
 * ended normally and everything asked for was timed; the program's exit
 * status, 128+N when signal N killed it, 130 when interrupted, 1 when a
 * function was never called or a region never ended, 127 when the
 * program cannot be run, 2 for a bad option. */
int measure_collect(const char *who, const struct measure_options *opt, char *const argv[],
		    unsigned runs, struct measure_outcome *out);
void measure_outcome_done(struct measure_outcome *out);

/* The figures of n runs (cmd/measure_summary.c), ticks converted by
 * ticks_per_cycle; the caller's to free (measured_free). */
struct measured *measure_summarize(const struct measure_session *s, const struct measure_run *runs,
				   size_t n, double ticks_per_cycle, unsigned runs_asked);

/* The figures as text or JSON (perpi measure's output, and perpi measure
 * -i FILE for what perpi record --measure kept). program: the command
 * line measured, for the heading. */
void measure_print_text(FILE *out, const struct measured *m, const char *program,
			const struct measure_outcome *outcome);
void measure_print_json(FILE *out, const struct measured *m, const char *program,
			const struct measure_outcome *outcome);

#endif

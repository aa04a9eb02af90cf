/* The analysis behind `perpi report` (a recorded run) and the live
 * `perpi PROGRAM`: the options' pipeline (ilp/filter.h) with the Palmed
 * blocks beside it, and the report written as text or JSON. The same code
 * for both, so that a replay prints the live run's figures. */
#ifndef PERPI_CMD_ANALYSIS_H
#define PERPI_CMD_ANALYSIS_H

#include <stdio.h>

#include "cmd/options.h"
#include "ilp/filter.h"
#include "ilp/report.h"
#include "palmed/lift_report.h"

struct analysis {
	const struct cmd_args *args;
	struct lift_report *lr;
	struct filter_observer blocks; /* the lift's observer */
	int lifted;		       /* blocks collected: a model, --blocks or --json */
	struct filter_result result;
	uint64_t events; /* events fed (live runs) */
	struct filter *filter;
};

/* Loads the model (-1 with perpi_error() when --model's is missing or bad). */
int analysis_open(struct analysis *an, const struct cmd_args *a);
void analysis_close(struct analysis *an);

/* A live run: analysis_event is the tracer's sink (an = ctx) between
 * analysis_start and analysis_finish (-1 with perpi_error()). */
void analysis_start(struct analysis *an, const struct insn_namer *namer);
int analysis_event(void *an, const struct perpi_event *ev);
int analysis_finish(struct analysis *an);

/* A recorded run: replays a->filter.input; *reader for the names (the
 * caller closes it). -1 with perpi_error(). */
int analysis_replay(struct analysis *an, struct trace_reader **reader);

/* How the names of the report are found. */
struct analysis_names {
	report_name_fn function; /* of a function's entry */
	void *ctx;
	struct insn_namer namer; /* of an instruction (blocks) */
};

/* The report, text (with the "#" header lines when header is set) or
 * --json. 0, or -1 with perpi_error(). */
int analysis_write(FILE *out, struct analysis *an, const struct analysis_names *names, int header);

#endif

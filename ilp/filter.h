/* The analysis pipeline every report shares: the filters (--function,
 * --call, --steps, --only) and the machine's constraints (--window,
 * --width, --stack-engine, a latency callback), applied the same way to
 * the events of a recorded run (perpi report, hist, graph, critical) and
 * of a live one (perpi PROGRAM). The options are parsed in cmd/options.c. */
#ifndef PERPI_FILTER_H
#define PERPI_FILTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ilp/engine.h"
#include "ilp/trace_file.h"

/* Names of a static instruction: its function (and offset in it), its
 * source line. Either callback may be NULL. */
struct insn_namer {
	const char *(*function)(void *ctx, const struct perpi_insn *insn, uint64_t *offset);
	int (*source_line)(void *ctx, const struct perpi_insn *insn, const char **file,
			   unsigned *line);
	void *ctx;
};

struct filter_options {
	const char *input;    /* -i FILE, default perpi.data */
	const char *function; /* --function SYM: its call instances, isolated */
	uint64_t call;	      /* --call N: only the N-th instance (1-based); 0: all */
	uint64_t step_first;  /* --steps A:B; 0 and UINT64_MAX when not given */
	uint64_t step_last;
	const char *latency; /* --latency FILE: its name, for the headers; the
			      * caller sets engine.latency to the table */
	struct engine_options engine;
};

void filter_options_init(struct filter_options *o);

/* Parses "load,fp" into a class mask; -1 with perpi_error() if unknown. */
int filter_parse_classes(const char *list, unsigned *mask);
/* Parses --steps' "A:B", "A:" or ":B" into o; -1 with perpi_error(). */
int filter_parse_steps(struct filter_options *o, const char *s);

struct filter_observer {
	engine_observer_fn fn;
	void *ctx;
	int want_deps;
};

/* What a run of the pipeline measured. With --function, the figures add
 * up the instances (DESIGN.md, per-function analysis), and the steps of
 * instance k follow those of instance k-1 for the observers. With --steps,
 * totals count the instructions whose step is in A..B, and steps = the
 * number of steps of A..B the run reached. */
struct filter_result {
	struct engine_totals totals;
	struct engine_function *functions; /* owned: free() */
	size_t n_functions;
	uint64_t instances; /* call instances analysed (--function) */
	uint64_t run_steps; /* C before --steps was applied */
	struct trace_end end;
	struct engine *engine;		     /* without --function: the run's engine, finished */
	size_t latency_unlisted;	     /* set by the caller: for the --latency header */
	const struct trace_meta_entry *meta; /* the run's metadata (the trace reader's, or
					      * the caller's for a live run) */
	size_t n_meta;
};

/* The pipeline over events from any source. The observers see the counted
 * instructions in the step range, with the run's step and index numbering,
 * and the free ones with step 0. namer names the entries for --function
 * (it may be NULL without --function). o, obs and namer must outlive the
 * pipeline; *out is filled by filter_finish. */
struct filter;
struct filter *filter_new(const struct filter_options *o, const struct filter_observer *obs,
			  size_t n_obs, const struct insn_namer *namer, struct filter_result *out);
/* A perpi_event_fn: the tracer's or the trace reader's sink. */
int filter_event(void *filter, const struct perpi_event *ev);
/* Closes the open region, frees the pipeline and checks the result: -1
 * with perpi_error() on an unknown function, an empty step range...
 * (*out is then still to be freed by filter_result_done). */
int filter_finish(struct filter *filter);

/* Opens o->input and replays it through the pipeline. On success the reader
 * is returned in *reader (for names and metadata; the caller closes it).
 * -1 with perpi_error() on a bad file, an unknown function, an empty step
 * range... */
int filter_run(const struct filter_options *o, const struct filter_observer *obs, size_t n_obs,
	       struct filter_result *out, struct trace_reader **reader);
void filter_result_done(struct filter_result *res);

/* A namer that reads the names recorded in the trace file. */
struct insn_namer filter_trace_namer(struct trace_reader *reader);

/* "Sum2", "Sum2+0x1c", or "0x401540" when no symbol is known. Static buffer. */
const char *filter_describe_addr(const struct insn_namer *namer, const struct perpi_insn *insn,
				 uint64_t addr);

/* A report_name_fn over a trace reader (ctx): "Sum2", "Sum2+0x1c"... */
const char *filter_function_name(void *reader, uint64_t addr);

/* "# FILE: PROGRAM ARGS", how it was recorded and ended, and the filters
 * in force: the comment lines every analysis's text output starts with. */
void filter_write_header(FILE *out, const struct filter_options *o, const struct filter_result *r);

#endif

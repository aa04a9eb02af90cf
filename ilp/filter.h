/* The options and the replay pipeline every analysis shares: the input
 * file, the filters (--function, --call, --steps, --only) and the machine's
 * constraints (--window, --width, --stack-engine), applied the same way for
 * perpi report, hist, graph and critical (perpi-report(1)). */
#ifndef PERPI_FILTER_H
#define PERPI_FILTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ilp/engine.h"
#include "ilp/latency.h"
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
	const char *latency; /* --latency FILE: steps per instruction form */
	struct engine_options engine;
};

void filter_options_init(struct filter_options *o);

/* If argv[*i] is a shared option, consumes it (and its value, advancing
 * *i) and returns 1; 0 if it is not one; -1 with perpi_error() if its value
 * is bad. */
int filter_parse_option(struct filter_options *o, int argc, char **argv, int *i);
/* The shared options' lines for a command's --help. */
extern const char filter_usage[];

/* Parses "load,fp" into a class mask; -1 with perpi_error() if unknown. */
int filter_parse_classes(const char *list, unsigned *mask);

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
	struct latency_table *latency;	     /* --latency's table (owned) */
	const struct trace_meta_entry *meta; /* valid until trace_reader_close */
	size_t n_meta;
};

/* Opens o->input and replays it through the filters into the engine and
 * the observers (which see the counted instructions in the step range,
 * with the run's step and index numbering, and the free ones with step 0). On success the reader
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

/* Parses a command's argv[1..]: the shared options, then the command's own
 * (own returns 1 when it took argv[*i], 0 if unknown, -1 on error). Prints
 * "perpi COMMAND: ..." and returns -1 on a bad argument. */
int filter_parse_args(struct filter_options *o, int argc, char **argv,
		      int (*own)(void *ctx, int argc, char **argv, int *i), void *ctx,
		      const char *command);

#endif

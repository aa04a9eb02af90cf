/* perpi record: run a program under the tracer and write every event to
 * perpi.data (perpi.data(5)), with the names and source lines of the
 * instructions it ran, for perpi report/hist/graph/critical to replay. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/commands.h"
#include "cmd/live.h"
#include "cmd/measure.h"
#include "cmd/options.h"
#include "common/util.h"
#include "ilp/srcline.h"
#include "ilp/trace_file.h"
#include "tracer/symbols.h"
#include "tracer/trace.h"

static const struct cmd_info info = {
    CMD_RECORD, "perpi record",
    "usage: perpi record [-o FILE] [OPTIONS] [--] PROGRAM [ARGS...]\n"
    "       perpi record [-o FILE] -p PID [OPTIONS]\n"
    "Trace PROGRAM and write its instructions, with their names and source\n"
    "lines, to perpi.data for 'perpi report', 'hist', 'graph' and 'critical'.\n\n",
    "perpi record exits with the program's status (128+N when signal N killed it).\n"};

struct record {
	const struct cmd_args *args;
	struct tracer *tracer;
	struct srcline *lines; /* the program's, or NULL */
};

static const char *record_function(void *ctx, uint64_t addr, uint64_t *offset)
{
	struct record *r = ctx;
	struct symbolizer *sym = tracer_symbols(r->tracer);
	return sym ? symbolizer_function(sym, addr, offset) : NULL;
}

static int record_line(void *ctx, uint64_t addr, const char **file, unsigned *line)
{
	struct record *r = ctx;
	uint64_t offset;
	if (!r->lines)
		return -1;
	const char *fn = record_function(r, addr, &offset);
	if (!fn || strchr(fn, '@')) /* a shared object's: its lines are not read */
		return -1;
	return srcline_lookup(r->lines, fn, offset, file, line);
}

static struct trace_writer *open_writer(struct record *r, char **argv,
					const struct measured *measured)
{
	struct live_meta meta;
	live_meta_init(&meta, r->args, argv);
	r->lines = srcline_open(meta.program);
	if (!r->lines)
		perpi_warn("no source lines in the trace: %s", perpi_error());
	live_meta_add(&meta, "lines", r->lines ? "libdw" : "none");
	const struct trace_symbolizer sym = {record_function, record_line, r};
	struct trace_writer *w =
	    trace_writer_open_measured(r->args->output, meta.entries, meta.n, &sym, measured);
	live_meta_done(&meta);
	return w;
}

/* --measure: the native runs, before the traced one (perpi measure's
 * work); 0 to go on and trace, else the exit status. */
static int record_measure(struct record *r, char **argv, struct measure_outcome *o)
{
	const struct trace_options *t = &r->args->trace;
	if (t->pid)
		return fprintf(stderr, "perpi record: --measure: times a program perpi starts, not "
				       "one attached to with -p\n"),
		       2;
	struct measure_options mo = {
	    t->functions, t->n_functions, t->start, t->stop, MEASURE_AUTO, 0, t->cpu};
	int status = measure_collect("record", &mo, argv + r->args->program, r->args->measure, o);
	if (!o->summary)
		return status;
	if (status == 130) { /* Ctrl-C: what was timed, and no trace */
		measure_print_text(stderr, o->summary, argv[r->args->program], o);
		fprintf(stderr, "perpi record: interrupted while measuring: nothing recorded\n");
		return status;
	}
	return 0;
}

static int record_run(struct record *r, char **argv)
{
	const char *output = r->args->output;
	struct measure_outcome measured = {0};
	if (r->args->measure) {
		int status = record_measure(r, argv, &measured);
		if (status) {
			measure_outcome_done(&measured);
			return status;
		}
	}
	struct trace_writer *w = open_writer(r, argv, measured.summary);
	measure_outcome_done(&measured);
	if (!w) {
		fprintf(stderr, "perpi record: %s\n", perpi_error());
		return 2;
	}
	struct trace_result res;
	r->tracer = tracer_new(&r->args->trace, trace_writer_event, w);
	if (tracer_start(r->tracer, argv + r->args->program) < 0) {
		fprintf(stderr, "perpi record: %s\n", perpi_error());
		trace_writer_abort(w);
		remove(output);
		return 127;
	}
	if (tracer_run(r->tracer, &res) < 0) {
		fprintf(stderr, "perpi record: tracing: %s\n", perpi_error());
		res.status = 1;
		res.interrupted = 1;
	}
	struct trace_end end = live_end(&res);
	if (trace_writer_close(w, &end) < 0) {
		fprintf(stderr, "perpi record: %s\n", perpi_error());
		return 1;
	}
	struct stat st;
	if (!perpi_quiet && stat(output, &st) == 0)
		fprintf(stderr, "perpi record: %llu instructions written to %s (%lld bytes); %s\n",
			(unsigned long long)res.steps, output, (long long)st.st_size,
			trace_end_describe(&end));
	return res.status;
}

static int record(struct cmd_args *a, char **argv)
{
	struct record r = {a, NULL, NULL};
	int rc = record_run(&r, argv);
	if (r.tracer)
		tracer_delete(r.tracer);
	srcline_close(r.lines);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	return cmd_main(&info, argc, argv, record);
}

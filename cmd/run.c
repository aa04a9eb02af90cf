/* perpi [run] [OPTIONS] PROGRAM [ARGS...]: run a program under the tracer,
 * feed the analysis `perpi report` replays (cmd/analysis.h), report per
 * function like PerPI. The program keeps its stdout; the report goes to
 * stderr or -o FILE, and perpi exits with the program's status (128+signal
 * when killed). */
#include <stdio.h>
#include <string.h>

#include "cmd/analysis.h"
#include "cmd/commands.h"
#include "cmd/live.h"
#include "cmd/options.h"
#include "common/util.h"
#include "config.h"

static const struct cmd_info info = {
    CMD_RUN, "perpi",
    "usage: perpi [OPTIONS] PROGRAM [ARGS...]\n"
    "       perpi -p PID [OPTIONS]\n"
    "Run PROGRAM under perpi's tracer and report, for every function it calls,\n"
    "the instructions (I), ideal-machine steps (C) and ILP = I/C, as PerPI does.\n"
    "The report is what 'perpi report' prints for a recording, minus its # lines.\n\n",
    "perpi exits with the program's status (128+N when signal N killed it).\n"
    "'man perpi' tells more.\n"};

/* The report of a run that tracer_run completed. */
static int report(FILE *out, struct analysis *an, struct tracer **t, const struct trace_result *res,
		  char **argv)
{
	struct live_meta meta;
	int rc = 0;
	if (analysis_finish(an) < 0) {
		fprintf(stderr, "perpi: %s\n", perpi_error());
		return -1;
	}
	live_meta_init(&meta, an->args, argv);
	live_meta_add(&meta, "perpi_version", PACKAGE_VERSION);
	an->result.meta = meta.entries;
	an->result.n_meta = meta.n;
	an->result.end = live_end(res);
	an->result.end.events = an->events;
	struct analysis_names names = {live_function_name, t, live_namer(t)};
	/* No "#" header: the live report is the replay's minus its comment
	 * lines, and no hint when there is no model: perpi report gives it. */
	if (analysis_write(out, an, &names, 0) < 0) {
		fprintf(stderr, "perpi: writing the report: %s\n", perpi_error());
		rc = -1;
	}
	live_meta_done(&meta);
	an->result.meta = NULL;
	an->result.n_meta = 0;
	return rc;
}

static int trace(const struct cmd_args *a, struct analysis *an, FILE *out, char **argv)
{
	struct tracer *t = NULL;
	struct insn_namer namer = live_namer(&t);
	struct trace_result res;
	int status = 127;
	const char *program = a->trace.pid ? "process" : argv[a->program];
	analysis_start(an, &namer);
	t = tracer_new(&a->trace, analysis_event, an);
	if (tracer_start(t, argv + a->program) < 0) {
		fprintf(stderr, "perpi: %s\n", perpi_error());
	} else if (tracer_run(t, &res) < 0) {
		fprintf(stderr, "perpi: tracing %s: %s\n", program, perpi_error());
		status = 1;
	} else {
		live_explain_end(program, &res);
		status = report(out, an, &t, &res, argv) < 0 ? 1 : res.status;
	}
	if (an->filter)
		analysis_finish(an);
	tracer_delete(t);
	return status;
}

static int run(struct cmd_args *a, char **argv)
{
	struct analysis an;
	FILE *out = a->output ? cmd_open_output(a) : stderr;
	int status = 2;
	if (!out)
		return 2;
	if (analysis_open(&an, a) < 0)
		fprintf(stderr, "perpi: %s\n", perpi_error());
	else
		status = trace(a, &an, out, argv);
	analysis_close(&an);
	if (out != stderr)
		cmd_close_output(a, out);
	return status;
}

int cmd_run(int argc, char **argv)
{
	return cmd_main(&info, argc, argv, run);
}

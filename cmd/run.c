/* perpi [run] [OPTIONS] PROGRAM [ARGS...]: run a program under the tracer,
 * feed the ideal-machine engine, report per function like PerPI. The
 * program keeps its stdout; the report goes to stderr or -o FILE, and
 * perpi exits with the program's status (128+signal when killed). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cmd/commands.h"
#include "common/util.h"
#include "ilp/engine.h"
#include "ilp/report.h"
#include "palmed/lift_report.h"
#include "tracer/options.h"
#include "tracer/symbols.h"
#include "tracer/trace.h"

struct run_options {
	struct trace_options trace;
	struct engine_options engine;
	const char *output; /* -o FILE; NULL: stderr */
	const char *model;  /* --model FILE; NULL: the default model, if any */
	int program;	    /* index of PROGRAM in argv */
};

static void run_usage(FILE *out)
{
	fputs("usage: perpi [OPTIONS] PROGRAM [ARGS...]\n"
	      "       perpi -p PID [OPTIONS]\n"
	      "Run PROGRAM under perpi's tracer and report, for every function it calls,\n"
	      "the instructions (I), ideal-machine steps (C) and ILP = I/C, as PerPI does.\n\n"
	      "  -o FILE            write the report to FILE instead of stderr\n"
	      "  -q                 no warnings\n"
	      "  --stack-engine     implicit RSP updates of push/pop/call/ret are free\n"
	      "  --model FILE       Palmed model for the resource-bound columns (default:\n"
	      "                     $XDG_DATA_HOME/perpi/model.json, when present)\n"
	      "  -h, --help         this help;  --version  perpi's version\n",
	      out);
	trace_options_usage(out);
	fputs("\nperpi exits with the program's status (128+N when signal N killed it).\n"
	      "'man perpi' tells more.\n",
	      out);
}

/* 1: parsed; 0: --help/--version printed; -1: bad options (message set). */
static int run_parse(int argc, char **argv, struct run_options *ro)
{
	int i = 1;
	while (i < argc && argv[i][0] == '-') {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			run_usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--version")) {
			printf("perpi %s\n", PACKAGE_VERSION);
			return 0;
		}
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			perpi_quiet = 1;
			i++;
		} else if (!strcmp(a, "--stack-engine")) {
			ro->engine.stack_engine = 1;
			i++;
		} else if (!strcmp(a, "--model") || !strncmp(a, "--model=", 8)) {
			if (a[7] == '=') {
				ro->model = a + 8;
				i++;
			} else {
				if (i + 1 >= argc)
					return perpi_set_error("%s: needs a file name", a);
				ro->model = argv[i + 1];
				i += 2;
			}
		} else if (!strcmp(a, "-o") || !strncmp(a, "--output=", 9) ||
			   !strcmp(a, "--output")) {
			if (a[2] == 0 || !strcmp(a, "--output")) {
				if (i + 1 >= argc)
					return perpi_set_error("%s: needs a file name", a);
				ro->output = argv[i + 1];
				i += 2;
			} else {
				ro->output = a + 9;
				i++;
			}
		} else {
			int r = trace_options_parse(&ro->trace, argc, argv, &i);
			if (r < 0)
				return -1;
			if (r == 0)
				return perpi_set_error(
				    "%s: unknown option (perpi --help lists them)", a);
		}
	}
	ro->program = i;
	if (trace_options_check(&ro->trace, i < argc) < 0)
		return -1;
	return 1;
}

static void run_explain_end(const char *program, const struct trace_result *res)
{
	if (res->interrupted)
		perpi_warn("tracing stopped early (signal or --duration): the report covers the "
			   "%llu instructions traced until then",
			   (unsigned long long)res->steps);
	else if (res->execed)
		perpi_warn("%s called execve: the report covers what ran before", program);
	else if (res->term_signal)
		perpi_warn("%s killed by signal %d (%s)", program, res->term_signal,
			   strsignal(res->term_signal));
	if (!res->steps && !res->execed && !res->interrupted)
		perpi_warn("%s: nothing was traced (the region of interest never ran)", program);
}

/* The tracer's sink: the engine, and the blocks when a model bounds them. */
struct run_sinks {
	struct engine *engine;
	struct lift_report *lift;
};

static int run_event(void *ctx, const struct perpi_event *ev)
{
	struct run_sinks *s = ctx;
	if (s->lift->model)
		lift_report_event(s->lift, ev);
	return engine_event(s->engine, ev);
}

int cmd_run(int argc, char **argv)
{
	struct run_options ro;
	memset(&ro, 0, sizeof(ro));
	trace_options_init(&ro.trace);
	int r = run_parse(argc, argv, &ro);
	if (r <= 0) {
		if (r < 0)
			fprintf(stderr, "perpi: %s\n", perpi_error());
		trace_options_done(&ro.trace);
		return r < 0 ? 2 : 0;
	}
	FILE *out = stderr;
	if (ro.output && !(out = fopen(ro.output, "w"))) {
		fprintf(stderr, "perpi: -o %s: %s\n", ro.output, strerror(errno));
		trace_options_done(&ro.trace);
		return 2;
	}
	struct lift_report *lift;
	if (lift_report_new(ro.model, &lift) < 0) {
		fprintf(stderr, "perpi: --model %s: %s\n", ro.model, perpi_error());
		if (out != stderr)
			fclose(out);
		trace_options_done(&ro.trace);
		return 2;
	}
	struct engine *engine = engine_new(&ro.engine);
	struct run_sinks sinks = {engine, lift};
	struct tracer *t = tracer_new(&ro.trace, run_event, &sinks);
	struct trace_result res;
	int status = 127;
	const char *program = ro.trace.pid ? "process" : argv[ro.program];
	if (tracer_start(t, argv + ro.program) < 0) {
		fprintf(stderr, "perpi: %s\n", perpi_error());
	} else if (tracer_run(t, &res) < 0) {
		fprintf(stderr, "perpi: tracing %s: %s\n", program, perpi_error());
		status = 1;
	} else {
		run_explain_end(program, &res);
		engine_finish(engine);
		lift_report_finish(lift);
		struct report_extra x = {lift_report_columns, lift};
		/* No "#" header here: the live report stays the replay's minus
		 * its comment lines. */
		/* No hint when there is no model: the live report is PerPI's
		 * table; perpi report says how to get the columns. */
		if (report_text_extra(out, engine, symbolizer_name_fn, tracer_symbols(t),
				      lift->lift ? &x : NULL) < 0)
			fprintf(stderr, "perpi: writing the report: %s\n", perpi_error());
		status = res.status;
	}
	if (out != stderr && fclose(out) != 0)
		fprintf(stderr, "perpi: -o %s: %s\n", ro.output, strerror(errno));
	tracer_delete(t);
	engine_delete(engine);
	lift_report_delete(lift);
	trace_options_done(&ro.trace);
	return status;
}

/* The option table of run, record, report, hist, graph, critical and tui,
 * its parser and its --help writer (cmd/options.h). */
#include "cmd/options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/measure.h"
#include "common/util.h"
#include "config.h"
#include "ilp/graph.h"
#include "ilp/trace_file.h"
#include "palmed/latency.h"

#define ARGS(field) offsetof(struct cmd_args, field), sizeof(((struct cmd_args *)0)->field)
#define FLAG(field) OPT_FLAG, ARGS(field), 0, 0, NULL
#define STRING(field) OPT_STRING, ARGS(field), 0, 0, NULL
#define NUMBER(field, min, max) OPT_NUMBER, ARGS(field), min, max, NULL
#define CALL(fn) OPT_CALL, 0, 0, 0, 0, fn
#define HEADING(commands, text)                                                                    \
	{                                                                                          \
		NULL, NULL, NULL, commands, OPT_FLAG, 0, 0, 0, 0, NULL, text                       \
	}

/* What a set() returns to stop parsing with exit status 0 (--version). */
#define PRINTED 1

static int set_quiet(struct cmd_args *a, const char *v)
{
	perpi_quiet = 1;
	return 0;
}

static int set_version(struct cmd_args *a, const char *v)
{
	printf("perpi %s\n", PACKAGE_VERSION);
	return PRINTED;
}

static int set_measure(struct cmd_args *a, const char *v)
{
	char *end;
	long n = v ? strtol(v, &end, 10) : MEASURE_DEFAULT_RUNS;
	if (v && (!*v || *end || n < 1 || n > 10000))
		return perpi_set_error("--measure=N: '%s' is not a number of runs (1 to 10000)", v);
	a->measure = (unsigned)n;
	return 0;
}

static int set_blocks(struct cmd_args *a, const char *v)
{
	char *end;
	a->blocks = v ? strtol(v, &end, 10) : 20;
	if (v && (!*v || *end || a->blocks < 1))
		return perpi_set_error("--blocks=N: '%s' is not a positive count", v);
	return 0;
}

static int set_colour(struct cmd_args *a, const char *v)
{
	a->colour = 1;
	return 0;
}

static int set_no_colour(struct cmd_args *a, const char *v)
{
	a->colour = 0;
	return 0;
}

static int set_steps(struct cmd_args *a, const char *v)
{
	return filter_parse_steps(&a->filter, v);
}

static int set_only(struct cmd_args *a, const char *v)
{
	return filter_parse_classes(v, &a->filter.engine.class_mask);
}

static int set_trace_function(struct cmd_args *a, const char *v)
{
	struct trace_options *t = &a->trace;
	t->functions = xrealloc(t->functions, (t->n_functions + 1) * sizeof(*t->functions));
	t->functions[t->n_functions++] = (char *)v;
	return 0;
}

static int set_duration(struct cmd_args *a, const char *v)
{
	char *end;
	double d = strtod(v, &end);
	if (end == v || *end || !(d > 0) || d > 1e7)
		return perpi_set_error("--duration %s: not a positive number of seconds", v);
	a->trace.duration = d;
	return 0;
}

/* The order of the help. Two entries may share a name if no command takes
 * both (-o says something else to each command). */
const struct cmd_option cmd_options[] = {
    {"--output", "-o", "FILE", CMD_RUN, STRING(output),
     "write the report to FILE instead of standard error"},
    {"--output", "-o", "FILE", CMD_RECORD, STRING(output), "write FILE instead of perpi.data"},
    {"--measure", NULL, "[=N]", CMD_RECORD, CALL(set_measure),
     "first time the program natively N times (4) as 'perpi\n"
     "measure' does, and keep the figures in the file"},
    {"--output", "-o", "FILE", CMD_REPORT | CMD_HIST | CMD_CRITICAL, STRING(output),
     "write to FILE instead of standard output"},
    {"--output", "-o", "FILE.dot", CMD_GRAPH, STRING(output),
     "the dot file to write ('-': standard output)"},
    {"--input", "-i", "FILE", CMD_REPLAY | CMD_TUI, STRING(filter.input),
     "read FILE instead of perpi.data"},
    {"--json", NULL, NULL, CMD_RUN | CMD_REPORT, FLAG(json),
     "a JSON document (schema in perpi-report(1))"},
    {"--model", NULL, "FILE", CMD_RUN | CMD_REPORT | CMD_TUI, STRING(model),
     "the Palmed model for the resource-bound columns\n"
     "(default: $XDG_DATA_HOME/perpi/model.json, when present)"},
    {"--blocks", NULL, "[=N]", CMD_REPORT, CALL(set_blocks),
     "also the N basic blocks (20) with the most cycles"},
    {"--csv", NULL, "FILE", CMD_HIST, STRING(csv), "one row per bin: steps and per-class counts"},
    {"--svg", NULL, "FILE", CMD_HIST, STRING(svg), "a stacked bar chart"},
    {"--bins", NULL, "N", CMD_HIST, NUMBER(bins, 1, 10000000),
     "at most N bins (default: 40 in the terminal, one per\n"
     "step in CSV, 300 in SVG); sums per bin are exact"},
    {"--color", NULL, NULL, CMD_HIST, CALL(set_colour), "colour the terminal bars"},
    {"--no-color", NULL, NULL, CMD_HIST, CALL(set_no_colour), "do not colour them"},
    {"--max-nodes", NULL, "N", CMD_GRAPH, NUMBER(max_nodes, 1, UINT64_MAX),
     "allow more nodes than the default limit"},
    {"--quiet", "-q", NULL, CMD_ENGINE | CMD_RECORD, CALL(set_quiet), "no warnings"},
    {"--version", NULL, NULL, CMD_RUN, CALL(set_version), "perpi's version"},

    HEADING(CMD_ENGINE, "What is analysed, on which machine (perpi-report(1), FILTERS):"),
    {"--function", NULL, "SYM", CMD_REPLAY, STRING(filter.function),
     "analyse SYM's call instances, each in isolation"},
    {"--call", NULL, "N", CMD_REPLAY, NUMBER(filter.call, 1, UINT64_MAX),
     "only SYM's N-th call instance (with --function)"},
    {"--steps", NULL, "A:B", CMD_ANALYSE, CALL(set_steps),
     "only the instructions at steps A to B (A: or :B open)"},
    {"--only", NULL, "CLASS,...", CMD_ENGINE, CALL(set_only),
     "only these classes count and take steps (load, store,\n"
     "int, fp, vec, move, branch, other); the others are free"},
    {"--window", NULL, "W", CMD_ENGINE, NUMBER(filter.engine.window, 1, UINT32_MAX),
     "an instruction cannot run before the one W earlier"},
    {"--width", NULL, "N", CMD_ENGINE, NUMBER(filter.engine.width, 1, UINT32_MAX),
     "at most N instructions per step"},
    {"--latency", NULL, "FILE", CMD_ENGINE, STRING(filter.latency),
     "steps per instruction form ('FORM STEPS' lines, e.g.\n"
     "'ADDSD_XMM_XMM 4'); forms not listed take 1"},
    {"--stack-engine", NULL, NULL, CMD_ENGINE, FLAG(filter.engine.stack_engine),
     "implicit RSP updates of push/pop/call/ret are free"},

    HEADING(CMD_TRACE,
	    "What to trace (default: main, or between perpi_start() and perpi_stop()\n"
	    "when the program calls them; the entry point of a program without symbols):"),
    {"--function", NULL, "SYM", CMD_TRACE, CALL(set_trace_function),
     "trace only inside calls of SYM (repeatable)"},
    {"--start", NULL, "SYM|ADDR", CMD_TRACE, STRING(trace.start), "start tracing there"},
    {"--stop", NULL, "SYM|ADDR", CMD_TRACE, STRING(trace.stop),
     "stop tracing there (tracing resumes at the next start)"},
    {"--all", NULL, NULL, CMD_TRACE, FLAG(trace.all),
     "trace from the first instruction, the loader included"},
    {"--pid", "-p", "PID", CMD_RUN | CMD_RECORD, NUMBER(trace.pid, 1, 1 << 30),
     "attach to a running process (until Ctrl-C or --duration)"},
    {"--duration", NULL, "SECS", CMD_TRACE, CALL(set_duration), "stop tracing after SECS seconds"},
    {"--cpu", NULL, "N", CMD_TRACE, NUMBER(trace.cpu, 0, 4095),
     "run perpi and the program on CPU N (default: the current)"},
    {NULL, NULL, NULL, 0, OPT_FLAG, 0, 0, 0, 0, NULL, NULL},
};

void cmd_args_init(struct cmd_args *a, const struct cmd_info *info)
{
	memset(a, 0, sizeof(*a));
	a->command = info->id;
	a->name = info->name;
	trace_options_init(&a->trace);
	filter_options_init(&a->filter);
	a->colour = -1;
	if (a->command & CMD_RUN)
		a->filter.input = NULL; /* a live run: no file (the JSON's "file" is null) */
	if (a->command & CMD_RECORD)
		a->output = TRACE_FILE_DEFAULT;
	if (a->command & CMD_GRAPH)
		a->max_nodes = GRAPH_DEFAULT_MAX_NODES;
}

void cmd_args_done(struct cmd_args *a)
{
	trace_options_done(&a->trace);
	latency_table_delete(a->latency);
	a->latency = NULL;
}

/* "-o" or "--output" alone, or "--output=VALUE" (*inline_value set). */
static int option_matches(const struct cmd_option *o, const char *arg, const char **inline_value)
{
	*inline_value = NULL;
	if ((o->alias && !strcmp(arg, o->alias)) || !strcmp(arg, o->name))
		return 1;
	size_t n = strlen(o->name);
	if (!strncmp(arg, o->name, n) && arg[n] == '=') { /* "--json=1" is refused later */
		*inline_value = arg + n + 1;
		return 1;
	}
	return 0;
}

static const struct cmd_option *option_find(unsigned command, const char *arg, const char **value)
{
	for (const struct cmd_option *o = cmd_options; o->name || o->help; o++)
		if (o->name && (o->commands & command) && option_matches(o, arg, value))
			return o;
	return NULL;
}

static int set_number(const struct cmd_option *o, struct cmd_args *a, const char *v)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (!*v || *end || errno || v[0] == '-' || n < o->min || n > o->max)
		return o->max == UINT64_MAX
			   ? perpi_set_error("%s: '%s' is not a number >= %llu", o->name, v,
					     (unsigned long long)o->min)
			   : perpi_set_error("%s: '%s' is not a number from %llu to %llu", o->name,
					     v, (unsigned long long)o->min,
					     (unsigned long long)o->max);
	char *field = (char *)a + o->offset;
	if (o->size == sizeof(uint64_t))
		memcpy(field, &(uint64_t){n}, sizeof(uint64_t));
	else
		memcpy(field, &(uint32_t){(uint32_t)n}, sizeof(uint32_t));
	return 0;
}

/* Applies option o to argv[*i] (and its value, advancing *i). 0, PRINTED,
 * or -1 with perpi_error(). */
static int option_apply(const struct cmd_option *o, struct cmd_args *a, int argc, char **argv,
			int *i, const char *value)
{
	int takes = o->value && o->value[0] != '[';
	if (takes && !value) {
		if (*i + 1 >= argc)
			return perpi_set_error("%s needs a value (%s %s)", argv[*i], o->name,
					       o->value);
		value = argv[++*i];
	} else if (!o->value && value) {
		return perpi_set_error("%s takes no value", o->name);
	}
	char *field = (char *)a + o->offset;
	switch (o->kind) {
	case OPT_FLAG:
		*(int *)field = 1;
		return 0;
	case OPT_STRING:
		*(const char **)field = value;
		return 0;
	case OPT_NUMBER:
		return set_number(o, a, value);
	default:
		return o->set(a, value);
	}
}

/* Which commands take arg, for a message about one that does not. */
static unsigned commands_taking(const char *arg)
{
	unsigned c = 0;
	const char *v;
	for (const struct cmd_option *o = cmd_options; o->name || o->help; o++)
		if (o->name && option_matches(o, arg, &v))
			c |= o->commands;
	return c;
}

static int unknown(const struct cmd_args *a, const char *arg)
{
	unsigned c = commands_taking(arg);
	if (c & CMD_REPLAY && !(a->command & CMD_REPLAY))
		return perpi_set_error("%s: an option of the analyses of a recorded run "
				       "(perpi record, then perpi report %s)",
				       arg, arg);
	return perpi_set_error("%s: unknown option (%s --help lists them)", arg, a->name);
}

/* argv[i] is no option: PROGRAM (run, record, tui after --) or FILE (tui).
 * 1: the options end here; 0: go on; -1: an argument the command does not take. */
static int positional(struct cmd_args *a, int argc, char **argv, int i)
{
	const char *arg = argv[i];
	if (!strcmp(arg, "--")) {
		if (!(a->command & CMD_TRACE))
			return perpi_set_error("--: %s runs no program", a->name);
		if (i + 1 >= argc)
			return perpi_set_error("-- must be followed by a program");
		a->program = i + 1;
		return 1;
	}
	if (a->command & (CMD_RUN | CMD_RECORD)) {
		a->program = i;
		return 1;
	}
	if (a->command & CMD_TUI) {
		a->filter.input = arg;
		return 0;
	}
	return perpi_set_error("'%s': unexpected argument (%s --help tells what it takes)", arg,
			       a->name);
}

/* The combination, once everything is read. */
static int check(struct cmd_args *a, int argc)
{
	int program = a->program && a->program < argc;
	if (a->filter.call && !a->filter.function)
		return perpi_set_error("--call N needs --function SYM");
	if (a->command & CMD_TUI) {
		if (a->tracer_option && !program)
			return perpi_set_error("%s traces a program: give it after --",
					       a->tracer_option);
		return program ? trace_options_check(&a->trace, 1) : 0;
	}
	if (a->command & (CMD_RUN | CMD_RECORD))
		return trace_options_check(&a->trace, program);
	return 0;
}

/* --latency FILE: the table the engine asks for each instruction's steps. */
static int load_latency(struct cmd_args *a)
{
	if (!a->filter.latency)
		return 0;
	a->latency = latency_table_load(a->filter.latency);
	if (!a->latency)
		return -1;
	a->filter.engine.latency = latency_table_of;
	a->filter.engine.latency_ctx = a->latency;
	return 0;
}

static int parse_options(struct cmd_args *a, const struct cmd_info *info, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value;
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			cmd_usage(stdout, info);
			return PRINTED;
		}
		if (arg[0] != '-' || !arg[1] || !strcmp(arg, "--")) {
			int r = positional(a, argc, argv, i);
			if (r != 0)
				return r < 0 ? r : 0; /* PROGRAM: the options end */
			continue;
		}
		const struct cmd_option *o = option_find(a->command, arg, &value);
		if (!o)
			return unknown(a, arg);
		if (o->commands == CMD_TRACE && !a->tracer_option)
			a->tracer_option = arg;
		int r = option_apply(o, a, argc, argv, &i, value);
		if (r != 0)
			return r;
	}
	return 0;
}

int cmd_parse(struct cmd_args *a, const struct cmd_info *info, int argc, char **argv)
{
	int r = parse_options(a, info, argc, argv);
	if (r == PRINTED)
		return 0;
	if (r < 0 || check(a, argc) < 0) {
		fprintf(stderr, "%s: %s\n", info->name, perpi_error());
		return 2;
	}
	if (load_latency(a) < 0) { /* a file that cannot be read: no usage error */
		fprintf(stderr, "%s: %s\n", info->name, perpi_error());
		return 1;
	}
	return CMD_GO_ON;
}

/* "  -o, --output FILE   help", continuation lines under the help. */
static void usage_option(FILE *out, const struct cmd_option *o)
{
	char left[64];
	const char *sep = !o->value ? "" : o->value[0] == '[' ? "" : " ";
	snprintf(left, sizeof(left), "%s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "",
		 o->name, sep, o->value ? o->value : "");
	const char *h = o->help;
	int first = 1;
	while (*h) {
		size_t n = strcspn(h, "\n");
		fprintf(out, "  %-20s %.*s\n", first ? left : "", (int)n, h);
		first = 0;
		h += n + (h[n] == '\n');
	}
}

int cmd_main(const struct cmd_info *info, int argc, char **argv,
	     int (*run)(struct cmd_args *a, char **argv))
{
	struct cmd_args a;
	cmd_args_init(&a, info);
	int rc = cmd_parse(&a, info, argc, argv);
	if (rc == CMD_GO_ON)
		rc = run(&a, argv);
	cmd_args_done(&a);
	return rc;
}

void cmd_usage(FILE *out, const struct cmd_info *info)
{
	int help_said = 0;
	fputs(info->usage, out);
	for (const struct cmd_option *o = cmd_options; o->name || o->help; o++) {
		if (!(o->commands & info->id))
			continue;
		if (!o->name && !help_said++) /* the general options end here */
			fprintf(out, "  %-20s %s\n", "-h, --help", "this help");
		if (!o->name)
			fprintf(out, "\n%s\n", o->help);
		else
			usage_option(out, o);
	}
	if (!help_said)
		fprintf(out, "  %-20s %s\n", "-h, --help", "this help");
	if (info->notes)
		fprintf(out, "\n%s", info->notes);
}

void cmd_write_header(FILE *out, const struct cmd_args *a, struct filter_result *r)
{
	r->latency_unlisted = a->latency ? latency_table_unlisted(a->latency) : 0;
	filter_write_header(out, &a->filter, r);
}

/* -o FILE, or standard output. */
FILE *cmd_open_output(const struct cmd_args *a)
{
	if (!a->output || !strcmp(a->output, "-"))
		return stdout;
	FILE *out = fopen(a->output, "w");
	if (!out)
		fprintf(stderr, "%s: -o %s: %s\n", a->name, a->output, strerror(errno));
	return out;
}

/* Closes what cmd_open_output opened; 0, or -1 after saying why. */
int cmd_close_output(const struct cmd_args *a, FILE *out)
{
	int failed = out == stdout || out == stderr ? fflush(out) == EOF : fclose(out) != 0;
	if (failed)
		fprintf(stderr, "%s: writing %s failed: %s\n", a->name,
			a->output ? a->output : "the output", strerror(errno));
	return failed ? -1 : 0;
}

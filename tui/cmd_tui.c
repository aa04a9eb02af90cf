/* perpi tui [FILE] | perpi tui -- PROGRAM: replay a recorded run (or trace
 * a program) through the engine into the browser's model, then browse it
 * (perpi-tui(1)). */
#include "tui/cmd_tui.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

#ifndef HAVE_NCURSES
int cmd_tui(int argc, char **argv)
{
	fprintf(stderr, "perpi: tui: perpi was built without curses (install libncurses-dev, "
			"then configure --with-ncurses)\n");
	return 1;
}
#else

#include "common/util.h"
#include "ilp/trace_file.h"
#include "tracer/options.h"
#include "tracer/symbols.h"
#include "tracer/trace.h"
#include "tui/tui_model.h"
#include "tui/tui.h"

static const char usage[] =
	"usage: perpi tui [--stack-engine] [[-i] FILE]\n"
	"       perpi tui [--stack-engine] [TRACER OPTIONS] -- PROGRAM [ARGS...]\n"
	"Browse a recorded run (default perpi.data), or trace PROGRAM first:\n"
	"functions, the ILP histogram, the data-flow graph, the critical path and\n"
	"basic blocks. Press ? in the browser for its keys; 'man perpi-tui' tells more.\n"
	"\n  --stack-engine     implicit RSP updates of push/pop/call/ret are free\n"
	"  -i FILE            the recorded run to browse\n";

struct tui_options {
	const char *input;           /* FILE, default perpi.data */
	int program;                 /* index of PROGRAM after --, 0 if none */
	struct trace_options trace;
	struct engine_options engine;
};

/* 1: parsed; 0: --help printed; -1: bad options (message set). */
static int parse(int argc, char **argv, struct tui_options *o)
{
	for (int i = 1; i < argc;) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			trace_options_usage(stdout);
			return 0;
		} else if (!strcmp(a, "--")) {
			if (i + 1 >= argc)
				return perpi_set_error("tui: -- must be followed by a program");
			o->program = i + 1;
			break;
		} else if (!strcmp(a, "--stack-engine")) {
			o->engine.stack_engine = 1;
			i++;
		} else if (!strcmp(a, "-i") && i + 1 < argc) {
			o->input = argv[i + 1];
			i += 2;
		} else if (a[0] != '-' || !a[1]) {
			o->input = a;
			i++;
		} else {
			int r = trace_options_parse(&o->trace, argc, argv, &i);
			if (r <= 0)
				return r < 0 ? -1 : perpi_set_error("tui: unknown option '%s'", a);
		}
	}
	if (o->program && trace_options_check(&o->trace, 1) < 0)
		return -1;
	return 1;
}

/* "f" at an entry, "f+0x1c" inside, as the live tracer's symbolizer. */
static const char *reader_function(void *ctx, uint64_t addr)
{
	static char name[256];
	struct trace_reader *r = ctx;
	const struct perpi_insn *insn = trace_reader_insn_at(r, addr);
	uint64_t offset = 0;
	const char *f = insn ? trace_reader_function(r, insn, &offset) : NULL;
	if (!f || !offset)
		return f;
	snprintf(name, sizeof(name), "%s+0x%" PRIx64, f, offset);
	return name;
}

static int reader_line(void *ctx, uint64_t addr, const char **file, unsigned *line)
{
	struct trace_reader *r = ctx;
	const struct perpi_insn *insn = trace_reader_insn_at(r, addr);
	return insn ? trace_reader_source_line(r, insn, file, line) : -1;
}

static int browse_file(const struct tui_options *o)
{
	struct trace_reader *reader = trace_reader_open(o->input);
	if (!reader) {
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
		return 1;
	}
	struct tui_symbols sym = {reader_function, reader_line, reader};
	struct tui_model *model = tui_model_new(&o->engine, &sym);
	int r = trace_reader_replay(reader, tui_model_event, model) < 0 || tui_model_finish(model) < 0
			? -1
			: tui_run(model, o->input);
	if (r < 0)
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
	tui_model_delete(model);
	trace_reader_close(reader);
	return r < 0;
}

/* Live: names from the tracer's symbol tables (no source lines). */
static const char *tracer_function(void *ctx, uint64_t addr)
{
	return symbolizer_name(tracer_symbols(*(struct tracer **)ctx), addr);
}

static int browse_program(struct tui_options *o, char **argv)
{
	struct tracer *tracer = NULL;
	struct tui_symbols sym = {tracer_function, NULL, &tracer};
	struct tui_model *model = tui_model_new(&o->engine, &sym);
	tracer = tracer_new(&o->trace, tui_model_event, model);
	struct trace_result res;
	int r = -1;
	if (tracer_start(tracer, argv + o->program) < 0 || tracer_run(tracer, &res) < 0 ||
	    tui_model_finish(model) < 0)
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
	else if ((r = tui_run(model, argv[o->program])) < 0)
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
	tui_model_delete(model);
	tracer_delete(tracer);
	return r < 0;
}

int cmd_tui(int argc, char **argv)
{
	struct tui_options o = {.input = TRACE_FILE_DEFAULT};
	trace_options_init(&o.trace);
	int r = parse(argc, argv, &o);
	if (r <= 0) {
		if (r < 0)
			fprintf(stderr, "perpi: %s\n%s", perpi_error(), usage);
		trace_options_done(&o.trace);
		return r < 0 ? 2 : 0;
	}
	r = o.program ? browse_program(&o, argv) : browse_file(&o);
	trace_options_done(&o.trace);
	return r;
}
#endif

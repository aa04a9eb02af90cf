/* perpi tui [FILE] | perpi tui -- PROGRAM: replay a recorded run (or trace
 * a program) through the engine into the browser's model, then browse it
 * (perpi-tui(1)). */
#include "cmd/commands.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
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
#include "ilp/blocks.h"
#include "ilp/trace_file.h"
#include "palmed/lift_report.h"
#include "tracer/options.h"
#include "tracer/symbols.h"
#include "tracer/trace.h"
#include "tui/tui_model.h"
#include "tui/tui.h"

static const char usage[] =
	"usage: perpi tui [--stack-engine] [--model FILE] [[-i] FILE]\n"
	"       perpi tui [--stack-engine] [--model FILE] [TRACER OPTIONS] -- PROGRAM [ARGS...]\n"
	"Browse a recorded run (default perpi.data), or trace PROGRAM first:\n"
	"functions, the ILP histogram, the data-flow graph, the critical path and\n"
	"basic blocks. Press ? in the browser for its keys; 'man perpi-tui' tells more.\n"
	"\n  --stack-engine     implicit RSP updates of push/pop/call/ret are free\n"
	"  --model FILE       the Palmed model for the resource-bound columns\n"
	"                     (default: $XDG_DATA_HOME/perpi/model.json, when present)\n"
	"  -i FILE            the recorded run to browse\n";

struct tui_options {
	const char *input;           /* FILE, default perpi.data */
	const char *model;           /* --model FILE, NULL: the default model */
	int program;                 /* index of PROGRAM after --, 0 if none */
	struct trace_options trace;
	struct engine_options engine;
};

/* 1: parsed; 0: --help printed; -1: bad options (message set). */
static int parse(int argc, char **argv, struct tui_options *o)
{
	const char *tracer_option = NULL;
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
		} else if (!strcmp(a, "--model") || !strncmp(a, "--model=", 8)) {
			o->model = a[7] ? a + 8 : i + 1 < argc ? argv[i + 1] : NULL;
			if (!o->model || !*o->model)
				return perpi_set_error("tui: --model needs a file name");
			i += a[7] ? 1 : 2;
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
			tracer_option = a;
		}
	}
	if (tracer_option && !o->program)
		return perpi_set_error("tui: %s traces a program: give it after --", tracer_option);
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

/* One pass feeds the model and the blocks (owned by the lift report). */
struct tee {
	struct tui_model *model;
	struct lift_report *lift;
};

static int tee_event(void *ctx, const struct perpi_event *ev)
{
	struct tee *t = ctx;
	int r = tui_model_event(t->model, ev);
	return r ? r : lift_report_event(t->lift, ev);
}

/* The model as `perpi report` finds it: --model FILE (missing or corrupt:
 * an error), else the default one when present. Before anything is drawn,
 * so that its warnings (another CPU, a damaged default) stay readable. */
static struct lift_report *open_lift(const struct tui_options *o)
{
	struct lift_report *lr;
	if (lift_report_new(o->model, &lr) < 0) {
		fprintf(stderr, "perpi: tui: --model %s: %s\n", o->model, perpi_error());
		return NULL;
	}
	return lr;
}

/* After the run: the blocks closed and lifted (palmed/lift.h, once), and
 * the figures of every function and block kept for the screens. */
static void finish_lift(struct tui_blocks_source *src, struct lift_report *lr,
			const struct tui_model *model, const char *recording)
{
	lift_report_finish(lr);
	src->blocks = lr->blocks;
	src->lr = lr;
	if (!lr->lift) {
		snprintf(src->note, sizeof(src->note), "no Palmed model: perpi palmed build --from %s",
			 recording);
		return;
	}
	struct lift_figures total;
	char ipc[32] = "-", *host = model_host_cpu();
	lift_total(lr->lift, &total);
	if (total.cycles > 0)
		snprintf(ipc, sizeof(ipc), "%.2f", (double)total.covered / total.cycles);
	struct cycles_figures predicted;
	char pred[48] = "";
	if (cycles_report_figures(lr->cycles, 0, 1, &predicted) == 0)
		snprintf(pred, sizeof(pred), "%.1f cycles predicted, ", predicted.cycles);
	snprintf(src->note, sizeof(src->note), "run %sbound %.1f cycles, IPC %s; model %s%s",
		 pred, total.cycles, ipc, strcmp(host, lr->model->cpu) ? "of another CPU: " : "",
		 lr->model_path);
	free(host);
	const struct tui_function *fn;
	size_t n = tui_model_functions(model, &fn);
	src->functions = xcalloc(n + 1, sizeof(*src->functions));
	for (size_t i = 0; i < n; i++)
		lift_function(lr->lift, fn[i].entry, &src->functions[i]);
	const struct block *blk;
	n = blocks_list(lr->blocks, &blk);
	src->block_figures = xcalloc(n + 1, sizeof(*src->block_figures));
	for (size_t i = 0; i < n; i++)
		lift_block_figures(lr->lift, i, &src->block_figures[i]);
}

static void free_lift(struct tui_blocks_source *src, struct lift_report *lr)
{
	free(src->functions);
	free(src->block_figures);
	lift_report_delete(lr);
}

/* The blocks' ILP: a second replay of the recording, in the background
 * (tui_blocks_start); it stops when the browser quits. */
struct block_ilp {
	const char *path;
	const int *cancel;
	struct blocks *blocks;
};

static int block_ilp_event(void *ctx, const struct perpi_event *ev)
{
	struct block_ilp *p = ctx;
	if (__atomic_load_n(p->cancel, __ATOMIC_RELAXED))
		return perpi_set_error("cancelled");
	return blocks_ilp_event(p->blocks, ev);
}

static int file_block_ilp(void *ctx, struct blocks *b)
{
	struct block_ilp *p = ctx;
	struct trace_reader *r = trace_reader_open(p->path);
	if (!r)
		return -1;
	p->blocks = b;
	int rc = trace_reader_replay(r, block_ilp_event, p);
	trace_reader_close(r);
	if (rc < 0)
		return -1;
	blocks_ilp_finish(b);
	return 0;
}

static int browse_file(const struct tui_options *o)
{
	struct trace_reader *reader = trace_reader_open(o->input);
	if (!reader || tui_check_terminal() < 0) { /* before the long part: the replay */
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
		trace_reader_close(reader);
		return 1;
	}
	struct lift_report *lr = open_lift(o);
	if (!lr) {
		trace_reader_close(reader);
		return 1;
	}
	struct tui_symbols sym = {reader_function, reader_line, reader};
	struct tee tee = {tui_model_new(&o->engine, &sym), lr};
	struct tui_blocks_source blocks = {.ilp_pass = file_block_ilp};
	struct block_ilp ilp = {o->input, &blocks.cancel, NULL};
	blocks.ctx = &ilp;
	int r = -1;
	if (trace_reader_replay(reader, tee_event, &tee) >= 0 && tui_model_finish(tee.model) >= 0) {
		finish_lift(&blocks, lr, tee.model, o->input);
		r = tui_run(tee.model, &blocks, o->input);
	}
	if (r < 0)
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
	tui_model_delete(tee.model);
	free_lift(&blocks, lr);
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
	if (tui_check_terminal() < 0) { /* before the long part: the trace */
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
		return 1;
	}
	struct lift_report *lr = open_lift(o);
	if (!lr)
		return 1;
	struct tracer *tracer = NULL;
	struct tui_symbols sym = {tracer_function, NULL, &tracer};
	struct tee tee = {tui_model_new(&o->engine, &sym), lr};
	struct tui_blocks_source blocks = {.ilp_pass = NULL}; /* events not kept: no ILP */
	tracer = tracer_new(&o->trace, tee_event, &tee);
	struct trace_result res;
	int r = -1;
	if (tracer_start(tracer, argv + o->program) < 0 || tracer_run(tracer, &res) < 0 ||
	    tui_model_finish(tee.model) < 0) {
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
	} else {
		finish_lift(&blocks, lr, tee.model, "perpi.data (perpi record first)");
		if ((r = tui_run(tee.model, &blocks, argv[o->program])) < 0)
			fprintf(stderr, "perpi: tui: %s\n", perpi_error());
	}
	tui_model_delete(tee.model);
	free_lift(&blocks, lr);
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

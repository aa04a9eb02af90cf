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

#include "cmd/live.h"
#include "cmd/options.h"
#include "common/util.h"
#include "ilp/blocks.h"
#include "ilp/trace_file.h"
#include "palmed/lift_report.h"
#include "tracer/trace.h"
#include "tui/tui_model.h"
#include "tui/tui.h"

static const struct cmd_info info = {
    CMD_TUI, "perpi tui",
    "usage: perpi tui [OPTIONS] [[-i] FILE]\n"
    "       perpi tui [OPTIONS] [TRACER OPTIONS] -- PROGRAM [ARGS...]\n"
    "Browse a recorded run (default perpi.data), or trace PROGRAM first:\n"
    "functions, the ILP histogram, the data-flow graph, the critical path and\n"
    "basic blocks. Press ? in the browser for its keys; 'man perpi-tui' tells more.\n\n",
    NULL};

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
static struct lift_report *open_lift(const struct cmd_args *o)
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
		snprintf(src->note, sizeof(src->note),
			 "no Palmed model: perpi palmed build --from %s", recording);
		return;
	}
	struct lift_figures total;
	char ipc[32] = "-", *host = model_host_cpu();
	lift_total(lr->lift, &total);
	if (total.cycles > 0)
		snprintf(ipc, sizeof(ipc), "%.2f", (double)total.covered / total.cycles);
	struct cycles_figures predicted;
	double measured;
	char pred[48] = "", meas[48] = "";
	if (cycles_report_figures(lr->cycles, 0, 1, &predicted) == 0)
		snprintf(pred, sizeof(pred), "%.1f cycles predicted, ", predicted.cycles);
	if (cycles_report_measured(lr->cycles, 0, 1, &measured) == 0)
		snprintf(meas, sizeof(meas), "%.1f measured, ", measured);
	snprintf(src->note, sizeof(src->note), "run %s%sbound %.1f cycles, IPC %s; model %s%s",
		 pred, meas, total.cycles, ipc,
		 strcmp(host, lr->model->cpu) ? "of another CPU: " : "", lr->model_path);
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

static int browse_file(const struct cmd_args *o)
{
	struct trace_reader *reader = trace_reader_open(o->filter.input);
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
	lift_report_set_measured(lr, trace_reader_measured(reader), filter_function_name, reader);
	struct tui_symbols sym = {filter_function_name, reader_line, reader};
	struct tee tee = {tui_model_new(&o->filter.engine, &sym), lr};
	struct tui_blocks_source blocks = {.ilp_pass = file_block_ilp};
	struct block_ilp ilp = {o->filter.input, &blocks.cancel, NULL};
	blocks.ctx = &ilp;
	int r = -1;
	if (trace_reader_replay(reader, tee_event, &tee) >= 0 && tui_model_finish(tee.model) >= 0) {
		finish_lift(&blocks, lr, tee.model, o->filter.input);
		r = tui_run(tee.model, &blocks, o->filter.input);
	}
	if (r < 0)
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
	tui_model_delete(tee.model);
	free_lift(&blocks, lr);
	trace_reader_close(reader);
	return r < 0;
}

static int browse_program(struct cmd_args *o, char **argv)
{
	if (tui_check_terminal() < 0) { /* before the long part: the trace */
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
		return 1;
	}
	struct lift_report *lr = open_lift(o);
	if (!lr)
		return 1;
	struct tracer *tracer = NULL;
	struct tui_symbols sym = {live_function_name, NULL, &tracer}; /* no source lines */
	struct tee tee = {tui_model_new(&o->filter.engine, &sym), lr};
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

static int tui(struct cmd_args *a, char **argv)
{
	return a->program ? browse_program(a, argv) : browse_file(a);
}

int cmd_tui(int argc, char **argv)
{
	return cmd_main(&info, argc, argv, tui);
}
#endif

/* Runs the browser on the hand-made run of synth.c (or, with a count, on
 * that many iterations of its loop, for the benchmark), so the screens can
 * be driven with scripted keys before any trace file exists. */
#include <stdio.h>
#include <stdlib.h>

#include "common/util.h"
#include "ilp/blocks.h"
#include "tests/tui/synth.h"
#include "tui/tui_model.h"
#include "tui/tui.h"

static uint64_t loops;

static int tee_event(void *ctx, const struct perpi_event *ev)
{
	void **sinks = ctx;
	tui_model_event(sinks[0], ev);
	return blocks_event(sinks[1], ev);
}

static int replay(perpi_event_fn fn, void *ctx)
{
	return loops ? synth_replay_loop(fn, ctx, loops) : synth_replay(fn, ctx);
}

/* The blocks' ILP: the same events again. */
static int block_ilp(void *ctx, struct blocks *b)
{
	replay(blocks_ilp_event, b);
	blocks_ilp_finish(b);
	return 0;
}

int main(int argc, char **argv)
{
	struct tui_model *m = tui_model_new(NULL, &synth_symbols);
	struct blocks *b = blocks_new();
	void *sinks[2] = {m, b};
	double start = perpi_now();
	loops = argc > 1 ? strtoull(argv[1], NULL, 10) : 0;
	replay(tee_event, sinks);
	blocks_finish(b);
	struct tui_blocks_source blocks = {.blocks = b, .ilp_pass = block_ilp};
	if (tui_model_finish(m) < 0) {
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
		return 1;
	}
	if (getenv("PERPI_TUI_LOAD_TIME"))
		fprintf(stderr, "model built in %.3f s\n", perpi_now() - start);
	int r = tui_run(m, &blocks, argc > 1 ? "synthetic loop" : "synthetic run");
	tui_model_delete(m);
	blocks_delete(b);
	if (r < 0) {
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
		return 1;
	}
	return 0;
}

/* Runs the browser on the hand-made run of synth.c (or, with a count, on
 * that many iterations of its loop, for the benchmark), so the screens can
 * be driven with scripted keys before any trace file exists. */
#include <stdio.h>
#include <stdlib.h>

#include "common/util.h"
#include "tests/tui/synth.h"
#include "tui/tui_model.h"
#include "tui/tui.h"

int main(int argc, char **argv)
{
	struct tui_model *m = tui_model_new(NULL, &synth_symbols);
	double start = perpi_now();
	if (argc > 1)
		synth_replay_loop(tui_model_event, m, strtoull(argv[1], NULL, 10));
	else
		synth_replay(tui_model_event, m);
	if (tui_model_finish(m) < 0) {
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
		return 1;
	}
	if (getenv("PERPI_TUI_LOAD_TIME"))
		fprintf(stderr, "model built in %.3f s\n", perpi_now() - start);
	int r = tui_run(m, argc > 1 ? "synthetic loop" : "synthetic run");
	tui_model_delete(m);
	if (r < 0) {
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
		return 1;
	}
	return 0;
}

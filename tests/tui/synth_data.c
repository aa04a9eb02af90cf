/* Writes the hand-made run of synth.c to a perpi.data file (argv[1]) with
 * its names and lines, so `perpi tui FILE` can be checked against the
 * figures derived by hand in synth.c; with a count (argv[2]), that many
 * iterations of its loop instead (for bench/tui-bench.sh). */
#include <stdio.h>
#include <stdlib.h>

#include "common/util.h"
#include "ilp/trace_file.h"
#include "tests/tui/synth.h"

static const char *function(void *ctx, uint64_t addr, uint64_t *offset)
{
	*offset = addr >= 0x2000 ? addr - 0x2000 : addr - 0x1000;
	return addr >= 0x2000 ? "f" : "main";
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: synth_data FILE [ITERATIONS]\n");
		return 2;
	}
	static const struct trace_meta_entry meta[] = {{"program", "synthetic"}};
	struct trace_symbolizer sym = {function, synth_symbols.line, NULL};
	struct trace_writer *w = trace_writer_open(argv[1], meta, 1, &sym);
	if (!w) {
		fprintf(stderr, "perpi: %s\n", perpi_error());
		return 1;
	}
	if (argc == 3)
		synth_replay_loop(trace_writer_event, w, strtoull(argv[2], NULL, 10));
	else
		synth_replay(trace_writer_event, w);
	struct trace_end end = {TRACE_END_EXITED, 0, 0};
	if (trace_writer_close(w, &end) < 0) {
		fprintf(stderr, "perpi: %s\n", perpi_error());
		return 1;
	}
	return 0;
}

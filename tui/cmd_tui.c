/* perpi tui [FILE]: replay a recorded run (perpi.data) through the engine
 * into the browser's model, then browse it (perpi-tui(1)). */
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
#include "tui/model.h"
#include "tui/tui.h"

static const char usage[] =
	"usage: perpi tui [--stack-engine] [[-i] FILE]\n"
	"Browse a recorded run (default perpi.data): functions, the ILP histogram,\n"
	"the data-flow graph, the critical path and basic blocks. Press ? for keys.\n";

/* The model names an entry address; the reader names static instructions. */
static const char *reader_function(void *ctx, uint64_t addr)
{
	struct trace_reader *r = ctx;
	const struct perpi_insn *insn = trace_reader_insn_at(r, addr);
	uint64_t offset = 0;
	const char *name = insn ? trace_reader_function(r, insn, &offset) : NULL;
	return name && !offset ? name : NULL;
}

static int reader_line(void *ctx, uint64_t addr, const char **file, unsigned *line)
{
	struct trace_reader *r = ctx;
	const struct perpi_insn *insn = trace_reader_insn_at(r, addr);
	return insn ? trace_reader_source_line(r, insn, file, line) : -1;
}

static int parse(int argc, char **argv, const char **input, struct engine_options *opt)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return 1;
		} else if (!strcmp(argv[i], "--stack-engine")) {
			opt->stack_engine = 1;
		} else if (!strcmp(argv[i], "-i") && i + 1 < argc) {
			*input = argv[++i];
		} else if (argv[i][0] != '-' || !argv[i][1]) {
			*input = argv[i];
		} else {
			fprintf(stderr, "perpi: tui: unknown option '%s'\n%s", argv[i], usage);
			return -1;
		}
	}
	return 0;
}

int cmd_tui(int argc, char **argv)
{
	const char *input = TRACE_FILE_DEFAULT;
	struct engine_options opt = {0};
	int r = parse(argc, argv, &input, &opt);
	if (r)
		return r > 0 ? 0 : 2;
	struct trace_reader *reader = trace_reader_open(input);
	if (!reader) {
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
		return 1;
	}
	struct model_symbols sym = {reader_function, reader_line, reader};
	struct model *model = model_new(&opt, &sym);
	r = trace_reader_replay(reader, model_event, model);
	if (r < 0 || model_finish(model) < 0) {
		fprintf(stderr, "perpi: tui: %s\n", perpi_error());
		model_delete(model);
		trace_reader_close(reader);
		return 1;
	}
	r = tui_run(model, input);
	model_delete(model);
	trace_reader_close(reader);
	if (r < 0) {
		fprintf(stderr, "perpi: %s\n", perpi_error());
		return 1;
	}
	return 0;
}
#endif

/* perpi critical: a longest dependency chain of a recorded run, with
 * functions and source lines, and where in the source it lies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "ilp/critical.h"
#include "ilp/filter.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: perpi critical [-i FILE] [OPTIONS]\n"
		"A longest dependency chain, followed back from an instruction at the\n"
		"last step, with function and source line, and a per-line summary.\n%s",
		filter_usage);
}

int cmd_critical(int argc, char **argv)
{
	struct filter_options o;
	struct filter_result r;
	struct trace_reader *reader;
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	filter_options_init(&o);
	if (filter_parse_args(&o, argc, argv, NULL, NULL, "critical") < 0)
		return 2;
	struct critical *c = critical_new();
	struct filter_observer obs = {critical_observe, c, 1};
	if (filter_run(&o, &obs, 1, &r, &reader) < 0) {
		fprintf(stderr, "perpi critical: %s\n", perpi_error());
		critical_delete(c);
		return 1;
	}
	struct critical_link *links;
	size_t n = critical_path(c, &links);
	struct insn_namer namer = filter_trace_namer(reader);
	filter_write_header(stdout, &o, &r);
	critical_write_text(stdout, links, n, &namer);
	free(links);
	critical_delete(c);
	filter_result_done(&r);
	trace_reader_close(reader);
	return fflush(stdout) == EOF ? 1 : 0;
}

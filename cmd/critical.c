/* perpi critical: a longest dependency chain of a recorded run, with
 * functions and source lines, and where in the source it lies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "ilp/critical.h"
#include "ilp/filter.h"
#include "cmd/options.h"

static const struct cmd_info info = {
    CMD_CRITICAL, "perpi critical",
    "usage: perpi critical [-i FILE] [-o FILE] [OPTIONS]\n"
    "A longest dependency chain, followed back from an instruction at the\n"
    "last step, with function and source line, and a per-line summary.\n\n",
    NULL};

static int critical(struct cmd_args *a, char **argv)
{
	struct filter_result r;
	struct trace_reader *reader;
	struct critical *c = critical_new();
	struct filter_observer obs = {critical_observe, c, 1};
	if (filter_run(&a->filter, &obs, 1, &r, &reader) < 0) {
		fprintf(stderr, "perpi critical: %s\n", perpi_error());
		critical_delete(c);
		return 1;
	}
	struct critical_link *links;
	size_t n = critical_path(c, &links);
	struct insn_namer namer = filter_trace_namer(reader);
	FILE *out = cmd_open_output(a);
	int rc = out ? 0 : 1;
	if (out) {
		cmd_write_header(out, a, &r);
		critical_write_text(out, links, n, &namer);
		rc = cmd_close_output(a, out) < 0;
	}
	free(links);
	critical_delete(c);
	filter_result_done(&r);
	trace_reader_close(reader);
	return rc;
}

int cmd_critical(int argc, char **argv)
{
	return cmd_main(&info, argc, argv, critical);
}

/* perpi report: the PerPI table of a recorded run, as text or JSON. */
#include <stdio.h>
#include <string.h>

#include "cmd/analysis.h"
#include "cmd/commands.h"
#include "cmd/options.h"
#include "common/util.h"

static const struct cmd_info info = {
    CMD_REPORT, "perpi report",
    "usage: perpi report [-i FILE] [-o FILE] [--json] [OPTIONS]\n"
    "The ILP of every called function and of the whole run, from a file\n"
    "written by 'perpi record'.\n\n",
    NULL};

static int report_file(const struct cmd_args *a, struct analysis *an)
{
	struct trace_reader *reader;
	if (analysis_replay(an, &reader) < 0) {
		fprintf(stderr, "perpi report: %s\n", perpi_error());
		return 1;
	}
	if (!a->filter.step_first && a->filter.step_last == UINT64_MAX)
		lift_report_hint(stderr, an->lr);
	FILE *out = cmd_open_output(a);
	int rc = out ? 0 : 1;
	if (out) {
		struct analysis_names names = {filter_function_name, reader,
					       filter_trace_namer(reader)};
		if (analysis_write(out, an, &names, 1) < 0) {
			fprintf(stderr, "perpi report: %s\n", perpi_error());
			rc = 1;
		}
		if (cmd_close_output(a, out) < 0)
			rc = 1;
	}
	trace_reader_close(reader);
	return rc;
}

static int report(struct cmd_args *a, char **argv)
{
	struct analysis an;
	int rc = 1;
	if (analysis_open(&an, a) < 0)
		fprintf(stderr, "perpi report: %s\n", perpi_error());
	else
		rc = report_file(a, &an);
	analysis_close(&an);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	return cmd_main(&info, argc, argv, report);
}

/* perpi hist: the ILP histogram of a recorded run, in the terminal and as
 * CSV or SVG files. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "cmd/options.h"
#include "ilp/filter.h"
#include "ilp/hist.h"

#define TERMINAL_BINS 40
#define SVG_BINS 300

static const struct cmd_info info = {
    CMD_HIST, "perpi hist",
    "usage: perpi hist [-i FILE] [-o FILE] [--csv FILE] [--svg FILE] [--bins N] [OPTIONS]\n"
    "Instructions per step, stacked by class.\n\n",
    NULL};

static int write_file(const char *path, const struct hist *h, const struct filter_options *o,
		      unsigned bins, const char *title, int svg)
{
	struct hist_bins b;
	if (hist_bin(h, o->step_first, o->step_last, bins, &b) < 0)
		return -1;
	FILE *fp = fopen(path, "w");
	if (!fp) {
		hist_bins_done(&b);
		return perpi_set_error("cannot create %s: %m", path);
	}
	if (svg)
		hist_write_svg(fp, &b, title);
	else
		hist_write_csv(fp, &b);
	hist_bins_done(&b);
	if (fclose(fp) != 0)
		return perpi_set_error("writing %s: %m", path);
	return 0;
}

static char *chart_title(const struct filter_options *o, const struct filter_result *r)
{
	const char *argv = "";
	for (size_t i = 0; i < r->n_meta; i++)
		if (!strcmp(r->meta[i].key, "argv"))
			argv = r->meta[i].value;
	return xasprintf("%s%s%s: I = %" PRIu64 ", C = %" PRIu64 ", ILP = %.2f", argv,
			 o->function ? " --function " : "", o->function ? o->function : "",
			 r->totals.insns, r->totals.steps,
			 r->totals.steps ? (double)r->totals.insns / r->totals.steps : 0.0);
}

static int output(const struct cmd_args *a, struct filter_result *r, const struct hist *h,
		  FILE *out)
{
	struct hist_bins b;
	const struct filter_options *o = &a->filter;
	char *title = chart_title(o, r);
	int rc = hist_bin(h, o->step_first, o->step_last, a->bins ? a->bins : TERMINAL_BINS, &b);
	if (rc == 0) {
		cmd_write_header(out, a, r);
		fprintf(out, "# %s\n", title);
		int colour =
		    a->colour >= 0 ? a->colour : isatty(fileno(out)) && !getenv("NO_COLOR");
		hist_write_text(out, &b, 60, colour);
		hist_bins_done(&b);
	}
	if (rc == 0 && a->csv)
		rc = write_file(a->csv, h, o, a->bins, title, 0);
	if (rc == 0 && a->svg)
		rc = write_file(a->svg, h, o, a->bins ? a->bins : SVG_BINS, title, 1);
	free(title);
	return rc;
}

static int hist(struct cmd_args *a, char **argv)
{
	struct filter_result r;
	struct trace_reader *reader;
	struct hist *h = hist_new();
	struct filter_observer obs = {hist_observe, h, 0};
	if (filter_run(&a->filter, &obs, 1, &r, &reader) < 0) {
		fprintf(stderr, "perpi hist: %s\n", perpi_error());
		hist_delete(h);
		return 1;
	}
	FILE *out = cmd_open_output(a);
	int rc = out ? output(a, &r, h, out) : 0;
	if (rc < 0)
		fprintf(stderr, "perpi hist: %s\n", perpi_error());
	if (!out || (cmd_close_output(a, out) < 0))
		rc = -1;
	hist_delete(h);
	filter_result_done(&r);
	trace_reader_close(reader);
	return rc < 0 ? 1 : 0;
}

int cmd_hist(int argc, char **argv)
{
	return cmd_main(&info, argc, argv, hist);
}

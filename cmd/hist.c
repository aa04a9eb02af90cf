/* perpi hist: the ILP histogram of a recorded run, in the terminal and as
 * CSV or SVG files. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "ilp/filter.h"
#include "ilp/hist.h"

#define TERMINAL_BINS 40
#define SVG_BINS 300

struct hist_args {
	const char *csv, *svg;
	unsigned bins;
	int colour; /* -1: when stdout is a terminal */
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: perpi hist [-i FILE] [--csv FILE] [--svg FILE] [--bins N] [OPTIONS]\n"
		"Instructions per step, stacked by class.\n"
		"  --csv FILE          one row per bin: steps and per-class counts\n"
		"  --svg FILE          a stacked bar chart\n"
		"  --bins N            at most N bins (default: %d in the terminal, one per\n"
		"                      step in CSV, %d in SVG); sums per bin are exact\n"
		"  --color, --no-color colour the terminal bars or not\n%s",
		TERMINAL_BINS, SVG_BINS, filter_usage);
}

static int own_option(void *ctx, int argc, char **argv, int *i)
{
	struct hist_args *a = ctx;
	const char *opt = argv[*i];
	if (!strcmp(opt, "--color") || !strcmp(opt, "--no-color")) {
		a->colour = opt[2] == 'c';
		return 1;
	}
	if (strcmp(opt, "--csv") && strcmp(opt, "--svg") && strcmp(opt, "--bins"))
		return 0;
	if (*i + 1 >= argc)
		return perpi_set_error("%s needs a value", opt);
	const char *v = argv[++*i];
	if (!strcmp(opt, "--csv"))
		a->csv = v;
	else if (!strcmp(opt, "--svg"))
		a->svg = v;
	else {
		char *end;
		long n = strtol(v, &end, 10);
		if (*end || !*v || n < 1 || n > 10000000)
			return perpi_set_error("--bins: '%s' is not a number from 1 to 10^7", v);
		a->bins = (unsigned)n;
	}
	return 1;
}

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

static int output(const struct filter_options *o, const struct filter_result *r,
		  const struct hist *h, const struct hist_args *a)
{
	struct hist_bins b;
	char *title = chart_title(o, r);
	int rc = hist_bin(h, o->step_first, o->step_last, a->bins ? a->bins : TERMINAL_BINS, &b);
	if (rc == 0) {
		filter_write_header(stdout, o, r);
		printf("# %s\n", title);
		int colour = a->colour >= 0 ? a->colour : isatty(1) && !getenv("NO_COLOR");
		hist_write_text(stdout, &b, 60, colour);
		hist_bins_done(&b);
	}
	if (rc == 0 && a->csv)
		rc = write_file(a->csv, h, o, a->bins, title, 0);
	if (rc == 0 && a->svg)
		rc = write_file(a->svg, h, o, a->bins ? a->bins : SVG_BINS, title, 1);
	free(title);
	return rc;
}

int cmd_hist(int argc, char **argv)
{
	struct filter_options o;
	struct filter_result r;
	struct trace_reader *reader;
	struct hist_args a = {.colour = -1};
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	filter_options_init(&o);
	if (filter_parse_args(&o, argc, argv, own_option, &a, "hist") < 0)
		return 2;
	struct hist *h = hist_new();
	struct filter_observer obs = {hist_observe, h, 0};
	if (filter_run(&o, &obs, 1, &r, &reader) < 0) {
		fprintf(stderr, "perpi hist: %s\n", perpi_error());
		hist_delete(h);
		return 1;
	}
	int rc = output(&o, &r, h, &a);
	if (rc < 0)
		fprintf(stderr, "perpi hist: %s\n", perpi_error());
	hist_delete(h);
	filter_result_done(&r);
	trace_reader_close(reader);
	return rc < 0 ? 1 : 0;
}

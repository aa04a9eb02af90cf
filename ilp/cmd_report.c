/* perpi report: the PerPI table of a recorded run, as text or JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "common/util.h"
#include "ilp/filter.h"
#include "ilp/hist.h"
#include "ilp/json_report.h"
#include "ilp/report.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: perpi report [-i FILE] [--json] [OPTIONS]\n"
		     "The ILP of every called function and of the whole run, from a file\n"
		     "written by 'perpi record'.\n"
		     "  --json              a JSON document (schema in perpi-report(1))\n%s",
		filter_usage);
}

static int own_option(void *ctx, int argc, char **argv, int *i)
{
	if (strcmp(argv[*i], "--json"))
		return 0;
	*(int *)ctx = 1;
	return 1;
}

static int by_insns(const void *a, const void *b)
{
	const struct engine_function *x = a, *y = b;
	if (x->insns != y->insns)
		return x->insns > y->insns ? -1 : 1;
	return (x->entry > y->entry) - (x->entry < y->entry);
}

/* The same table as report_text, for figures that add up several isolated
 * regions (--function) or a step range (--steps). */
static void write_filtered(const struct filter_options *o, const struct filter_result *r,
			   struct trace_reader *reader)
{
	struct engine_function *f = xmalloc((r->n_functions + 1) * sizeof(*f));
	if (r->n_functions)
		memcpy(f, r->functions, r->n_functions * sizeof(*f));
	qsort(f, r->n_functions, sizeof(*f), by_insns);
	int ranged = o->step_first || o->step_last != UINT64_MAX;
	for (size_t k = 0; k < r->n_functions && !ranged; k++)
		printf("%s :: I [%" PRIu64 "] :: C [%" PRIu64 "] :: ILP [%.2f] (%" PRIu64 " call%s)\n",
		       filter_function_name(reader, f[k].entry), f[k].insns, f[k].steps,
		       f[k].steps ? (double)f[k].insns / f[k].steps : 0.0, f[k].calls,
		       f[k].calls == 1 ? "" : "s");
	const struct engine_totals *t = &r->totals;
	printf("%s :: I [%" PRIu64 "] :: C [%" PRIu64 "] :: ILP [%.2f]",
	       ranged ? "step range" : o->function, t->insns, t->steps,
	       t->steps ? (double)t->insns / t->steps : 0.0);
	if (ranged)
		printf("\n");
	else if (o->call)
		printf(" (call %" PRIu64 " of %" PRIu64 ")\n", o->call, r->instances);
	else
		printf(" (%" PRIu64 " call%s)\n", r->instances, r->instances == 1 ? "" : "s");
	printf("instructions by class:");
	for (unsigned k = 0; k < CLASS_COUNT; k++)
		printf("%s %s %" PRIu64, k ? "," : "", hist_class_name(k), t->class_insns[k]);
	printf("\n");
	free(f);
}

int cmd_report(int argc, char **argv)
{
	struct filter_options o;
	struct filter_result r;
	struct trace_reader *reader;
	int json = 0;
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	filter_options_init(&o);
	if (filter_parse_args(&o, argc, argv, own_option, &json, "report") < 0)
		return 2;
	if (filter_run(&o, NULL, 0, &r, &reader) < 0) {
		fprintf(stderr, "perpi report: %s\n", perpi_error());
		return 1;
	}
	int rc = 0;
	if (json) {
		rc = json_report_write(stdout, &o, &r, reader);
	} else {
		filter_write_header(stdout, &o, &r);
		int ranged = o.step_first || o.step_last != UINT64_MAX;
		if (r.engine && !ranged)
			rc = report_text(stdout, r.engine, filter_function_name, reader);
		else
			write_filtered(&o, &r, reader);
	}
	if (rc < 0 || fflush(stdout) == EOF) {
		fprintf(stderr, "perpi report: %s\n", rc < 0 ? perpi_error() : "writing failed");
		rc = 1;
	}
	filter_result_done(&r);
	trace_reader_close(reader);
	return rc ? 1 : 0;
}

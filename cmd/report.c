/* perpi report: the PerPI table of a recorded run, as text or JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "ilp/filter.h"
#include "ilp/hist.h"
#include "ilp/json_report.h"
#include "ilp/report.h"
#include "palmed/lift_report.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: perpi report [-i FILE] [--json] [OPTIONS]\n"
		     "The ILP of every called function and of the whole run, from a file\n"
		     "written by 'perpi record'.\n"
		     "  --json              a JSON document (schema in perpi-report(1))\n"
		     "  --model FILE        the Palmed model for the resource-bound columns\n"
		     "                      (default: $XDG_DATA_HOME/perpi/model.json, when present)\n"
		     "  --blocks[=N]        also the N basic blocks (20) with the most cycles\n%s",
		filter_usage);
}

struct report_args {
	int json;
	const char *model;
	long blocks; /* rows of the --blocks table; 0: none */
};

static int own_option(void *ctx, int argc, char **argv, int *i)
{
	struct report_args *a = ctx;
	const char *s = argv[*i];
	char *end;
	if (!strcmp(s, "--json")) {
		a->json = 1;
	} else if (!strcmp(s, "--blocks")) {
		a->blocks = 20;
	} else if (!strncmp(s, "--blocks=", 9)) {
		a->blocks = strtol(s + 9, &end, 10);
		if (*end || a->blocks < 1)
			return perpi_set_error("--blocks=N: '%s' is not a positive count", s + 9);
	} else if (!strcmp(s, "--model") || !strncmp(s, "--model=", 8)) {
		if (s[7] == '=') {
			a->model = s + 8;
		} else if (*i + 1 < argc) {
			a->model = argv[++*i];
		} else {
			return perpi_set_error("--model: needs a file name");
		}
	} else {
		return 0;
	}
	return 1;
}

/* The Palmed members of --json, through json_report_write_extra. */
struct json_palmed {
	struct lift_report *lr;
	struct insn_namer namer;
	size_t top;
};

static struct json_object *json_palmed_figures(void *ctx, uint64_t entry, int whole_run)
{
	return lift_report_json_figures(((struct json_palmed *)ctx)->lr, entry, whole_run);
}

static struct json_object *json_palmed_root(void *ctx)
{
	struct json_palmed *p = ctx;
	return lift_report_json_root(p->lr, &p->namer, p->top);
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
			   struct trace_reader *reader, const struct report_extra *x)
{
	char cols[256] = "";
	struct engine_function *f = xmalloc((r->n_functions + 1) * sizeof(*f));
	if (r->n_functions)
		memcpy(f, r->functions, r->n_functions * sizeof(*f));
	qsort(f, r->n_functions, sizeof(*f), by_insns);
	int ranged = o->step_first || o->step_last != UINT64_MAX;
	for (size_t k = 0; k < r->n_functions && !ranged; k++) {
		printf("%s :: I [%" PRIu64 "] :: C [%" PRIu64 "] :: ILP [%.2f] (%" PRIu64 " call%s)",
		       filter_function_name(reader, f[k].entry), f[k].insns, f[k].steps,
		       f[k].steps ? (double)f[k].insns / f[k].steps : 0.0, f[k].calls,
		       f[k].calls == 1 ? "" : "s");
		if (x)
			x->columns(x->ctx, f[k].entry, 0, cols, sizeof(cols));
		printf("%s%s\n", x ? " :: " : "", cols);
	}
	const struct engine_totals *t = &r->totals;
	printf("%s :: I [%" PRIu64 "] :: C [%" PRIu64 "] :: ILP [%.2f]",
	       ranged ? "step range" : o->function, t->insns, t->steps,
	       t->steps ? (double)t->insns / t->steps : 0.0);
	if (ranged)
		;
	else if (o->call)
		printf(" (call %" PRIu64 " of %" PRIu64 ")", o->call, r->instances);
	else if (!ranged)
		printf(" (%" PRIu64 " call%s)", r->instances, r->instances == 1 ? "" : "s");
	if (x && !ranged)
		x->columns(x->ctx, 0, 1, cols, sizeof(cols));
	printf("%s%s\n", x && !ranged ? " :: " : "", cols);
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
	struct report_args a = {0};
	struct lift_report *lr = NULL;
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	filter_options_init(&o);
	if (filter_parse_args(&o, argc, argv, own_option, &a, "report") < 0)
		return 2;
	int ranged = o.step_first || o.step_last != UINT64_MAX;
	if (lift_report_new(a.model, &lr) < 0) {
		fprintf(stderr, "perpi report: --model %s: %s\n", a.model, perpi_error());
		return 1;
	}
	/* The blocks of the run: for the Palmed columns, --blocks and --json. */
	struct filter_observer obs = {lift_report_observe, lr, 0};
	int lifted = !ranged && (lr->model || a.blocks || a.json);
	if (filter_run(&o, lifted ? &obs : NULL, lifted, &r, &reader) < 0) {
		fprintf(stderr, "perpi report: %s\n", perpi_error());
		lift_report_delete(lr);
		return 1;
	}
	if (lifted)
		lift_report_finish(lr);
	/* The blocks' ILP needs a second pass (block boundaries are known at
	 * the end); the instances of --function are not worth replaying for it. */
	if (lifted && a.blocks && !o.function && lift_report_block_ilp(lr, o.input) < 0) {
		fprintf(stderr, "perpi report: %s\n", perpi_error());
		filter_result_done(&r);
		lift_report_delete(lr);
		trace_reader_close(reader);
		return 1;
	}
	if (!ranged)
		lift_report_hint(stderr, lr);
	struct report_extra x = {lift_report_columns, lr};
	const struct report_extra *xp = lr->lift ? &x : NULL;
	int rc = 0;
	if (a.json) {
		struct json_palmed jp = {lr, filter_trace_namer(reader), a.blocks ? a.blocks : 20};
		struct json_report_extra jx = {json_palmed_figures, json_palmed_root, &jp,
					       lift_report_json_members, lr};
		rc = json_report_write_extra(stdout, &o, &r, reader, lifted ? &jx : NULL);
	} else {
		filter_write_header(stdout, &o, &r);
		if (xp)
			lift_report_header(stdout, lr);
		if (r.engine && !ranged)
			rc = report_text_extra(stdout, r.engine, filter_function_name, reader, xp);
		else
			write_filtered(&o, &r, reader, xp);
		if (a.blocks && lifted) {
			struct insn_namer namer = filter_trace_namer(reader);
			printf("\n");
			lift_report_blocks(stdout, lr, &namer, (size_t)a.blocks);
		}
	}
	if (rc < 0 || fflush(stdout) == EOF) {
		fprintf(stderr, "perpi report: %s\n", rc < 0 ? perpi_error() : "writing failed");
		rc = 1;
	}
	filter_result_done(&r);
	lift_report_delete(lr);
	trace_reader_close(reader);
	return rc ? 1 : 0;
}

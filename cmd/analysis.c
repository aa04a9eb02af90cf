/* The report of a live or recorded run (cmd/analysis.h). */
#include "cmd/analysis.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/hist.h"
#include "ilp/json_report.h"

static int ranged(const struct filter_options *o)
{
	return o->step_first || o->step_last != UINT64_MAX;
}

int analysis_open(struct analysis *an, const struct cmd_args *a)
{
	memset(an, 0, sizeof(*an));
	an->args = a;
	if (lift_report_new(a->model, &an->lr) < 0) {
		an->lr = NULL;
		return perpi_set_error("--model %s: %s", a->model, perpi_error());
	}
	an->blocks = (struct filter_observer){lift_report_observe, an->lr, 0};
	/* The blocks of the run: for the Palmed columns, --blocks and --json. */
	an->lifted = !ranged(&a->filter) && (an->lr->model || a->blocks || a->json);
	return 0;
}

void analysis_close(struct analysis *an)
{
	filter_result_done(&an->result);
	if (an->lr)
		lift_report_delete(an->lr);
	an->lr = NULL;
}

void analysis_start(struct analysis *an, const struct insn_namer *namer)
{
	an->filter = filter_new(&an->args->filter, an->lifted ? &an->blocks : NULL, an->lifted,
				namer, &an->result);
}

int analysis_event(void *ctx, const struct perpi_event *ev)
{
	struct analysis *an = ctx;
	an->events++;
	return filter_event(an->filter, ev);
}

static int after_run(struct analysis *an)
{
	if (an->lifted)
		lift_report_finish(an->lr);
	/* The blocks' ILP needs a second pass (block boundaries are known at
	 * the end): a recorded run's; the instances of --function are not
	 * worth replaying for it. */
	if (an->lifted && an->args->blocks && !an->args->filter.function &&
	    lift_report_block_ilp(an->lr, an->args->filter.input) < 0)
		return -1;
	return 0;
}

int analysis_finish(struct analysis *an)
{
	int rc = filter_finish(an->filter);
	an->filter = NULL;
	return rc < 0 ? -1 : after_run(an);
}

int analysis_replay(struct analysis *an, struct trace_reader **reader)
{
	const struct filter_options *o = &an->args->filter;
	if (filter_run(o, an->lifted ? &an->blocks : NULL, an->lifted, &an->result, reader) < 0)
		return -1;
	lift_report_set_measured(an->lr, trace_reader_measured(*reader), filter_function_name,
				 *reader);
	return after_run(an);
}

static int by_insns(const void *a, const void *b)
{
	const struct engine_function *x = a, *y = b;
	if (x->insns != y->insns)
		return x->insns > y->insns ? -1 : 1;
	return (x->entry > y->entry) - (x->entry < y->entry);
}

static void filtered_rows(FILE *out, const struct filter_result *r,
			  const struct analysis_names *names, const struct report_extra *x)
{
	char cols[256] = "";
	struct engine_function *f = xmalloc((r->n_functions + 1) * sizeof(*f));
	if (r->n_functions)
		memcpy(f, r->functions, r->n_functions * sizeof(*f));
	qsort(f, r->n_functions, sizeof(*f), by_insns);
	for (size_t k = 0; k < r->n_functions; k++) {
		const char *name = names->function(names->ctx, f[k].entry);
		char addr[24];
		snprintf(addr, sizeof(addr), "0x%" PRIx64, f[k].entry);
		fprintf(out,
			"%s :: I [%" PRIu64 "] :: C [%" PRIu64 "] :: ILP [%.2f] (%" PRIu64
			" call%s)",
			name ? name : addr, f[k].insns, f[k].steps,
			f[k].steps ? (double)f[k].insns / f[k].steps : 0.0, f[k].calls,
			f[k].calls == 1 ? "" : "s");
		if (x)
			x->columns(x->ctx, f[k].entry, 0, cols, sizeof(cols));
		fprintf(out, "%s%s\n", x ? " :: " : "", cols);
	}
	free(f);
}

/* The same table as report_text, for figures that add up several isolated
 * regions (--function) or a step range (--steps). */
static void write_filtered(FILE *out, const struct filter_options *o, const struct filter_result *r,
			   const struct analysis_names *names, const struct report_extra *x)
{
	char cols[256] = "";
	int range = ranged(o);
	if (!range)
		filtered_rows(out, r, names, x);
	const struct engine_totals *t = &r->totals;
	fprintf(out, "%s :: I [%" PRIu64 "] :: C [%" PRIu64 "] :: ILP [%.2f]",
		range ? "step range" : o->function, t->insns, t->steps,
		t->steps ? (double)t->insns / t->steps : 0.0);
	if (range)
		;
	else if (o->call)
		fprintf(out, " (call %" PRIu64 " of %" PRIu64 ")", o->call, r->instances);
	else
		fprintf(out, " (%" PRIu64 " call%s)", r->instances, r->instances == 1 ? "" : "s");
	if (x && !range)
		x->columns(x->ctx, 0, 1, cols, sizeof(cols));
	fprintf(out, "%s%s\n", x && !range ? " :: " : "", cols);
	fprintf(out, "instructions by class:");
	for (unsigned k = 0; k < CLASS_COUNT; k++)
		fprintf(out, "%s %s %" PRIu64, k ? "," : "", hist_class_name(k), t->class_insns[k]);
	fprintf(out, "\n");
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

static int write_json(FILE *out, struct analysis *an, const struct analysis_names *names)
{
	const struct cmd_args *a = an->args;
	struct json_palmed jp = {an->lr, names->namer, a->blocks ? a->blocks : 20};
	struct json_report_extra jx = {json_palmed_figures, json_palmed_root, &jp,
				       lift_report_json_members, an->lr};
	return json_report_write_extra(out, &a->filter, &an->result, names->function, names->ctx,
				       an->lifted ? &jx : NULL);
}

int analysis_write(FILE *out, struct analysis *an, const struct analysis_names *names, int header)
{
	const struct cmd_args *a = an->args;
	struct filter_result *r = &an->result;
	if (a->json)
		return write_json(out, an, names);
	struct report_extra x = {lift_report_columns, an->lr};
	const struct report_extra *xp = lift_report_has_columns(an->lr) ? &x : NULL;
	if (header) {
		cmd_write_header(out, a, r);
		if (xp)
			lift_report_header(out, an->lr);
	}
	int rc = 0;
	if (r->engine && !ranged(&a->filter))
		rc = report_text_extra(out, r->engine, names->function, names->ctx, xp);
	else
		write_filtered(out, &a->filter, r, names, xp);
	if (a->blocks && an->lifted) {
		fprintf(out, "\n");
		lift_report_blocks(out, an->lr, &names->namer, (size_t)a->blocks);
	}
	return rc;
}

/* The PerPI text report: see report.h. Columns are aligned so the table
 * reads like PerPI's own output. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/report.h"

struct row {
	char *name;
	uint64_t entry, insns, steps, calls;
	char i[32], c[32], ilp[32];
};

const char *report_class_name(unsigned klass)
{
	static const char *const names[CLASS_COUNT] = {"load", "store", "int",    "fp",
						       "vec",  "move",  "branch", "other"};
	return klass < CLASS_COUNT ? names[klass] : "?";
}

static int by_insns(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->insns != y->insns)
		return x->insns > y->insns ? -1 : 1;
	int d = strcmp(x->name, y->name);
	if (d)
		return d;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static void row_fill(struct row *r, uint64_t insns, uint64_t steps)
{
	r->insns = insns;
	r->steps = steps;
	snprintf(r->i, sizeof(r->i), "I [%" PRIu64 "]", insns);
	snprintf(r->c, sizeof(r->c), "C [%" PRIu64 "]", steps);
	snprintf(r->ilp, sizeof(r->ilp), "ILP [%.2f]", steps ? (double)insns / steps : 0.0);
}

static int width_of(const struct row *rows, size_t n, size_t field)
{
	size_t w = 0;
	for (size_t k = 0; k < n; k++) {
		const char *s = field == 0   ? rows[k].name
				: field == 1 ? rows[k].i
				: field == 2 ? rows[k].c
					     : rows[k].ilp;
		w = strlen(s) > w ? strlen(s) : w;
	}
	return (int)w;
}

int report_text(FILE *out, const struct engine *engine, report_name_fn name, void *ctx)
{
	return report_text_extra(out, engine, name, ctx, NULL);
}

/* "(N calls)" padded to width, then the extra columns, or nothing. */
static void print_extra(FILE *out, const struct report_extra *extra, const struct row *r,
			int whole_run, int width)
{
	char buf[256], calls[40] = "";
	if (!whole_run)
		snprintf(calls, sizeof(calls), "(%" PRIu64 " call%s)", r->calls,
			 r->calls == 1 ? "" : "s");
	if (!extra) {
		fprintf(out, "%s%s\n", whole_run ? "" : " ", calls);
		return;
	}
	buf[0] = 0;
	extra->columns(extra->ctx, r->entry, whole_run, buf, sizeof(buf));
	fprintf(out, " %-*s :: %s\n", width, calls, buf);
}

int report_text_extra(FILE *out, const struct engine *engine, report_name_fn name, void *ctx,
		      const struct report_extra *extra)
{
	const struct engine_function *fns;
	struct engine_totals t;
	size_t n = engine_functions(engine, &fns);
	struct row *rows = xcalloc(n + 1, sizeof(*rows));

	engine_totals(engine, &t);
	for (size_t k = 0; k < n; k++) {
		const char *s = name ? name(ctx, fns[k].entry) : NULL;
		rows[k].name = s ? xstrdup(s) : xasprintf("0x%" PRIx64, fns[k].entry);
		rows[k].entry = fns[k].entry;
		rows[k].calls = fns[k].calls;
		row_fill(&rows[k], fns[k].insns, fns[k].steps);
	}
	qsort(rows, n, sizeof(*rows), by_insns);
	rows[n].name = xstrdup("whole run");
	row_fill(&rows[n], t.insns, t.steps);

	int wn = width_of(rows, n + 1, 0), wi = width_of(rows, n + 1, 1);
	int wc = width_of(rows, n + 1, 2), wl = width_of(rows, n, 3);
	int wk = 0; /* width of "(N calls)", to align the extra columns */
	for (size_t k = 0; k < n; k++) {
		int w = snprintf(NULL, 0, "(%" PRIu64 " call%s)", rows[k].calls,
				 rows[k].calls == 1 ? "" : "s");
		wk = w > wk ? w : wk;
	}
	if (extra && (size_t)wl < strlen(rows[n].ilp))
		wl = (int)strlen(rows[n].ilp);
	for (size_t k = 0; k < n; k++) {
		fprintf(out, "%-*s :: %-*s :: %-*s :: %-*s", wn, rows[k].name, wi, rows[k].i, wc,
			rows[k].c, wl, rows[k].ilp);
		print_extra(out, extra, &rows[k], 0, wk);
	}
	fprintf(out, "%-*s :: %-*s :: %-*s :: %-*s", wn, rows[n].name, wi, rows[n].i, wc, rows[n].c,
		extra ? wl : 0, rows[n].ilp);
	print_extra(out, extra, &rows[n], 1, wk);

	fprintf(out, "instructions by class:");
	for (unsigned k = 0; k < CLASS_COUNT; k++)
		fprintf(out, "%s %s %" PRIu64, k ? "," : "", report_class_name(k), t.class_insns[k]);
	fprintf(out, "\nsyscalls: %" PRIu64 " (not counted in I)\n", t.syscalls);
	if (t.unknown)
		fprintf(out,
			"warning: %" PRIu64 " undecoded instructions (counted, with conservative "
			"dependencies)\n",
			t.unknown);

	for (size_t k = 0; k <= n; k++)
		free(rows[k].name);
	free(rows);
	if (fflush(out) == EOF || ferror(out))
		return perpi_set_error("writing the report: %s", strerror(errno));
	return 0;
}

/* perpi measure's figures over the runs: for each function (and the
 * region) the smallest of each run's min, median and total (the seeds'
 * "minimum of N runs": a disturbance only ever adds time), in cycles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/measure.h"
#include "common/util.h"

static int double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* min, median, total of one run's series (clock units). */
static void series_stats(const struct measure_series *s, double *min, double *median, double *total)
{
	double *v = xmalloc((s->n + 1) * sizeof(*v));
	memcpy(v, s->v, s->n * sizeof(*v));
	qsort(v, s->n, sizeof(*v), double_cmp);
	*min = v[0];
	*median = s->n % 2 ? v[s->n / 2] : (v[s->n / 2 - 1] + v[s->n / 2]) / 2;
	*total = 0;
	for (size_t i = 0; i < s->n; i++)
		*total += v[i];
	free(v);
}

static void figure_over_runs(struct measured_figure *f, const struct measure_run *runs, size_t n,
			     size_t i, double scale)
{
	double best_total = INFINITY;
	f->min = f->median = INFINITY;
	for (size_t k = 0; k < n; k++) {
		const struct measure_series *s = &runs[k].series[i];
		if (!s->n) {
			if (best_total == INFINITY && s->unfinished > f->unfinished)
				f->unfinished = s->unfinished;
			continue;
		}
		double min, median, total;
		series_stats(s, &min, &median, &total);
		f->min = fmin(f->min, min * scale);
		f->median = fmin(f->median, median * scale);
		if (total * scale < best_total) {
			best_total = total * scale;
			f->calls = s->n;
			f->unfinished = s->unfinished;
		}
	}
	if (best_total == INFINITY)
		f->min = f->median = best_total = 0;
	f->total = best_total;
}

struct measured *measure_summarize(const struct measure_session *s, const struct measure_run *runs,
				   size_t n, double ticks_per_cycle, unsigned runs_asked)
{
	const char *const *names;
	const int *is_region;
	size_t n_figures = measure_figures(s, &names, &is_region);
	struct measured *m = xcalloc(1, sizeof(*m));
	m->runs = (unsigned)n;
	m->runs_asked = runs_asked;
	int cycles = n && runs[0].clock == MEASURE_CLOCK_CYCLES;
	m->clock = cycles ? MEASURED_CLOCK_CYCLES : MEASURED_CLOCK_TSC;
	m->ticks_per_cycle = cycles ? 1 : ticks_per_cycle;
	double scale = m->ticks_per_cycle > 0 ? 1 / m->ticks_per_cycle : 1;
	m->method = MEASURED_JUMP;
	m->n_figures = n_figures;
	m->figures = xcalloc(n_figures + 1, sizeof(*m->figures));
	int region = -1;
	for (size_t i = 0; i < n_figures; i++) {
		m->figures[i].name = xstrdup(names[i]);
		m->figures[i].is_region = is_region[i];
		region = is_region[i] ? (int)i : region;
		figure_over_runs(&m->figures[i], runs, n, i, scale);
	}
	m->whole = INFINITY;
	for (size_t k = 0; k < n; k++) {
		const struct measure_run *r = &runs[k];
		m->overhead += r->overhead * scale / n;
		m->region_overhead += r->region_overhead * scale / n;
		m->nested_overhead += r->nested_overhead * scale / n;
		if (r->method == MEASURE_BREAKPOINT)
			m->method = MEASURED_BREAKPOINT;
		if (region < 0 && r->whole > 0)
			m->whole = fmin(m->whole, r->whole * scale);
	}
	if (region >= 0)
		m->whole = m->figures[region].total;
	if (m->whole == INFINITY)
		m->whole = 0;
	return m;
}

/* perpi measure's figures: each run's timed calls and regions, and over
 * the runs the smallest of each run's min, median and total (the seeds'
 * "minimum of N runs": a disturbance only ever adds time). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tracer/measure_internal.h"

void measure_series_add(struct measure_series *s, double v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = v;
}

static int event_cmp(const void *a, const void *b)
{
	const struct region_event *x = a, *y = b;
	if (x->clock != y->clock)
		return x->clock < y->clock ? -1 : 1;
	return x->stop - y->stop;
}

void measure_pair_regions(struct region_event *ev, size_t n, double overhead,
			  struct measure_series *series)
{
	qsort(ev, n, sizeof(*ev), event_cmp);
	int open = 0;
	uint64_t since = 0;
	for (size_t i = 0; i < n; i++) {
		if (!ev[i].stop && !open) {
			open = 1, since = ev[i].clock;
		} else if (ev[i].stop && open) {
			double v = (double)(ev[i].clock - since) - overhead;
			measure_series_add(series, v > 0 ? v : 0);
			open = 0;
		}
	}
	if (open)
		series->unfinished++;
}

void measure_run_done(struct measure_run *r)
{
	for (size_t i = 0; r->series && i < r->n_series; i++)
		free(r->series[i].v);
	free(r->series);
	r->series = NULL;
	r->n_series = 0;
}

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

static void figure_over_runs(struct measure_figure *f, const struct measure_run *runs, size_t n,
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

struct measure_summary *measure_summarize(const struct measure_session *s,
					  const struct measure_run *runs, size_t n,
					  double ticks_per_cycle, unsigned runs_asked)
{
	struct measure_summary *m = xcalloc(1, sizeof(*m));
	m->runs = (unsigned)n;
	m->runs_asked = runs_asked;
	m->clock = n ? runs[0].clock : MEASURE_CLOCK_TSC;
	m->ticks_per_cycle = m->clock == MEASURE_CLOCK_CYCLES ? 1 : ticks_per_cycle;
	double scale = m->ticks_per_cycle > 0 ? 1 / m->ticks_per_cycle : 1;
	m->method = MEASURE_JUMP;
	m->n_figures = s->n_figures;
	m->figures = xcalloc(s->n_figures, sizeof(*m->figures));
	for (size_t i = 0; i < s->n_figures; i++) {
		m->figures[i].name = xstrdup(s->names[i]);
		m->figures[i].is_region = s->is_region[i];
		figure_over_runs(&m->figures[i], runs, n, i, scale);
	}
	m->whole = INFINITY;
	for (size_t k = 0; k < n; k++) {
		const struct measure_run *r = &runs[k];
		m->overhead += r->overhead * scale / n;
		m->region_overhead += r->region_overhead * scale / n;
		m->nested_overhead += r->nested_overhead * scale / n;
		if (r->method == MEASURE_BREAKPOINT)
			m->method = MEASURE_BREAKPOINT;
		if (s->region_figure < 0 && r->whole > 0)
			m->whole = fmin(m->whole, r->whole * scale);
	}
	if (s->region_figure >= 0)
		m->whole = m->figures[s->region_figure].total;
	if (m->whole == INFINITY)
		m->whole = 0;
	return m;
}

void measure_summary_free(struct measure_summary *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_figures; i++)
		free(m->figures[i].name);
	free(m->figures);
	free(m);
}

const struct measure_figure *measure_summary_find(const struct measure_summary *m, const char *name)
{
	for (size_t i = 0; m && i < m->n_figures; i++)
		if (!strcmp(m->figures[i].name, name))
			return &m->figures[i];
	return NULL;
}

const struct measure_figure *measure_summary_region(const struct measure_summary *m)
{
	for (size_t i = 0; m && i < m->n_figures; i++)
		if (m->figures[i].is_region)
			return &m->figures[i];
	return NULL;
}

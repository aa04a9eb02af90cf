/* One run's figures: its timed calls, and its regions paired from their
 * starts and ends. */
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

/* Summary statistics of a kernel's repetitions: see bench_stats.h. */
#include "palmed/bench_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(const double *v, unsigned m)
{
	return v[(m - 1) / 2];
}

static double spread(const double *v, unsigned m)
{
	return (v[(3 * (m - 1) + 2) / 4] - v[(m - 1) / 4]) / median(v, m);
}

void bench_summarise(const double *samples, const unsigned char *clean, unsigned n,
		     struct bench_summary *out)
{
	double *v = xmalloc((n + 1) * sizeof(*v));
	unsigned m = 0;
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < n; i++)
		if (clean[i])
			v[m++] = samples[i];
	if (m == 0)
		for (unsigned i = 0; i < n; i++)
			v[m++] = samples[i];
	if (m == 0) {
		out->cycles = out->spread = NAN;
		free(v);
		return;
	}
	qsort(v, m, sizeof(*v), cmp_double);
	/* the widest relative gap between neighbours */
	unsigned cut = 0;
	double widest = 0;
	for (unsigned i = 1; i < m; i++) {
		double gap = v[i - 1] > 0 ? (v[i] - v[i - 1]) / v[i - 1] : 0;
		if (gap > widest) {
			widest = gap;
			cut = i;
		}
	}
	if (widest > BENCH_MODE_GAP && cut >= 3 && m - cut >= 3 && cut * 5 >= m) {
		out->bimodal = 1;
		out->other_cycles = median(v + cut, m - cut);
		m = cut;
	}
	out->cycles = median(v, m);
	out->spread = spread(v, m);
	out->kept = m;
	free(v);
}

double bench_max_spread(double cycles, unsigned insns)
{
	return insns && cycles >= BENCH_SLOW_CYCLES * insns ? BENCH_MAX_SPREAD_SLOW
							    : BENCH_MAX_SPREAD;
}

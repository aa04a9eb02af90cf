/* The mapping stage when the core has more groups of resources than a
 * form may cost probes (a core fitted to noisy measurements has a hundred
 * resources or more, most of them shared by many forms: the groups are
 * then single resources). A form is probed against the bases of a few
 * resources chosen so that each core form has one where it is (nearly)
 * the bottleneck, and its usages are taken as a non-negative combination
 * of the core forms' usages, a_j rho(j, .), that explains the probes: an
 * LP per form (Palmed's last stage, with the core forms as the basis
 * instead of the resources). A load-op form comes out as its operation
 * plus a load; a 512-bit form as twice its 256-bit sibling. What no
 * combination explains of its cycles alone becomes a resource of its own,
 * as in the group tests. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/infer_map_private.h"
#include "palmed/lp.h"

/* Greedily, the single-resource bases that are the (near) bottleneck of
 * the most core forms not covered yet; up to k of them, in out[]. */
size_t map_choose_probes(const struct mapping *mp, size_t *out, size_t k)
{
	const struct map_core *c = &mp->core;
	unsigned char *covered = xcalloc(c->n + 1, 1), *taken = xcalloc(c->R + 1, 1);
	size_t n = 0;
	while (n < k) {
		long best = -1;
		double best_gain = 0;
		for (size_t r = 0; r < c->R; r++) {
			long s = mp->single_of[r];
			if (taken[r] || s < 0 || mp->bases[s].cycles <= 0 ||
			    mp->bases[s].margin < 0.1)
				continue;
			double gain = 0;
			for (size_t j = 0; j < c->n; j++)
				if (c->rho[r][j] >= 0.5 * c->single[j])
					gain +=
					    covered[j] ? 0.1 : 1; /* a second view helps a little */
			if (gain > best_gain)
				best_gain = gain, best = (long)r;
		}
		if (best < 0)
			break;
		taken[best] = 1;
		out[n++] = (size_t)mp->single_of[best];
		for (size_t j = 0; j < c->n; j++)
			if (c->rho[best][j] >= 0.5 * c->single[j])
				covered[j] = 1;
	}
	free(covered);
	free(taken);
	return n;
}

static void combine(const struct map_core *c, const double *a, int ok, double *x)
{
	for (size_t r = 0; r < c->R; r++) {
		x[r] = 0;
		for (size_t j = 0; ok && j < c->n; j++)
			x[r] += a[j] * c->rho[r][j];
	}
}

/* The usages of target t over the core's resources, into x: the
 * combination of core forms that best explains what the probes read
 * (L1, relative to the form's cycles alone), never more than the form
 * takes alone on any resource, the smallest such combination. */
void map_template_usage(const struct mapping *mp, const struct target *t, const size_t *probed,
			size_t k, double *x)
{
	const struct map_core *c = &mp->core;
	size_t n = c->n, cols = n + 2 * k;
	struct lp *lp = lp_new(cols, 0);
	double *row = xcalloc(cols + 1, sizeof(double)), *a = xcalloc(cols + 1, sizeof(double));
	for (size_t j = 0; j < n; j++)
		lp_set_objective(lp, j, 1e-3 * c->single[j] / t->single);
	for (size_t p = 0; p < k; p++) {
		size_t r = mp->bases[probed[p]].res[0];
		if (isnan(t->exact[r]))
			continue; /* not read: no row */
		memset(row, 0, (cols + 1) * sizeof(double));
		for (size_t j = 0; j < n; j++)
			row[j] = c->rho[r][j];
		row[n + 2 * p] = -1, row[n + 2 * p + 1] = 1;
		lp_set_objective(lp, n + 2 * p, 1 / t->single);
		lp_set_objective(lp, n + 2 * p + 1, 1 / t->single);
		lp_add_row(lp, row, t->exact[r], t->exact[r]);
	}
	memset(row, 0, (cols + 1) * sizeof(double));
	for (size_t r = 0; r < c->R; r++) {
		memcpy(row, c->rho[r], n * sizeof(double));
		lp_add_row(lp, row, -INFINITY, t->single * (1 + mp->o->tol));
	}
	int ok = lp_solve(lp, a, NULL) == 0;
	combine(c, a, ok, x);
	/* The form alone must take its cycles on some resource: the one the
	 * combination loads most, if the probes allow it (a slack, weighed as
	 * a probe's) */
	size_t top = 0;
	for (size_t r = 1; r < c->R; r++)
		top = x[r] > x[top] ? r : top;
	if (ok && c->R && x[top] < t->single) {
		lp_add_cols(lp, 1);
		lp_set_objective(lp, cols, 1 / t->single);
		memset(row, 0, (cols + 1) * sizeof(double));
		memcpy(row, c->rho[top], n * sizeof(double));
		row[cols] = 1;
		lp_add_row(lp, row, t->single, INFINITY);
		a = xrealloc(a, (cols + 2) * sizeof(double));
		if (lp_solve(lp, a, NULL) == 0)
			combine(c, a, 1, x);
	}
	lp_delete(lp);
	free(row);
	free(a);
}

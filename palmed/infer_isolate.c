/* Reading a resource off a kernel it bottlenecks (Palmed's saturating
 * kernels and last stage). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/infer_private.h"
#include "palmed/lp.h"

/* How many instances of form j to add to copies of base (cb cycles):
 * about probe_fraction of the cycles, but few enough that no known
 * resource overtakes the one base isolates (its cycles are cb, a known
 * resource's load is exact), so the extra cycles come from that resource.
 * A form slower alone than that share of base gets one instance, and base
 * is repeated until the instance is within the share: otherwise the form's
 * own bottleneck, not base's, would time the probe. */
static double probe_count(const struct state *st, const double *base, double cb, size_t j,
			  double *copies)
{
	*copies = 1;
	if (st->o->probe_fraction <= 0)
		return 1;
	double m = st->o->probe_fraction * cb / st->single[j];
	if (m < 1) {
		*copies = ceil(1 / m);
		m = 1;
	}
	for (size_t r = 0; r < st->nres; r++)
		if (st->rho[r][j] > 0)
			m = fmin(m, 0.8 * *copies * (cb - infer_dot(st->rho[r], base, st->n)) /
					st->rho[r][j]);
	return fmax(1, floor(m));
}

/* One instance of forms to break ties between resources equally loaded
 * by the kernel: every form when budget is infinite (exact measurements),
 * else the cheapest forms while their cycles alone stay within budget, so
 * they do not displace the bottleneck. Another attempt doubles some. */
static void perturbation(const struct state *st, double budget, unsigned attempt, double *g)
{
	size_t n = st->n, *order = xmalloc(n * sizeof(size_t));
	for (size_t j = 0; j < n; j++) {
		order[j] = j;
		g[j] = 0;
	}
	for (size_t a = 1; a < n; a++) /* insertion sort by cycles alone, stable */
		for (size_t b = a; b > 0 && st->single[order[b]] < st->single[order[b - 1]]; b--) {
			size_t t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	double used = 0;
	for (size_t a = 0; a < n && st->o->perturb; a++) {
		size_t j = order[a];
		double w = 1 + (attempt ? (j + attempt) % 2 : 0);
		if (used + w * st->single[j] > budget)
			break;
		g[j] = w;
		used += w * st->single[j];
	}
	free(order);
}

/* Noisy probes misread some usages, and a probe the isolated resource
 * stopped bounding over-estimates one: move rho as little as possible
 * (sum of |change| / cycles alone, an LP: the few wrong components move,
 * not the whole vector) until no measured kernel runs faster than rho
 * says it can, adding the kernels it contradicts as rows. No form uses a
 * resource for longer than it takes alone. Returns 0, or -1 if GLPK
 * fails. */
static int repair(const struct state *st, double *rho)
{
	size_t n = st->n;
	struct lp *lp = lp_new(2 * n, 0); /* rho' then |rho' - rho| */
	double *x = xmalloc(2 * n * sizeof(double)), *val = xmalloc((n + 2) * sizeof(double));
	size_t *cols = xmalloc((n + 2) * sizeof(size_t));
	unsigned char *added = xcalloc(st->nmeas + 1, 1);
	for (size_t j = 0; j < n; j++) {
		lp_set_objective(lp, n + j, 1 / st->single[j]);
		lp_set_bounds(lp, j, 0, st->single[j]);
		cols[0] = n + j, cols[1] = j;
		val[0] = 1, val[1] = -1;
		lp_add_row_sparse(lp, 2, cols, val, -rho[j], INFINITY);
		val[1] = 1;
		lp_add_row_sparse(lp, 2, cols, val, rho[j], INFINITY);
		x[j] = fmin(rho[j], st->single[j]);
	}
	int rc = 0;
	for (unsigned round = 0; round < 20; round++) {
		size_t more = 0;
		for (size_t b = 0; b < st->nmeas; b++) {
			double cb = st->meas[b].cycles;
			if (added[b] || infer_dot(x, st->meas[b].sigma, n) <= cb * (1 + 1e-9))
				continue;
			size_t k = 0;
			for (size_t j = 0; j < n; j++)
				if (st->meas[b].sigma[j] != 0)
					cols[k] = j, val[k++] = st->meas[b].sigma[j];
			lp_add_row_sparse(lp, k, cols, val, -INFINITY, cb);
			added[b] = 1;
			more++;
		}
		if (!more || (rc = lp_solve(lp, x, NULL)) < 0)
			break;
	}
	if (rc == 0)
		for (size_t j = 0; j < n; j++)
			rho[j] = x[j] < 1e-9 ? 0 : x[j];
	lp_delete(lp);
	free(x);
	free(val);
	free(cols);
	free(added);
	return rc;
}

/* The usage vector read off base (cb cycles): one probe per form, all
 * measured together. */
static double *probe_forms(struct state *st, const double *base, double cb)
{
	size_t n = st->n;
	double *rho = xcalloc(n, sizeof(double)), *extra = xmalloc(n * sizeof(double));
	double *cp = xmalloc(n * sizeof(double)), **probes = xmalloc(n * sizeof(double *));
	int *ok = xmalloc(n * sizeof(int)), all = 1;
	size_t *left = xmalloc(n * sizeof(size_t)), nleft = 0;
	double *copies = xmalloc(n * sizeof(double));
	for (size_t j = 0; j < n; j++) {
		extra[j] = probe_count(st, base, cb, j, &copies[j]);
		probes[j] = xmalloc(n * sizeof(double));
		for (size_t i = 0; i < n; i++)
			probes[j][i] = copies[j] * base[i];
		probes[j][j] += extra[j];
	}
	infer_measure_many(st, probes, n, cp, ok);
	/* A kernel the runner refuses: one more instance is another kernel,
	 * as good a probe. */
	for (size_t j = 0; j < n; j++)
		if (!ok[j]) { /* probes[nleft], nleft <= j, is done with: reuse it */
			extra[j] += 1;
			for (size_t i = 0; i < n; i++)
				probes[nleft][i] = copies[j] * base[i];
			probes[nleft][j] += extra[j];
			left[nleft++] = j;
		}
	if (nleft) {
		double *cl = xmalloc(nleft * sizeof(double));
		int *okl = xmalloc(nleft * sizeof(int));
		infer_measure_many(st, probes, nleft, cl, okl);
		for (size_t a = 0; a < nleft; a++) {
			ok[left[a]] = okl[a];
			cp[left[a]] = cl[a];
		}
		free(cl);
		free(okl);
	}
	for (size_t j = 0; j < n; j++) {
		all &= ok[j];
		if (ok[j])
			rho[j] = fmax(0, (cp[j] - copies[j] * cb) / extra[j]);
		free(probes[j]);
	}
	if (!all) {
		free(rho);
		rho = NULL;
	}
	free(extra);
	free(copies);
	free(cp);
	free(probes);
	free(ok);
	free(left);
	return rho;
}

/* A kernel (cycles ck) whose bottleneck is unknown to the model: repeat
 * it so that bottleneck dominates, then add instances of each form in
 * turn; what they add is the resource's usage. */
int infer_isolate(struct state *st, const double *kernel, double ck)
{
	size_t n = st->n;
	double *base = xmalloc(n * sizeof(double)), *g = xmalloc(n * sizeof(double));
	double *rho = NULL, cb;
	int found = 0, noisy = st->o->probe_fraction > 0;
	for (unsigned attempt = 0; attempt < st->o->attempts && !found; attempt++) {
		/* a base and n probes: within the budget, or not at all */
		if (infer_stopped(st))
			break;
		if (st->o->max_benchmarks &&
		    st->stats->benchmarks + n + 1 > st->o->max_benchmarks) {
			st->stats->budget_exhausted = 1;
			break;
		}
		double scale = (double)st->o->scale * (1u << (2 * attempt));
		perturbation(st, noisy ? 0.25 * scale * ck : INFINITY, attempt, g);
		for (size_t j = 0; j < n; j++)
			base[j] = scale * kernel[j] + g[j];
		free(rho);
		rho = NULL;
		if (infer_measure(st, base, &cb) < 0 || !(rho = probe_forms(st, base, cb)))
			break;
		if (noisy) /* below the noise of a probe: no usage */
			for (size_t j = 0; j < n; j++)
				if (rho[j] < st->o->tol * st->single[j])
					rho[j] = 0;
		found =
		    fabs(infer_dot(rho, base, n) - cb) <= st->o->tol * cb &&
		    infer_consistent(st, rho) &&
		    infer_dot(rho, kernel, n) > infer_lower_bound(st, kernel) * (1 + st->o->tol);
		if (!found && noisy && attempt + 1 == st->o->attempts) {
			found = repair(st, rho) == 0 &&
				infer_dot(rho, kernel, n) >
				    infer_lower_bound(st, kernel) * (1 + st->o->tol / 4);
		}
		if (found) {
			infer_add_resource(st, rho, kernel);
			rho = NULL;
		}
	}
	if (!found)
		st->stats->failed++;
	free(rho);
	free(base);
	free(g);
	return found;
}

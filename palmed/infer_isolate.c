/* Reading a resource off a kernel it bottlenecks (Palmed's saturating
 * kernels and last stage). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/infer_private.h"

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
 * stopped bounding over-estimates one. No form uses a resource for longer
 * than it takes alone: clip to that; then shrink the whole vector until
 * every measurement agrees (moving components one by one, an LP, fits the
 * measurements as well but leaves wrong shapes that hide resources the
 * search has yet to find). */
static void shrink_to_measurements(const struct state *st, double *rho)
{
	double shrink = 1;
	for (size_t j = 0; j < st->n; j++)
		rho[j] = fmin(rho[j], st->single[j]);
	for (size_t b = 0; b < st->nmeas; b++) {
		double load = infer_dot(rho, st->meas[b].sigma, st->n);
		if (load > st->meas[b].cycles)
			shrink = fmin(shrink, st->meas[b].cycles / load);
	}
	for (size_t j = 0; j < st->n; j++)
		rho[j] *= shrink;
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
		found = fabs(infer_dot(rho, base, n) - cb) <= st->o->tol * cb && infer_consistent(st, rho) &&
			infer_dot(rho, kernel, n) > infer_lower_bound(st, kernel) * (1 + st->o->tol);
		if (!found && noisy && attempt + 1 == st->o->attempts) {
			shrink_to_measurements(st, rho);
			found = infer_dot(rho, kernel, n) > infer_lower_bound(st, kernel) * (1 + st->o->tol / 4);
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

/* Looking for kernels the model gets wrong: vertices of the model's
 * polytope over pairs and mixes of forms, measured unless the
 * measurements already settle them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/infer_private.h"
#include "palmed/lp.h"

/* The vertex of the model's polytope, restricted to forms `support`, that
 * maximises sum w_j x_j: where the model is most optimistic. */
static int model_vertex(struct state *st, const size_t *support, const double *w, size_t k,
			double *x)
{
	struct lp *lp = lp_new(k, 1);
	double *row = xmalloc(k * sizeof(double));
	for (size_t a = 0; a < k; a++) {
		lp_set_objective(lp, a, w[a]);
		lp_set_bounds(lp, a, 0, 1 / st->single[support[a]]);
	}
	for (size_t r = 0; r < st->nres; r++) {
		int any = 0;
		for (size_t a = 0; a < k; a++)
			any |= (row[a] = st->rho[r][support[a]]) > 0;
		if (any)
			lp_add_row(lp, row, -INFINITY, 1.0);
	}
	int rc = lp_solve(lp, x, NULL);
	lp_delete(lp);
	free(row);
	return rc;
}

/* Small integer multiplicities proportional to x. */
static void to_integers(const double *x, size_t k, double *out)
{
	double least = INFINITY, largest = 0;
	for (size_t a = 0; a < k; a++)
		largest = fmax(largest, x[a]);
	for (size_t a = 0; a < k; a++)
		if (x[a] > largest * 1e-3)
			least = fmin(least, x[a]);
	unsigned best_m = 1;
	double best_err = INFINITY;
	for (unsigned m = 1; m <= 12; m++) {
		double err = 0;
		for (size_t a = 0; a < k; a++)
			if (x[a] > largest * 1e-3) {
				double y = m * x[a] / least;
				err = fmax(err, fabs(y - round(y)) / y);
			}
		if (err < best_err - 1e-9)
			best_err = err, best_m = m;
		if (err < 0.01)
			break;
	}
	for (size_t a = 0; a < k; a++)
		out[a] = x[a] > largest * 1e-3 ? fmax(1, round(best_m * x[a] / least)) : 0;
}

static int budget_left(struct state *st, size_t more)
{
	if (infer_stopped(st))
		return 0;
	if (st->o->max_benchmarks && st->stats->benchmarks + more >= st->o->max_benchmarks) {
		st->stats->budget_exhausted = 1;
		return 0;
	}
	return 1;
}

/* Whether the measurements already settle sigma: their upper bound is
 * the model's lower bound. */
static int certified(const struct state *st, const double *sigma)
{
	return !infer_find_measured(st, sigma) &&
	       infer_upper_bound(st, sigma) <=
		   infer_lower_bound(st, sigma) * (1 + st->o->tol) + 1e-12;
}

/* Measures the kernel (unless the measurements already settle it) and
 * isolates a new resource when it runs slower than the model says. */
static int check_kernel(struct state *st, const double *sigma)
{
	double model = infer_lower_bound(st, sigma), cycles;
	if (!budget_left(st, 0))
		return 0;
	st->stats->candidates++;
	if (certified(st, sigma)) {
		st->stats->certified++;
		return 0;
	}
	if (infer_measure(st, sigma, &cycles) < 0)
		return 0;
	if (cycles <= model * (1 + st->o->tol) + 1e-12)
		return 0;
	return infer_isolate(st, sigma, cycles);
}

/* The kernel at the model's vertex in direction w over forms support. */
static int direction_kernel(struct state *st, const size_t *support, const double *w, size_t k,
			    double *sigma)
{
	double *x = xmalloc(k * sizeof(double)), *mult = xmalloc(k * sizeof(double));
	memset(sigma, 0, st->n * sizeof(double));
	int rc = model_vertex(st, support, w, k, x);
	if (rc == 0) {
		to_integers(x, k, mult);
		for (size_t a = 0; a < k; a++)
			sigma[support[a]] = mult[a];
	}
	free(x);
	free(mult);
	return rc;
}

/* Checks kernels sigmas[0..count): the ones the measurements do not settle
 * are measured together first (within the budget), then each is checked
 * against the model as it stands then. Returns the resources added. */
static unsigned check_batch(struct state *st, double *const *sigmas, size_t count)
{
	double **todo = xmalloc((count + 1) * sizeof(double *)), *cycles;
	size_t ntodo = 0;
	unsigned found = 0;
	for (size_t i = 0; i < count; i++)
		if (!infer_find_measured(st, sigmas[i]) && !certified(st, sigmas[i]) &&
		    budget_left(st, ntodo + 1))
			todo[ntodo++] = sigmas[i];
	cycles = xmalloc((ntodo + 1) * sizeof(double));
	int *ok = xmalloc((ntodo + 1) * sizeof(int));
	if (ntodo)
		infer_measure_many(st, todo, ntodo, cycles, ok);
	for (size_t i = 0; i < count; i++)
		found += check_kernel(st, sigmas[i]);
	free(todo);
	free(cycles);
	free(ok);
	return found;
}

unsigned infer_random(struct state *st, unsigned bound)
{
	st->rng = st->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((st->rng >> 33) % bound);
}

unsigned infer_search_pairs(struct state *st)
{
	unsigned found = 0;
	double **sigmas = xmalloc((st->n + 1) * sizeof(double *));
	for (size_t j = 0; j < st->n; j++)
		sigmas[j] = xmalloc(st->n * sizeof(double));
	for (size_t i = 0; i < st->n && budget_left(st, 0); i++) {
		size_t count = 0;
		for (size_t j = i + 1; j < st->n; j++) {
			size_t support[2] = {i, j};
			double w[2] = {st->single[i], st->single[j]};
			if (direction_kernel(st, support, w, 2, sigmas[count]) == 0)
				count++;
		}
		found += check_batch(st, sigmas, count);
		infer_label(st, "pairs %zu/%zu, %u resources, %u benchmarks", i + 1, st->n,
			    (unsigned)st->nres, st->stats->benchmarks);
	}
	for (size_t j = 0; j < st->n; j++)
		free(sigmas[j]);
	free(sigmas);
	infer_note(st, "pairs searched, %u resources, %u benchmarks", (unsigned)st->nres,
		   st->stats->benchmarks);
	return found;
}

unsigned infer_search_mixes(struct state *st)
{
	size_t support[5], count = 0, total = st->o->random_kernels + 1;
	double w[5], **sigmas = xmalloc(total * sizeof(double *));
	for (size_t t = 0; t < total; t++)
		sigmas[t] = xmalloc(st->n * sizeof(double));
	for (unsigned t = 0; t < st->o->random_kernels && st->n >= 3 && budget_left(st, 0); t++) {
		size_t k = 3 + infer_random(st, 3), have = 0;
		if (k > st->n)
			k = st->n;
		while (have < k) {
			size_t f = infer_random(st, (unsigned)st->n), dup = 0;
			for (size_t a = 0; a < have; a++)
				dup |= support[a] == f;
			if (!dup) {
				w[have] = st->single[f] * (1 + infer_random(st, 3));
				support[have++] = f;
			}
		}
		if (direction_kernel(st, support, w, k, sigmas[count]) == 0)
			count++;
	}
	unsigned found = check_batch(st, sigmas, count);
	/* Every form at once: where a dispatch-width limit shows (after the
	 * mixes: it is a vertex of the model they leave). */
	size_t *all = xmalloc(st->n * sizeof(size_t));
	for (size_t j = 0; j < st->n; j++)
		all[j] = j;
	if (budget_left(st, 0) && direction_kernel(st, all, st->single, st->n, sigmas[0]) == 0)
		found += check_batch(st, sigmas, 1);
	free(all);
	for (size_t t = 0; t < total; t++)
		free(sigmas[t]);
	free(sigmas);
	infer_note(st, "%u mixes searched, %u resources, %u benchmarks", st->o->random_kernels,
		   (unsigned)st->nres, st->stats->benchmarks);
	return found;
}

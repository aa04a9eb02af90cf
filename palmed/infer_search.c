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

/* Measures the kernel (unless the measurements already settle it) and
 * isolates a new resource when it runs slower than the model says. */
static int check_kernel(struct state *st, const double *sigma)
{
	double model = infer_lower_bound(st, sigma), cycles;
	if (st->o->max_benchmarks && st->stats->benchmarks >= st->o->max_benchmarks) {
		st->stats->budget_exhausted = 1;
		return 0;
	}
	st->stats->candidates++;
	if (!infer_find_measured(st, sigma) && infer_upper_bound(st, sigma) <= model * (1 + st->o->tol) + 1e-12) {
		st->stats->certified++;
		return 0;
	}
	if (infer_measure(st, sigma, &cycles) < 0)
		return 0;
	if (cycles <= model * (1 + st->o->tol) + 1e-12)
		return 0;
	return infer_isolate(st, sigma, cycles);
}

static int check_direction(struct state *st, const size_t *support, const double *w, size_t k)
{
	double *x = xmalloc(k * sizeof(double)), *mult = xmalloc(k * sizeof(double));
	double *sigma = xcalloc(st->n, sizeof(double));
	int found = 0;
	if (model_vertex(st, support, w, k, x) == 0) {
		to_integers(x, k, mult);
		for (size_t a = 0; a < k; a++)
			sigma[support[a]] = mult[a];
		found = check_kernel(st, sigma);
	}
	free(x);
	free(mult);
	free(sigma);
	return found;
}

static unsigned next_random(struct state *st, unsigned bound)
{
	st->rng = st->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((st->rng >> 33) % bound);
}

unsigned infer_search_pairs(struct state *st)
{
	unsigned found = 0;
	for (size_t i = 0; i < st->n; i++) {
		for (size_t j = i + 1; j < st->n; j++) {
			size_t support[2] = {i, j};
			double w[2] = {st->single[i], st->single[j]};
			found += check_direction(st, support, w, 2);
		}
		infer_progress(st, "\rpalmed: pairs %zu/%zu, %u resources, %u benchmarks", i + 1, st->n,
			 (unsigned)st->nres, st->stats->benchmarks);
	}
	infer_progress(st, "\n");
	infer_progress(st, "palmed: pairs searched, %u resources, %u benchmarks\n", (unsigned)st->nres,
		 st->stats->benchmarks);
	return found;
}

unsigned infer_search_mixes(struct state *st)
{
	unsigned found = 0;
	size_t support[5];
	double w[5];
	for (unsigned t = 0; t < st->o->random_kernels && st->n >= 3; t++) {
		size_t k = 3 + next_random(st, 3), have = 0;
		if (k > st->n)
			k = st->n;
		while (have < k) {
			size_t f = next_random(st, (unsigned)st->n), dup = 0;
			for (size_t a = 0; a < have; a++)
				dup |= support[a] == f;
			if (!dup) {
				w[have] = st->single[f] * (1 + next_random(st, 3));
				support[have++] = f;
			}
		}
		found += check_direction(st, support, w, k);
	}
	/* Every form at once: where a dispatch-width limit shows. */
	size_t *all = xmalloc(st->n * sizeof(size_t));
	for (size_t j = 0; j < st->n; j++)
		all[j] = j;
	found += check_direction(st, all, st->single, st->n);
	free(all);
	infer_progress(st, "palmed: %u mixes searched, %u resources, %u benchmarks\n",
		 st->o->random_kernels, (unsigned)st->nres, st->stats->benchmarks);
	return found;
}

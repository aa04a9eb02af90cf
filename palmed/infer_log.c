/* The inference's measurement log (every kernel measured, found again
 * by hashing its multiplicities) and what it gives: the model's lower
 * bound, the measurements' upper bound, consistency of a usage vector. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/infer_private.h"
#include "palmed/lp.h"

static void to_kernel(const struct state *st, const double *sigma, struct kernel *k)
{
	kernel_init(k);
	for (size_t j = 0; j < st->n; j++)
		if (sigma[j] > 0.5)
			kernel_add(k, st->forms[j], (unsigned)llround(sigma[j]));
}

static int same_vector(const double *a, const double *b, size_t n)
{
	for (size_t j = 0; j < n; j++)
		if (fabs(a[j] - b[j]) > 1e-9)
			return 0;
	return 1;
}

static size_t hash_vector(const double *sigma, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t j = 0; j < n; j++)
		h = (h ^ (uint64_t)llround(sigma[j] * 16)) * 1099511628211ULL;
	return (size_t)h;
}

/* The measurement of sigma, or NULL. */
struct measured *infer_find_measured(const struct state *st, const double *sigma)
{
	if (!st->nslots)
		return NULL;
	for (size_t i = hash_vector(sigma, st->n) & (st->nslots - 1); st->slots[i];
	     i = (i + 1) & (st->nslots - 1))
		if (same_vector(st->meas[st->slots[i] - 1].sigma, sigma, st->n))
			return &st->meas[st->slots[i] - 1];
	return NULL;
}

static void index_measured(struct state *st, size_t m)
{
	if (2 * (m + 1) > st->nslots) {
		st->nslots = st->nslots ? 2 * st->nslots : 1024;
		free(st->slots);
		st->slots = xcalloc(st->nslots, sizeof(size_t));
		for (size_t b = 0; b < m; b++)
			index_measured(st, b);
	}
	size_t i = hash_vector(st->meas[m].sigma, st->n) & (st->nslots - 1);
	while (st->slots[i])
		i = (i + 1) & (st->nslots - 1);
	st->slots[i] = m + 1;
}

void infer_log_measured(struct state *st, const double *sigma, double cycles)
{
	st->meas = xrealloc(st->meas, (st->nmeas + 1) * sizeof(*st->meas));
	st->meas[st->nmeas].sigma = xmalloc(st->n * sizeof(double));
	memcpy(st->meas[st->nmeas].sigma, sigma, st->n * sizeof(double));
	st->meas[st->nmeas].cycles = cycles;
	struct measured *m = &st->meas[st->nmeas];
	m->nsupport = 0;
	m->support = xmalloc((st->n + 1) * sizeof(unsigned));
	for (size_t j = 0; j < st->n; j++)
		if (sigma[j] != 0)
			m->support[m->nsupport++] = (unsigned)j;
	index_measured(st, st->nmeas++);
}

/* The machine's cycles for kernels ks (in slices: a stop request is
 * honoured between two). errors[i] is set (malloc'd) where status[i] is
 * -1. */
static void measure_kernels(const struct state *st, const struct kernel *ks, size_t n,
			    double *cycles, int *status, char **errors)
{
	infer_meter_run(st->meter, ks, n, cycles, status, errors);
}

void infer_measure_many(struct state *st, double *const *sigmas, size_t count, double *cycles,
			int *ok)
{
	size_t *todo = xmalloc((count + 1) * sizeof(size_t)), ntodo = 0;
	for (size_t i = 0; i < count; i++) {
		const struct measured *known = infer_find_measured(st, sigmas[i]);
		ok[i] = known != NULL;
		if (known) {
			cycles[i] = known->cycles;
			continue;
		}
		int dup = 0;
		for (size_t t = 0; t < ntodo && !dup; t++)
			dup = same_vector(sigmas[todo[t]], sigmas[i], st->n);
		if (!dup)
			todo[ntodo++] = i;
	}
	struct kernel *ks = xcalloc(ntodo + 1, sizeof(*ks));
	double *c = xmalloc((ntodo + 1) * sizeof(double));
	int *status = xmalloc((ntodo + 1) * sizeof(int));
	char **errors = xcalloc(ntodo + 1, sizeof(char *));
	for (size_t t = 0; t < ntodo; t++)
		to_kernel(st, sigmas[todo[t]], &ks[t]);
	if (ntodo)
		measure_kernels(st, ks, ntodo, c, status, errors);
	for (size_t t = 0; t < ntodo; t++) {
		if (status[t] == 0) {
			char *spec = kernel_to_string(&ks[t]);
			model_add_measurement(st->model, spec, c[t]);
			free(spec);
			infer_log_measured(st, sigmas[todo[t]], c[t]);
			st->stats->benchmarks++;
		} else {
			perpi_set_error("%s", errors[t]);
		}
		free(errors[t]);
		kernel_done(&ks[t]);
	}
	for (size_t i = 0; i < count; i++) /* the measured ones, and their copies */
		if (!ok[i]) {
			const struct measured *known = infer_find_measured(st, sigmas[i]);
			if ((ok[i] = known != NULL))
				cycles[i] = known->cycles;
		}
	free(todo);
	free(ks);
	free(c);
	free(status);
	free(errors);
}

/* Measures the integer kernel sigma once; later calls hit the log. */
int infer_measure(struct state *st, const double *sigma, double *cycles)
{
	int ok;
	double *const one[1] = {(double *)sigma};
	infer_measure_many(st, one, 1, cycles, &ok);
	return ok ? 0 : -1;
}

double infer_dot(const double *a, const double *b, size_t n)
{
	double s = 0;
	for (size_t j = 0; j < n; j++)
		s += a[j] * b[j];
	return s;
}

/* The model's cycles: max over known resources (a lower bound of truth). */
double infer_lower_bound(const struct state *st, const double *sigma)
{
	double best = 0;
	for (size_t r = 0; r < st->nres; r++) {
		double load = infer_dot(st->rho[r], sigma, st->n);
		if (load > best)
			best = load;
	}
	return best;
}

/* What the measurements alone guarantee (cycles are convex, homogeneous
 * and monotone): min sum l_B c_B over l >= 0 with sum l_B sigma_B >= sigma,
 * over the measured kernels B of sigma's forms only (a kernel with other
 * forms only loosens the bound, and with tens of thousands of columns
 * the LP took most of a cached build's time). */
double infer_upper_bound(const struct state *st, const double *sigma)
{
	size_t *cols = xmalloc((st->nmeas + 1) * sizeof(size_t)), ncols = 0;
	double value = INFINITY;
	for (size_t b = 0; b < st->nmeas; b++) {
		const struct measured *m = &st->meas[b];
		unsigned k = 0;
		while (k < m->nsupport && sigma[m->support[k]] > 0)
			k++;
		if (k == m->nsupport)
			cols[ncols++] = b;
	}
	struct lp *lp = lp_new(ncols, 0);
	double *row = xmalloc((ncols + 1) * sizeof(*row));
	for (size_t c = 0; c < ncols; c++)
		lp_set_objective(lp, c, st->meas[cols[c]].cycles);
	for (size_t j = 0; j < st->n && ncols; j++) {
		if (sigma[j] <= 0)
			continue;
		for (size_t c = 0; c < ncols; c++)
			row[c] = st->meas[cols[c]].sigma[j];
		lp_add_row(lp, row, sigma[j], INFINITY);
	}
	if (!ncols || lp_solve(lp, NULL, &value) < 0)
		value = INFINITY;
	lp_delete(lp);
	free(row);
	free(cols);
	return value;
}

int infer_consistent(const struct state *st, const double *rho)
{
	for (size_t b = 0; b < st->nmeas; b++)
		if (infer_dot(rho, st->meas[b].sigma, st->n) >
		    st->meas[b].cycles * (1 + st->o->tol) + 1e-9)
			return 0;
	return 1;
}

void infer_add_resource(struct state *st, double *rho, const double *kernel_sigma)
{
	struct kernel k;
	to_kernel(st, kernel_sigma, &k);
	st->rho = xrealloc(st->rho, (st->nres + 1) * sizeof(*st->rho));
	st->satkern = xrealloc(st->satkern, (st->nres + 1) * sizeof(*st->satkern));
	st->rho[st->nres] = rho;
	st->satkern[st->nres] = kernel_to_string(&k);
	st->nres++;
	st->stats->discoveries++;
	kernel_done(&k);
}

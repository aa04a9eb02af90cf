/* The inference, as a cutting-plane search over the throughput polytope:
 *
 * P = { x >= 0 : sum_i x_i rho(i,r) <= 1 for every resource r } holds the
 * instruction rates a CPU sustains; each true resource is a facet of P.
 * The resources found so far (all true) describe an outer polytope
 * P_out >= P, so the model never over-estimates throughput... until a
 * kernel shows it does. We look for such kernels at the vertices of P_out
 * (where the model is most optimistic): maximising the balanced throughput
 * of two forms gives Palmed's quadratic benchmark a^x b^y with
 * x/IPC(a) = y/IPC(b); mixes of 3-5 forms find resources that only a mix
 * saturates. A kernel K whose measured cycles exceed the model's has a
 * missing resource as its bottleneck; repeating K (and, for exact
 * measurements, adding one of every form to break ties) makes that
 * resource the only bottleneck, and one extra instance of each form then
 * reads off its usage rho(form, r): the kernel is Palmed's saturating
 * kernel, the probes are Palmed's last stage. A vertex that previous
 * measurements already settle (the inner bound, an LP over the measured
 * kernels, equals the model) is not measured. */
#include "palmed/infer_private.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "palmed/infer_map.h"
#include "palmed/lp.h"

void infer_options_exact(struct infer_options *o)
{
	memset(o, 0, sizeof(*o));
	o->tol = 1e-6;
	o->scale = 4096;
	o->perturb = 1;
	o->probe_fraction = 0;
	o->random_kernels = 200;
	o->max_passes = 4;
	o->attempts = 3;
	o->seed = 1;
}

void infer_options_noisy(struct infer_options *o)
{
	memset(o, 0, sizeof(*o));
	o->tol = 0.02;
	o->scale = 8;
	o->perturb = 1;
	o->probe_fraction = 0.3;
	o->random_kernels = 40;
	o->max_passes = 2;
	o->attempts = 2;
	o->max_benchmarks = 3000;
	o->seed = 1;
	o->refit = 1;
	o->train_kernels = 2000;
}

int infer_stopped(const struct state *st)
{
	return infer_meter_stopped(st->meter);
}

void infer_label(const struct state *st, const char *fmt, ...)
{
	char line[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	infer_meter_label(st->meter, "%s%s", st->meter->planned ? "core: " : "", line);
}

void infer_note(const struct state *st, const char *fmt, ...)
{
	char line[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	infer_meter_note(st->meter, "%s%s", st->meter->planned ? "core: " : "", line);
}

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

static void log_measured(struct state *st, const double *sigma, double cycles)
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
			log_measured(st, sigmas[todo[t]], c[t]);
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

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Stage 1: each form alone; what cannot be measured is reported. */
static void measure_singles(struct state *st, const char *const *forms, size_t nforms)
{
	char **sorted = xmalloc((nforms + 1) * sizeof(char *));
	for (size_t i = 0; i < nforms; i++)
		sorted[i] = (char *)forms[i];
	qsort(sorted, nforms, sizeof(char *), compare_names);
	st->forms = xmalloc((nforms + 1) * sizeof(char *));
	st->single = xmalloc((nforms + 1) * sizeof(double));
	size_t distinct = 0;
	for (size_t i = 0; i < nforms; i++)
		if (!i || strcmp(sorted[i], sorted[i - 1]))
			sorted[distinct++] = sorted[i];
	struct kernel *ks = xcalloc(distinct + 1, sizeof(*ks));
	double *cycles = xmalloc((distinct + 1) * sizeof(double));
	int *status = xmalloc((distinct + 1) * sizeof(int));
	char **errors = xcalloc(distinct + 1, sizeof(char *));
	for (size_t i = 0; i < distinct; i++) {
		kernel_init(&ks[i]);
		kernel_add(&ks[i], sorted[i], 1);
	}
	infer_label(st, "%zu forms alone", distinct);
	measure_kernels(st, ks, distinct, cycles, status, errors);
	for (size_t i = 0; i < distinct; i++) {
		if (infer_stopped(st)) {
			/* measured or not, nothing is kept: the caller gives up */
		} else if (status[i] < 0) {
			model_add_unmapped(st->model, sorted[i], errors[i]);
		} else {
			model_add_measurement(st->model, sorted[i], cycles[i]);
			st->forms[st->n] = xstrdup(sorted[i]);
			st->single[st->n++] = cycles[i];
			st->stats->benchmarks++;
			st->stats->singles++;
		}
		free(errors[i]);
		kernel_done(&ks[i]);
	}
	free(ks);
	free(cycles);
	free(status);
	free(errors);
	infer_note(st, "%zu of %zu forms measured alone", st->n, nforms);
	free(sorted);
	double *e = xcalloc(st->n + 1, sizeof(double));
	for (size_t i = 0; i < st->n; i++) {
		e[i] = 1;
		log_measured(st, e, st->single[i]);
		e[i] = 0;
	}
	free(e);
}

/* The known resource nearly bounding form i alone (within 15%): noisy
 * probes and the shrinking that follows read usages a little low, or
 * (size_t)-1. */
static size_t nearest_resource(const struct state *st, size_t i)
{
	size_t best = (size_t)-1;
	for (size_t r = 0; r < st->nres; r++)
		if (st->rho[r][i] >= 0.85 * st->single[i] &&
		    (best == (size_t)-1 || st->rho[r][i] > st->rho[best][i]))
			best = r;
	return best;
}

/* Raises form i's usage of resource r to its cycles alone, if every
 * measurement still agrees; returns whether it did. */
static int raise_usage(struct state *st, size_t r, size_t i)
{
	double was = st->rho[r][i];
	st->rho[r][i] = st->single[i];
	if (infer_consistent(st, st->rho[r]))
		return 1;
	st->rho[r][i] = was;
	return 0;
}

/* Stage 2: the resource that bounds each form alone. A form whose
 * resource cannot be isolated gets one of its own, rho = its cycles, which
 * is always true (no kernel runs it faster than alone). */
static void map_singles(struct state *st)
{
	double *e = xcalloc(st->n, sizeof(double));
	for (size_t i = 0; i < st->n && !infer_stopped(st); i++) {
		e[i] = 1;
		size_t near = nearest_resource(st, i);
		if (infer_lower_bound(st, e) >= st->single[i] * (1 - st->o->tol)) {
			/* explained by a resource found before */
		} else if (near != (size_t)-1 && raise_usage(st, near, i)) {
			/* a resource found before, read a little low */
		} else if (infer_isolate(st, e, st->single[i])) {
			/* The resource isolated on the form alone is its
			 * bottleneck alone: the form uses it for its cycles
			 * alone (noisy probes, shrunk to agree with every
			 * measurement, may read less; the later forms it
			 * explains would then each isolate a copy). */
			double *rho = st->rho[st->nres - 1];
			rho[i] = fmax(rho[i], st->single[i]);
		} else {
			double *rho = xcalloc(st->n, sizeof(double));
			rho[i] = st->single[i];
			infer_add_resource(st, rho, e);
		}
		e[i] = 0;
		infer_label(st, "bounding the forms alone %zu/%zu, %zu resources, %u benchmarks",
			    i + 1, st->n, st->nres, st->stats->benchmarks);
	}
	free(e);
	infer_note(st, "%zu resources bound the forms alone, %u benchmarks", st->nres,
		   st->stats->benchmarks);
}

/* Random kernels like the code a model predicts (2-5 distinct forms,
 * multiplicities 1-4): the search measures kernels at the model's extreme
 * points and long kernels to isolate resources, while the final fit should
 * also see ordinary small ones: train_kernels of them, measured together. */
static double *training_kernel(struct state *st, size_t want, unsigned most)
{
	double *sigma = xcalloc(st->n, sizeof(double));
	size_t have = 0;
	if (want > st->n)
		want = st->n;
	while (have < want) {
		size_t f = infer_random(st, (unsigned)st->n);
		if (sigma[f] == 0) {
			sigma[f] = 1 + infer_random(st, most);
			have++;
		}
	}
	return sigma;
}

/* ... and, a quarter as many again, wide mixes like loop bodies (5-10
 * distinct forms, once or twice each): on this Zen 5 a mix of many
 * forms runs 4-9% slower than the mixes of 2-5 forms predict (the
 * independent generator's loop-shaped kernels, docs/BENCHMARKS.md), and
 * the fit must see some. Drawn after the others, so that a database of an
 * earlier build still answers those. */
static void measure_training(struct state *st)
{
	size_t narrow = st->n >= 2 ? st->o->train_kernels : 0, count = narrow + narrow / 4;
	double **sigmas = xmalloc((count + 1) * sizeof(double *)), *cycles;
	int *ok;
	for (size_t t = 0; t < narrow; t++)
		sigmas[t] = training_kernel(st, 2 + infer_random(st, 4), 4);
	for (size_t t = narrow; t < count; t++)
		sigmas[t] = training_kernel(st, 5 + infer_random(st, 6), 2);
	cycles = xmalloc((count + 1) * sizeof(double));
	ok = xmalloc((count + 1) * sizeof(int));
	unsigned before = st->stats->benchmarks;
	for (size_t at = 0; at < count && !infer_stopped(st); at += 256) {
		size_t m = count - at < 256 ? count - at : 256;
		infer_measure_many(st, sigmas + at, m, cycles + at, ok + at);
		infer_label(st, "training kernels %zu/%zu", at + m, count);
	}
	st->stats->trained = st->stats->benchmarks - before;
	for (size_t t = 0; t < count; t++)
		free(sigmas[t]);
	free(sigmas);
	free(cycles);
	free(ok);
}

/* Resource r never loads more than by does, but for the measurements'
 * tolerance (noisy searches find the same resource twice, a few percent
 * apart): dropping r changes no prediction by more than that. */
static int dominated(const struct state *st, size_t r, size_t by)
{
	for (size_t j = 0; j < st->n; j++)
		if (st->rho[r][j] > st->rho[by][j] * (1 + st->o->tol) + 1e-9)
			return 0;
	return 1;
}

static double total_usage(const struct state *st, size_t r)
{
	double sum = 0;
	for (size_t j = 0; j < st->n; j++)
		sum += st->rho[r][j];
	return sum;
}

static struct model *make_model(struct state *st)
{
	struct model *m = st->model;
	for (size_t i = 0; i < st->n; i++)
		model_add_form(m, st->forms[i], st->single[i]);
	size_t *index = xmalloc((st->nres + 1) * sizeof(size_t));
	for (size_t r = 0; r < st->nres; r++) {
		int drop = 0;
		for (size_t q = 0; q < st->nres && !drop; q++)
			if (q != r && dominated(st, r, q) &&
			    (!dominated(st, q, r) || total_usage(st, q) > total_usage(st, r) ||
			     (total_usage(st, q) == total_usage(st, r) && q < r)))
				drop = 1;
		if (drop) {
			index[r] = (size_t)-1;
			continue;
		}
		char name[32];
		snprintf(name, sizeof(name), "R%zu", m->nres);
		index[r] = model_add_resource(m, name, st->satkern[r]);
	}
	for (size_t r = 0; r < st->nres; r++)
		if (index[r] != (size_t)-1)
			for (size_t i = 0; i < st->n; i++)
				model_set_rho(m, i, index[r],
					      st->rho[r][i] < 1e-9 ? 0 : st->rho[r][i]);
	free(index);
	m->benchmarks = st->stats->benchmarks;
	return m;
}

static void state_done(struct state *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->forms[i]);
	for (size_t b = 0; b < st->nmeas; b++) {
		free(st->meas[b].sigma);
		free(st->meas[b].support);
	}
	for (size_t r = 0; r < st->nres; r++) {
		free(st->rho[r]);
		free(st->satkern[r]);
	}
	free(st->forms);
	free(st->single);
	free(st->meas);
	free(st->slots);
	free(st->rho);
	free(st->satkern);
}

static int interrupted(struct state *st)
{
	unsigned done = st->stats->benchmarks;
	state_done(st);
	model_delete(st->model);
	return perpi_set_error("interrupted after %u benchmarks", done);
}

/* Kernels the stages still to come expect, for the estimate of the time
 * left: the search's budget and the training kernels, then about 25
 * probes per form to map. */
static void plan(struct state *st, size_t nmap, int searching)
{
	unsigned long later = (unsigned long)nmap * 28;
	if (searching && st->o->max_benchmarks > st->stats->benchmarks)
		later += st->o->max_benchmarks - st->stats->benchmarks;
	if (st->o->refit)
		later += st->o->train_kernels;
	st->meter->planned = later;
}

/* The core: stages 1-4 (docs/MODEL.md) and the final fit. */
static int infer_core(struct state *st, const char *const *forms, size_t nforms, size_t nmap)
{
	plan(st, nmap, 1);
	measure_singles(st, forms, nforms);
	if (infer_stopped(st))
		return -1;
	if (st->n == 0) {
		perpi_set_error("none of the %zu forms could be measured (%s: %s)", nforms,
				st->model->unmapped[0].form, st->model->unmapped[0].reason);
		return -1;
	}
	map_singles(st);
	for (unsigned pass = 0; pass < st->o->max_passes && !infer_stopped(st); pass++) {
		plan(st, nmap, 1);
		infer_note(st, "pass %u", pass + 1);
		unsigned found = infer_search_pairs(st);
		found += infer_search_mixes(st);
		if (!found)
			break;
	}
	plan(st, nmap, 0);
	if (st->o->refit && !infer_stopped(st)) {
		measure_training(st);
		if (!infer_stopped(st))
			infer_refit(st);
	}
	return infer_stopped(st) ? -1 : 0;
}

/* The forms outside the core, mapped onto its resources. */
static int map_rest(struct infer_meter *mt, struct model *m, const char *const *forms,
		    size_t nforms, const struct infer_options *o, struct infer_stats *stats)
{
	struct infer_map_options mo;
	infer_map_options_default(&mo, o->tol);
	mo.exhaustive = o->map_exhaustive;
	if (o->map_probes)
		mo.max_probes = o->map_probes;
	int rc = infer_map(mt, m, forms, nforms, &mo, &stats->map);
	stats->benchmarks += stats->map.benchmarks;
	if (rc == 0)
		infer_meter_note(mt,
				 "mapping: %u forms onto the core's %u resources (%u groups%s) "
				 "from %u benchmarks (%u probes, %u of them resource by resource); "
				 "%u forms bounded by %u resources of their own",
				 stats->map.singles, stats->map.core_resources, stats->map.groups,
				 stats->map.template_mode
				     ? ": too many, each form a combination of "
				       "core forms"
				     : "",
				 stats->map.benchmarks, stats->map.probes, stats->map.refined,
				 stats->map.own, stats->map.own_resources);
	return rc;
}

int infer_model(const struct measure *ms, const char *const *forms, size_t nforms,
		const struct infer_options *o, struct model **out, struct infer_stats *stats)
{
	struct state st;
	struct infer_stats local;
	struct infer_meter meter;
	memset(&st, 0, sizeof(st));
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	infer_meter_init(&meter, ms, o->stop, o->progress);
	st.ms = ms;
	st.o = o;
	st.stats = stats;
	st.rng = o->seed;
	st.meter = &meter;
	st.model = model_new(ms->cpu);
	*out = NULL;
	if (nforms == 0) {
		model_delete(st.model);
		return perpi_set_error("no instruction forms to model");
	}
	const char *const *core = o->core ? o->core : forms;
	size_t ncore = o->core ? o->ncore : nforms, nmap = o->core ? nforms : 0;
	if (infer_core(&st, core, ncore, nmap) < 0) {
		if (infer_stopped(&st))
			return interrupted(&st);
		state_done(&st);
		model_delete(st.model);
		return -1;
	}
	struct model *m = make_model(&st);
	state_done(&st);
	if (nmap && map_rest(&meter, m, forms, nforms, o, stats) < 0) {
		model_delete(m);
		return perpi_set_error("interrupted after %u benchmarks", stats->benchmarks);
	}
	*out = m;
	return 0;
}

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
#include "palmed/infer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "palmed/lp.h"

struct measured {
	double *sigma; /* n multiplicities */
	double cycles;
};

struct state {
	const struct measure *ms;
	const struct infer_options *o;
	struct infer_stats *stats;
	struct model *model; /* unmapped forms and the measurement log */
	size_t n;            /* forms that could be measured alone */
	char **forms;        /* sorted */
	double *single;      /* cycles of each form alone */
	size_t nmeas;
	struct measured *meas;
	size_t nres;
	double **rho;   /* nres vectors of n */
	char **satkern; /* a kernel whose bottleneck each resource is */
	unsigned long long rng;
};

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
}

/* Lines starting with \r update in place on a terminal and are left out
 * elsewhere (logs keep the stage summaries only). */
static void progress(struct state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(struct state *st, const char *fmt, ...)
{
	if (!st->o->progress)
		return;
	if (!isatty(fileno(st->o->progress)) && (fmt[0] == '\r' || !strcmp(fmt, "\n")))
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(st->o->progress, fmt, ap);
	va_end(ap);
	fflush(st->o->progress);
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

/* Measures the integer kernel sigma once; later calls hit the log. */
static int measure(struct state *st, const double *sigma, double *cycles)
{
	for (size_t i = 0; i < st->nmeas; i++)
		if (same_vector(st->meas[i].sigma, sigma, st->n)) {
			*cycles = st->meas[i].cycles;
			return 0;
		}
	struct kernel k;
	to_kernel(st, sigma, &k);
	int rc = st->ms->cycles(st->ms->ctx, &k, cycles);
	if (rc == 0 && !(*cycles > 0 && isfinite(*cycles)))
		rc = perpi_set_error("kernel measured at %g cycles", *cycles);
	if (rc == 0) {
		char *spec = kernel_to_string(&k);
		model_add_measurement(st->model, spec, *cycles);
		free(spec);
		st->meas = xrealloc(st->meas, (st->nmeas + 1) * sizeof(*st->meas));
		st->meas[st->nmeas].sigma = xmalloc(st->n * sizeof(double));
		memcpy(st->meas[st->nmeas].sigma, sigma, st->n * sizeof(double));
		st->meas[st->nmeas].cycles = *cycles;
		st->nmeas++;
		st->stats->benchmarks++;
	}
	kernel_done(&k);
	return rc;
}

static double dot(const double *a, const double *b, size_t n)
{
	double s = 0;
	for (size_t j = 0; j < n; j++)
		s += a[j] * b[j];
	return s;
}

/* The model's cycles: max over known resources (a lower bound of truth). */
static double lower_bound(const struct state *st, const double *sigma)
{
	double best = 0;
	for (size_t r = 0; r < st->nres; r++) {
		double load = dot(st->rho[r], sigma, st->n);
		if (load > best)
			best = load;
	}
	return best;
}

/* What the measurements alone guarantee (cycles are convex, homogeneous
 * and monotone): min sum l_B c_B over l >= 0 with sum l_B sigma_B >= sigma. */
static double upper_bound(const struct state *st, const double *sigma)
{
	struct lp *lp = lp_new(st->nmeas, 0);
	double *row = xmalloc((st->nmeas + 1) * sizeof(*row)), value = INFINITY;
	for (size_t b = 0; b < st->nmeas; b++)
		lp_set_objective(lp, b, st->meas[b].cycles);
	for (size_t j = 0; j < st->n; j++) {
		if (sigma[j] <= 0)
			continue;
		for (size_t b = 0; b < st->nmeas; b++)
			row[b] = st->meas[b].sigma[j];
		lp_add_row(lp, row, sigma[j], INFINITY);
	}
	if (lp_solve(lp, NULL, &value) < 0)
		value = INFINITY;
	lp_delete(lp);
	free(row);
	return value;
}

static int consistent(const struct state *st, const double *rho)
{
	for (size_t b = 0; b < st->nmeas; b++)
		if (dot(rho, st->meas[b].sigma, st->n) > st->meas[b].cycles * (1 + st->o->tol) + 1e-9)
			return 0;
	return 1;
}

static void add_resource(struct state *st, double *rho, const double *kernel_sigma)
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

/* How many instances of form j to add to base (cb cycles): about
 * probe_fraction of its cycles, but few enough that no known resource
 * overtakes the one base isolates (its cycles are cb, a known resource's
 * load is exact), so the extra cycles come from that resource. */
static double probe_count(const struct state *st, const double *base, double cb, size_t j)
{
	if (st->o->probe_fraction <= 0)
		return 1;
	double m = st->o->probe_fraction * cb / st->single[j];
	for (size_t r = 0; r < st->nres; r++)
		if (st->rho[r][j] > 0)
			m = fmin(m, 0.8 * (cb - dot(st->rho[r], base, st->n)) / st->rho[r][j]);
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

/* Noisy probes over-estimate where the isolated resource stopped being
 * the bottleneck: shrink until every measurement agrees. */
static void shrink_to_measurements(const struct state *st, double *rho)
{
	double shrink = 1;
	for (size_t b = 0; b < st->nmeas; b++) {
		double load = dot(rho, st->meas[b].sigma, st->n);
		if (load > st->meas[b].cycles)
			shrink = fmin(shrink, st->meas[b].cycles / load);
	}
	for (size_t j = 0; j < st->n; j++)
		rho[j] *= shrink;
}

/* The usage vector read off base (cb cycles): one probe per form. */
static double *probe_forms(struct state *st, const double *base, double cb)
{
	double *rho = xcalloc(st->n, sizeof(double)), *probe = xmalloc(st->n * sizeof(double));
	double cp;
	for (size_t j = 0; j < st->n; j++) {
		double extra = probe_count(st, base, cb, j);
		memcpy(probe, base, st->n * sizeof(double));
		probe[j] += extra;
		if (measure(st, probe, &cp) < 0) {
			free(rho);
			rho = NULL;
			break;
		}
		rho[j] = fmax(0, (cp - cb) / extra);
	}
	free(probe);
	return rho;
}

/* A kernel (cycles ck) whose bottleneck is unknown to the model: repeat
 * it so that bottleneck dominates, then add instances of each form in
 * turn; what they add is the resource's usage. */
static int isolate(struct state *st, const double *kernel, double ck)
{
	size_t n = st->n;
	double *base = xmalloc(n * sizeof(double)), *g = xmalloc(n * sizeof(double));
	double *rho = NULL, cb;
	int found = 0, noisy = st->o->probe_fraction > 0;
	for (unsigned attempt = 0; attempt < st->o->attempts && !found; attempt++) {
		double scale = (double)st->o->scale * (1u << (2 * attempt));
		perturbation(st, noisy ? 0.25 * scale * ck : INFINITY, attempt, g);
		for (size_t j = 0; j < n; j++)
			base[j] = scale * kernel[j] + g[j];
		free(rho);
		if (measure(st, base, &cb) < 0 || !(rho = probe_forms(st, base, cb)))
			break;
		found = fabs(dot(rho, base, n) - cb) <= st->o->tol * cb && consistent(st, rho) &&
			dot(rho, kernel, n) > lower_bound(st, kernel) * (1 + st->o->tol);
		if (!found && noisy && attempt + 1 == st->o->attempts) {
			shrink_to_measurements(st, rho);
			found = dot(rho, kernel, n) > lower_bound(st, kernel) * (1 + st->o->tol / 4);
		}
		if (found) {
			add_resource(st, rho, kernel);
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
	double model = lower_bound(st, sigma), cycles;
	if (st->o->max_benchmarks && st->stats->benchmarks >= st->o->max_benchmarks) {
		st->stats->budget_exhausted = 1;
		return 0;
	}
	st->stats->candidates++;
	int known = 0;
	for (size_t b = 0; b < st->nmeas && !known; b++)
		known = same_vector(st->meas[b].sigma, sigma, st->n);
	if (!known && upper_bound(st, sigma) <= model * (1 + st->o->tol) + 1e-12) {
		st->stats->certified++;
		return 0;
	}
	if (measure(st, sigma, &cycles) < 0)
		return 0;
	if (cycles <= model * (1 + st->o->tol) + 1e-12)
		return 0;
	return isolate(st, sigma, cycles);
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

static unsigned search_pairs(struct state *st)
{
	unsigned found = 0;
	for (size_t i = 0; i < st->n; i++) {
		for (size_t j = i + 1; j < st->n; j++) {
			size_t support[2] = {i, j};
			double w[2] = {st->single[i], st->single[j]};
			found += check_direction(st, support, w, 2);
		}
		progress(st, "\rpalmed: pairs %zu/%zu, %u resources, %u benchmarks", i + 1, st->n,
			 (unsigned)st->nres, st->stats->benchmarks);
	}
	progress(st, "\n");
	progress(st, "palmed: pairs searched, %u resources, %u benchmarks\n", (unsigned)st->nres,
		 st->stats->benchmarks);
	return found;
}

static unsigned search_mixes(struct state *st)
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
	progress(st, "palmed: %u mixes searched, %u resources, %u benchmarks\n",
		 st->o->random_kernels, (unsigned)st->nres, st->stats->benchmarks);
	return found;
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
	for (size_t i = 0; i < nforms; i++) {
		if (i && !strcmp(sorted[i], sorted[i - 1]))
			continue;
		struct kernel k;
		double cycles;
		kernel_init(&k);
		kernel_add(&k, sorted[i], 1);
		if (st->ms->cycles(st->ms->ctx, &k, &cycles) < 0 || !(cycles > 0)) {
			model_add_unmapped(st->model, sorted[i], perpi_error());
		} else {
			model_add_measurement(st->model, sorted[i], cycles);
			st->forms[st->n] = xstrdup(sorted[i]);
			st->single[st->n++] = cycles;
			st->stats->benchmarks++;
			st->stats->singles++;
		}
		kernel_done(&k);
		progress(st, "\rpalmed: singles %zu/%zu", i + 1, nforms);
	}
	progress(st, "\n");
	progress(st, "palmed: %zu of %zu forms measured alone\n", st->n, nforms);
	free(sorted);
	for (size_t i = 0; i < st->n; i++) {
		st->meas = xrealloc(st->meas, (st->nmeas + 1) * sizeof(*st->meas));
		st->meas[st->nmeas].sigma = xcalloc(st->n, sizeof(double));
		st->meas[st->nmeas].sigma[i] = 1;
		st->meas[st->nmeas].cycles = st->single[i];
		st->nmeas++;
	}
}

/* Stage 2: the resource that bounds each form alone. A form whose
 * resource cannot be isolated gets one of its own, rho = its cycles, which
 * is always true (no kernel runs it faster than alone). */
static void map_singles(struct state *st)
{
	double *e = xcalloc(st->n, sizeof(double));
	for (size_t i = 0; i < st->n; i++) {
		e[i] = 1;
		if (lower_bound(st, e) < st->single[i] * (1 - st->o->tol) &&
		    !isolate(st, e, st->single[i])) {
			double *rho = xcalloc(st->n, sizeof(double));
			rho[i] = st->single[i];
			add_resource(st, rho, e);
		}
		e[i] = 0;
	}
	free(e);
	progress(st, "palmed: %zu resources bound the forms alone, %u benchmarks\n", st->nres,
		 st->stats->benchmarks);
}

static int dominated(const struct state *st, size_t r, size_t by)
{
	for (size_t j = 0; j < st->n; j++)
		if (st->rho[r][j] > st->rho[by][j] + 1e-9)
			return 0;
	return 1;
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
			if (q != r && dominated(st, r, q) && (!dominated(st, q, r) || q < r))
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
				model_set_rho(m, i, index[r], st->rho[r][i] < 1e-9 ? 0 : st->rho[r][i]);
	free(index);
	m->benchmarks = st->stats->benchmarks;
	return m;
}

static void state_done(struct state *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->forms[i]);
	for (size_t b = 0; b < st->nmeas; b++)
		free(st->meas[b].sigma);
	for (size_t r = 0; r < st->nres; r++) {
		free(st->rho[r]);
		free(st->satkern[r]);
	}
	free(st->forms);
	free(st->single);
	free(st->meas);
	free(st->rho);
	free(st->satkern);
}

int infer_model(const struct measure *ms, const char *const *forms, size_t nforms,
		const struct infer_options *o, struct model **out, struct infer_stats *stats)
{
	struct state st;
	struct infer_stats local;
	memset(&st, 0, sizeof(st));
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	st.ms = ms;
	st.o = o;
	st.stats = stats;
	st.rng = o->seed;
	st.model = model_new(ms->cpu);
	*out = NULL;
	if (nforms == 0) {
		model_delete(st.model);
		return perpi_set_error("no instruction forms to model");
	}
	measure_singles(&st, forms, nforms);
	if (st.n == 0) {
		state_done(&st);
		model_delete(st.model);
		return perpi_set_error("none of the %zu forms could be measured (first: %s: %s)",
				       nforms, forms[0], "see the unmapped list");
	}
	map_singles(&st);
	for (unsigned pass = 0; pass < o->max_passes; pass++) {
		progress(&st, "palmed: pass %u\n", pass + 1);
		unsigned found = search_pairs(&st);
		found += search_mixes(&st);
		if (!found)
			break;
	}
	*out = make_model(&st);
	state_done(&st);
	return 0;
}

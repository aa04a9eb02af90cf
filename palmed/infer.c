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
#include "palmed/form.h"
#include "palmed/infer_map.h"
#include "palmed/infer_polish.h"
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
	o->width = 1;
	o->max_resources = 20;
	o->train_kernels = 2000;
	o->train_pairs = 1;
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
	infer_meter_run(st->meter, ks, distinct, cycles, status, errors);
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
		infer_log_measured(st, e, st->single[i]);
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

/* Forms i and j are integer forms (no MMX, XMM, YMM or ZMM operand) within
 * a factor 2 of each other's cycles alone: the training measures them as
 * a pair. */
static int pair_of_integers(const struct state *st, size_t i, size_t j)
{
	double r = st->single[i] / st->single[j];
	return !strstr(st->forms[i], "MM") && !strstr(st->forms[j], "MM") && r <= 2 && r >= 0.5;
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
 * earlier build still answers those. Then the pairs of integer forms. */
static void measure_training(struct state *st)
{
	size_t narrow = st->n >= 2 ? st->o->train_kernels : 0, wide = narrow / 4, pairs = 0;
	for (size_t i = 0; i < st->n && st->o->train_pairs; i++)
		for (size_t j = i + 1; j < st->n; j++)
			pairs += pair_of_integers(st, i, j);
	size_t count = narrow + wide + pairs, t = 0;
	double **sigmas = xmalloc((count + 1) * sizeof(double *)), *cycles;
	int *ok;
	for (; t < narrow; t++)
		sigmas[t] = training_kernel(st, 2 + infer_random(st, 4), 4);
	for (; t < narrow + wide; t++)
		sigmas[t] = training_kernel(st, 5 + infer_random(st, 6), 2);
	for (size_t i = 0; i < st->n && pairs; i++)
		for (size_t j = i + 1; j < st->n; j++)
			if (pair_of_integers(st, i, j)) {
				sigmas[t] = xcalloc(st->n, sizeof(double));
				double r = st->single[i] / st->single[j];
				sigmas[t][i] = r < 1 ? round(1 / r) : 1;
				sigmas[t++][j] = r < 1 ? 1 : round(r);
			}
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

/* Kernels the check in mixes measures for each mapped form, about: its
 * random mixes and one per resource it uses (4 on the Zen 5). */
static unsigned checked(const struct infer_options *o)
{
	return o->polish ? o->polish + 4 : 0;
}

/* Kernels the stages still to come expect, for the estimate of the time
 * left: the search's budget and the training kernels, then about 25
 * probes per form to map and the check's mixes. */
static void plan(struct state *st, size_t nmap, int searching)
{
	unsigned long later = (unsigned long)nmap * (28 + checked(st->o));
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
	mo.no_split = !o->map_split;
	mo.no_siblings = o->map_no_siblings;
	mo.no_locked = o->map_no_locked;
	if (o->map_probes)
		mo.max_probes = o->map_probes;
	mo.planned_after = (unsigned long)nforms * checked(o);
	mo.width = o->width;
	int rc = infer_map(mt, m, forms, nforms, &mo, &stats->map);
	stats->benchmarks += stats->map.benchmarks;
	if (rc == 0)
		infer_meter_note(
		    mt,
		    "mapping: %u forms onto the core's %u resources (%u groups%s; %u "
		    "probed resource by resource, their base unusable; %u "
		    "bases refused or slower than the core's model, %u replaced) "
		    "from %u benchmarks (%u probes, %u of them resource by resource); "
		    "%u forms run as a core form of their shape (%u pairs; %u "
		    "memory forms of another operation left to the probes, their "
		    "register forms on other units); "
		    "%u indexed memory forms as their unindexed form, scaled; "
		    "%u forms (%u core forms its resources leave short) bounded "
		    "by %u resources of their own; %u measured "
		    "with helpers, their usages taken off; %u probes beside zero "
		    "idioms, the idioms' cycles taken off; %u resources split off "
		    "for %u forms from %u pairs; %u locked forms on one resource "
		    "together from %u pairs; %u of %u REP forms given a start "
		    "(timed at two lengths)",
		    stats->map.singles, stats->map.core_resources, stats->map.groups,
		    stats->map.template_mode ? ": too many, each form a combination of "
					       "core forms"
					     : "",
		    stats->map.groups_apart, stats->map.bad_bases, stats->map.rebased,
		    stats->map.benchmarks, stats->map.probes, stats->map.refined,
		    stats->map.siblings, stats->map.sibling_pairs, stats->map.siblings_apart,
		    stats->map.twins, stats->map.own, stats->map.core_own, stats->map.own_resources,
		    stats->map.with_helpers, stats->map.beside_helpers, stats->map.split_resources,
		    stats->map.split_forms, stats->map.split_pairs, stats->map.locked,
		    stats->map.locked_pairs, stats->map.strings, stats->map.string_pairs);
	return rc;
}

/* Kernels of up to this many instructions are what the width is fitted
 * to (the refit's short kernels, infer_refit.c). */
#define WIDTH_SMALL 24

double infer_fit_width(const struct infer_width_point *pts, size_t np, double least, double most)
{
	double best = most, best_err = INFINITY;
	for (double w = most; w >= least * (1 - 1e-9); w -= 0.01 * most) {
		double err = 0;
		for (size_t i = 0; i < np; i++)
			err +=
			    fabs(fmax(pts[i].load, pts[i].n / w) - pts[i].cycles) / pts[i].cycles;
		if (err < best_err * (1 - 1e-9))
			best_err = err, best = w;
	}
	return best;
}

/* Forms that do nothing: NOP (of any operands), ENDBR32, ENDBR64. A Zen 4
 * runs them 11.9 a cycle, and a move beside a NOP too (MOV_GPR64_GPR64 NOP:
 * 11.8), fused to the instruction before, where no other kernel ran over 6
 * (its dispatch): a width read off them (8.9) put blocks of moves and zero
 * idioms at 8.9 instructions a cycle, which ran at 5.96. */
int infer_form_idle(const char *name)
{
	return !strcmp(name, "NOP") || !strncmp(name, "NOP_", 4) || !strcmp(name, "ENDBR32") ||
	       !strcmp(name, "ENDBR64");
}

/* A form that does nothing is fused to the instruction before when a
 * kernel with it ran this much faster than any kernel without such forms
 * (a Zen 4: 11.8 a cycle against 6; a Zen 5 runs NOPs within its width,
 * 7.8 a cycle against 7.97). */
#define IDLE_FUSED 1.1

/* The width's slot a form that does nothing takes: when it is fused
 * (fused: IDLE_FUSED), none if its other usages bound it alone (it runs
 * beside the others for free); else at most its cycles alone. A Zen 5's
 * NOP bound alone by a core resource a zero idiom does not load took no
 * slot without the measured test: `nop dword [m]; xor r32, r32` came out
 * at 13.4 instructions a cycle, measured 7.7. */
static double idle_slot(const struct model *m, size_t f, double w, int fused)
{
	double most = 0;
	for (size_t r = 0; r < m->nres; r++)
		if (strcmp(m->res[r].name, MODEL_WIDTH))
			most = fmax(most, model_rho(m, f, r));
	if (!(m->form_cycles[f] > 0))
		return 1 / w;
	return fused && most >= 0.95 * m->form_cycles[f] ? 0 : fmin(1 / w, m->form_cycles[f]);
}

int infer_form_widthless(const char *name)
{
	struct form f;
	return infer_form_idle(name) || form_parse(name, &f) < 0 || form_is_string(&f);
}

double infer_fastest(const struct model *m, const char **at)
{
	double best = 0;
	if (at)
		*at = NULL;
	for (size_t b = 0; b < m->nmeas; b++) {
		struct kernel k;
		if (m->meas[b].cycles <= 0 || kernel_parse(m->meas[b].kernel, &k) < 0)
			continue;
		int left_out = 0;
		for (size_t t = 0; t < k.n && !left_out; t++)
			left_out = infer_form_widthless(k.terms[t].form);
		double ipc = kernel_size(&k) / m->meas[b].cycles;
		if (!left_out && ipc > best) {
			best = ipc;
			if (at)
				*at = m->meas[b].kernel;
		}
		kernel_done(&k);
	}
	return best;
}

/* The machine's width: one more resource, used 1/W by every form. No form
 * executes without a slot of decode, rename and retirement, however its
 * usages spread over the other resources: without it, blocks of
 * eliminated moves and zero idioms (mov r, r; xor r, r; cmp) came out at
 * 10-13 instructions a cycle on a Zen 5 that runs at most 7.94 (docs/
 * MODEL.md, "The width"). W is at most the most instructions a cycle any
 * measured kernel ran (string forms left out: a rep movsb is one
 * instruction of many operations), and within a quarter below it the
 * value that explains the short measured kernels best (the least mean
 * relative error, the refit's criterion): a machine that ran its fastest
 * kernel at W need not sustain W on the others (the Zen 5: 7.97 at most,
 * 7.0-7.4 fit best, by database). Kernels of forms that do nothing
 * (infer_form_idle) are left out of W, and each such form takes the slot
 * idle_slot gives it, fused when a kernel with it ran over IDLE_FUSED
 * times the fastest without. Nothing is added when no kernel was
 * measured. */
void infer_add_width(struct model *m)
{
	const char *at;
	double best = infer_fastest(m, &at);
	struct infer_width_point *pts = xmalloc((m->nmeas + 1) * sizeof(*pts));
	double *idle_ipc = xcalloc(m->nforms + 1, sizeof(*idle_ipc));
	size_t np = 0;
	for (size_t b = 0; b < m->nmeas && best > 0; b++) {
		struct kernel k;
		if (m->meas[b].cycles <= 0 || kernel_parse(m->meas[b].kernel, &k) < 0)
			continue;
		double ipc = kernel_size(&k) / m->meas[b].cycles;
		int left_out = 0;
		for (size_t t = 0; t < k.n; t++) {
			long idle = infer_form_idle(k.terms[t].form)
					? model_form_index(m, k.terms[t].form)
					: -1;
			if (idle >= 0)
				idle_ipc[idle] = fmax(idle_ipc[idle], ipc);
			left_out |= infer_form_widthless(k.terms[t].form);
		}
		struct prediction p;
		if (!left_out && kernel_size(&k) <= WIDTH_SMALL && model_predict(m, &k, &p) == 0) {
			if (p.nuncovered == 0)
				pts[np++] = (struct infer_width_point){
				    p.cycles, (double)kernel_size(&k), m->meas[b].cycles};
			prediction_done(&p);
		}
		kernel_done(&k);
	}
	if (best > 0) {
		double w = infer_fit_width(pts, np, 0.75 * best, best);
		size_t r = model_add_resource(m, MODEL_WIDTH, at);
		for (size_t i = 0; i < m->nforms; i++)
			model_set_rho(m, i, r,
				      infer_form_idle(m->forms[i])
					  ? idle_slot(m, i, w, idle_ipc[i] > IDLE_FUSED * best)
					  : 1 / w);
	}
	free(idle_ipc);
	free(pts);
}

/* The mapped forms checked in mixes with core forms (infer_polish.h),
 * after the width: its slots are part of every mix's cycles. */
static int polish(struct infer_meter *mt, struct model *m, const struct infer_options *o,
		  struct infer_stats *stats)
{
	struct infer_polish_options po;
	struct infer_polish_stats ps;
	infer_polish_options_default(&po);
	po.per_form = o->polish;
	po.targeted = 1;
	po.seed = o->seed;
	po.tol = o->tol;
	int rc = infer_polish(mt, m, o->core, o->ncore, &po, &ps);
	/* the mixes, and the pairs of its other stages (pushes: 3, pops: 1) */
	stats->benchmarks += ps.kernels + ps.own_pairs + ps.vex_pairs +
			     (ps.pushes_gate >= 0 ? 3 : 0) + (ps.pops_gate >= 0 ? 1 : 0) +
			     (unsigned)ps.turn_measured;
	if (rc == 0)
		infer_meter_note(
		    mt,
		    "mapped forms checked beside core forms: %u forms in %u mixes "
		    "(%u beside a core resource they do not use) "
		    "(%u memory and carry forms beside their register form or the "
		    "form without the carry, %u memory forms beside the plain load, "
		    "%u with an immediate beside an immediate move; %u slower "
		    "beside a move than alone, given that on a resource; "
		    "%u given that form's unit), %u refitted; "
		    "mean error of their mixes %.2f%% -> %.2f%%; resources of their "
		    "own beside core forms: %u kernels, %u usages of core resources "
		    "added; %u usages raised by %u pairs of core resources, one inside "
		    "the other; %u VEX forms beside their legacy forms, %u given "
		    "their usages; pushes apart from the front end: %s (%u forms; "
		    "%u stores beside them; %u given the loads' address units); "
		    "pops beside loads: %s (%u forms); a store to another line "
		    "in turn: %s%.2f cycles, beside a read-modify-write %.2f",
		    ps.forms, ps.kernels, ps.absent_mixes, ps.twins, ps.load_mixes,
		    ps.immediate_mixes, ps.sequenced, ps.twin_floors, ps.changed, 100 * ps.before,
		    100 * ps.after, ps.own_pairs, ps.own_shared, ps.contained, ps.containing,
		    ps.vex_pairs, ps.vex_taken,
		    ps.pushes_gate == 1	  ? "yes"
		    : ps.pushes_gate == 0 ? "no, the pairs share"
					  : "not checked",
		    ps.pushes_moved, ps.stores_loading, ps.pushes_raised,
		    ps.pops_gate == 1	? "they share"
		    : ps.pops_gate == 0 ? "apart"
					: "not checked",
		    ps.pops_raised, ps.turn_measured ? "" : "not checked, ", ps.store_turn,
		    ps.rmw_turn);
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
	if (o->busy_wait)
		meter.busy_wait = o->busy_wait > 0 ? o->busy_wait : 0;
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
	if (o->width)
		infer_add_width(m);
	if (nmap && o->polish && polish(&meter, m, o, stats) < 0) {
		model_delete(m);
		return perpi_set_error("interrupted after %u benchmarks", stats->benchmarks);
	}
	*out = m;
	return 0;
}

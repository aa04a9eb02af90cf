/* The base kernels of the mapping stage: for a group S of the core's
 * resources, multiplicities of core forms that load every resource of S
 * equally and every other one as little as possible (an LP), rounded to a
 * short kernel. Groups are formed greedily: a resource joins a group while
 * one base can still saturate them all with the margin asked for. A
 * kernel saturates at most as many resources at once as the dispatch
 * width allows, so the groups number about a third of the resources.
 * A base holds no legacy SSE form without a VEX twin (SHA...) unless its
 * group needs one, and then no VEX or EVEX form: the runner refuses a
 * kernel holding both (transitions). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/form.h"
#include "palmed/infer_map_private.h"
#include "palmed/lp.h"

void map_core_init(struct map_core *c, const struct model *m)
{
	c->n = m->nforms;
	c->R = m->nres;
	c->forms = xmalloc((c->n + 1) * sizeof(char *));
	for (size_t j = 0; j < c->n; j++)
		c->forms[j] = xstrdup(m->forms[j]);
	c->single = xmalloc((c->n + 1) * sizeof(double));
	memcpy(c->single, m->form_cycles, c->n * sizeof(double));
	c->enc = xmalloc(c->n + 1);
	c->banned = xcalloc(c->n + 1, 1);
	for (size_t j = 0; j < c->n; j++)
		c->enc[j] = (unsigned char)form_encoding(c->forms[j]);
	c->rho = xmalloc((c->R + 1) * sizeof(double *));
	for (size_t r = 0; r < c->R; r++) {
		c->rho[r] = xmalloc((c->n + 1) * sizeof(double));
		for (size_t j = 0; j < c->n; j++)
			c->rho[r][j] = model_rho(m, j, r);
	}
}

void map_core_done(struct map_core *c)
{
	for (size_t r = 0; r < c->R; r++)
		free(c->rho[r]);
	free(c->rho);
	free(c->single);
	free(c->enc);
	free(c->banned);
	for (size_t j = 0; j < c->n; j++)
		free(c->forms[j]);
	free(c->forms);
}

void map_base_done(struct map_base *b)
{
	free(b->res);
	free(b->sigma);
	free(b->helper);
	memset(b, 0, sizeof(*b));
}

void map_bases_free(struct map_base *bases, size_t n)
{
	for (size_t b = 0; b < n; b++)
		map_base_done(&bases[b]);
	free(bases);
}

void map_base_kernel(const struct map_core *c, const struct map_base *b, unsigned copies,
		     struct kernel *k)
{
	for (size_t j = 0; j < c->n; j++)
		if (b->sigma[j] > 0.5)
			kernel_add(k, c->forms[j], copies * (unsigned)llround(b->sigma[j]));
}

/* max t such that some sigma >= 0 of the forms neither banned nor of
 * encoding `leave` loads every resource of S to 1 and every other to at
 * most 1 - t (the cheapest such sigma among the best); -INFINITY if no
 * sigma loads S equally (sigma then untouched). */
static double solve_group(const struct map_core *c, const unsigned char *in, int leave,
			  double *sigma)
{
	size_t n = c->n;
	struct lp *lp = lp_new(n + 1, 1);
	double *row = xcalloc(n + 2, sizeof(double)), *x = xcalloc(n + 2, sizeof(double)), t;
	lp_set_objective(lp, n, 1);
	lp_set_bounds(lp, n, -1, 1);
	for (size_t j = 0; j < n; j++) {
		lp_set_objective(lp, j, -1e-4 * c->single[j]);
		if (c->banned[j] || (leave && c->enc[j] == leave))
			lp_set_bounds(lp, j, 0, 0);
	}
	for (size_t r = 0; r < c->R; r++) {
		memcpy(row, c->rho[r], n * sizeof(double));
		row[n] = in[r] ? 0 : 1;
		lp_add_row(lp, row, in[r] ? 1 : -INFINITY, 1);
	}
	if (lp_solve(lp, x, NULL) < 0) {
		t = -INFINITY;
	} else {
		t = x[n];
		memcpy(sigma, x, n * sizeof(double));
	}
	lp_delete(lp);
	free(row);
	free(x);
	return t;
}

/* The LP's sigma without legacy SSE forms that have no VEX twin (SHA...):
 * a base with one would refuse every VEX or EVEX form probed beside it
 * (transitions). Only when the other forms cannot saturate S with the
 * margin `enough`, the better of that and the LP without VEX forms. */
static double group_lp(const struct map_core *c, const unsigned char *in, double enough,
		       double *sigma)
{
	double t = solve_group(c, in, FORM_ENC_SSE_ALONE, sigma);
	if (t >= enough)
		return t;
	double *other = xmalloc((c->n + 1) * sizeof(double));
	double u = solve_group(c, in, FORM_ENC_VEX, other);
	if (u > t) {
		t = u;
		memcpy(sigma, other, c->n * sizeof(double));
	}
	free(other);
	return t;
}

/* The model's view of sigma for group S: T the heaviest load in S, *tight
 * the lightest load in S over T, the margin over the rest. */
static double evaluate(const struct map_core *c, const unsigned char *in, const double *sigma,
		       double *tight, double *margin)
{
	double T = 0, least = INFINITY, other = 0;
	for (size_t r = 0; r < c->R; r++) {
		double load = 0;
		for (size_t j = 0; j < c->n; j++)
			load += c->rho[r][j] * sigma[j];
		if (in[r]) {
			T = fmax(T, load);
			least = fmin(least, load);
		} else {
			other = fmax(other, load);
		}
	}
	*tight = T > 0 ? least / T : 0;
	*margin = T > 0 ? 1 - other / T : -INFINITY;
	return T;
}

/* The shortest rounding of the LP's sigma that keeps S tight (within 3%)
 * and the margin (within a fifth of the LP's); else the best found. */
static void integer_base(const struct map_core *c, const unsigned char *in, const double *real,
			 double lp_margin, unsigned max_base, struct map_base *b)
{
	size_t n = c->n;
	double total = 0, best_score = -INFINITY, *sigma = xmalloc((n + 1) * sizeof(double));
	size_t support = 0;
	for (size_t j = 0; j < n; j++) {
		total += real[j];
		support += real[j] > 1e-9;
	}
	b->sigma = xcalloc(n + 1, sizeof(double));
	for (unsigned s = support ? (unsigned)support : 1; s <= max_base && total > 0; s++) {
		double tight, margin, T;
		for (size_t j = 0; j < n; j++)
			sigma[j] = round(real[j] * s / total);
		T = evaluate(c, in, sigma, &tight, &margin);
		if (T <= 0)
			continue;
		double score = fmin(margin, lp_margin) + (tight - 1) * 4;
		if (score > best_score + 1e-12) {
			best_score = score;
			memcpy(b->sigma, sigma, n * sizeof(double));
			b->T = T;
			b->margin = margin;
		}
		if (tight >= 0.97 && margin >= 0.8 * lp_margin)
			break;
	}
	free(sigma);
}

static void add_base(const struct map_core *c, const unsigned char *in, const double *real,
		     double lp_margin, const struct infer_map_options *o, struct map_base **bases,
		     size_t *nbases)
{
	*bases = xrealloc(*bases, (*nbases + 1) * sizeof(**bases));
	struct map_base *b = &(*bases)[(*nbases)++];
	memset(b, 0, sizeof(*b));
	b->helper_cost = NAN;
	b->res = xmalloc((c->R + 1) * sizeof(size_t));
	for (size_t r = 0; r < c->R; r++)
		if (in[r])
			b->res[b->nres++] = r;
	integer_base(c, in, real, lp_margin, o->max_base, b);
}

int map_base_again(const struct map_core *c, const struct infer_map_options *o,
		   const struct map_base *b, struct map_base *out)
{
	unsigned char *in = xcalloc(c->R + 1, 1);
	double *sigma = xcalloc(c->n + 1, sizeof(double));
	for (size_t a = 0; a < b->nres; a++)
		in[b->res[a]] = 1;
	double t = group_lp(c, in, o->min_margin, sigma);
	int rc = -1;
	if (t >= 0.1) {
		struct map_base *made = NULL;
		size_t n = 0;
		add_base(c, in, sigma, t, o, &made, &n);
		*out = made[0];
		free(made);
		rc = out->margin >= 0.1 ? 0 : -1;
		if (rc < 0)
			map_base_done(out);
	}
	free(in);
	free(sigma);
	return rc;
}

static const double *sort_key;

static int by_key_desc(const void *a, const void *b)
{
	double x = sort_key[*(const size_t *)a], y = sort_key[*(const size_t *)b];
	return x > y   ? -1
	       : x < y ? 1
		       : (*(const size_t *)a > *(const size_t *)b) -
			     (*(const size_t *)a < *(const size_t *)b);
}

/* Whether some core form uses both r and q (for a tenth of its cycles
 * alone or more): resources in one group should serve different forms,
 * so that a form reads positive on few of a group's resources. */
static int share_forms(const struct map_core *c, size_t r, size_t q)
{
	for (size_t j = 0; j < c->n; j++)
		if (c->rho[r][j] >= 0.1 * c->single[j] && c->rho[q][j] >= 0.1 * c->single[j])
			return 1;
	return 0;
}

/* Greedy groups, the resources that saturate best alone first; a resource
 * joins a group whose resources serve other forms than it does, while one
 * base can still saturate them all with the margin asked for. */
static size_t make_groups(const struct map_core *c, const struct infer_map_options *o,
			  const double *alone, struct map_base **bases, size_t *nbases)
{
	size_t R = c->R, *order = xmalloc((R + 1) * sizeof(size_t)), groups = 0;
	unsigned char *in = xcalloc(R + 1, 1), *grouped = xcalloc(R + 1, 1);
	double *sigma = xmalloc((c->n + 1) * sizeof(double));
	double *best = xmalloc((c->n + 1) * sizeof(double));
	for (size_t r = 0; r < R; r++)
		order[r] = r;
	sort_key = alone;
	qsort(order, R, sizeof(size_t), by_key_desc);
	/* past max_probes groups the mapping combines core forms instead:
	 * forming the rest (two LPs a resource) would be wasted */
	for (size_t a = 0; a < R && (o->exhaustive || groups <= o->max_probes); a++) {
		size_t r = order[a];
		if (grouped[r] || !isfinite(alone[r]))
			continue;
		memset(in, 0, R);
		in[r] = 1;
		double t = group_lp(c, in, o->min_margin, best);
		for (size_t b = a + 1; b < R; b++) {
			size_t q = order[b];
			int apart = 1;
			for (size_t s = 0; s < R && apart; s++)
				apart = !in[s] || !share_forms(c, s, q);
			/* a resource too close to another to be saturated alone
			 * goes with it */
			if (grouped[q] || !isfinite(alone[q]) || (!apart && t >= o->min_margin))
				continue;
			in[q] = 1;
			double tq = group_lp(c, in, o->min_margin, sigma);
			if (tq >= o->min_margin || (t < o->min_margin && tq > t + 0.05)) {
				t = tq;
				memcpy(best, sigma, c->n * sizeof(double));
			} else {
				in[q] = 0;
			}
		}
		for (size_t q = 0; q < R; q++)
			grouped[q] |= in[q];
		add_base(c, in, best, t, o, bases, nbases);
		groups++;
	}
	free(order);
	free(in);
	free(grouped);
	free(sigma);
	free(best);
	return groups;
}

void map_make_bases(const struct map_core *c, const struct infer_map_options *o,
		    struct map_base **bases, size_t *nbases, size_t *ngroups, long *single_of)
{
	size_t R = c->R;
	double *alone = xmalloc((R + 1) * sizeof(double)),
	       **sig = xmalloc((R + 1) * sizeof(double *));
	unsigned char *in = xcalloc(R + 1, 1);
	for (size_t r = 0; r < R; r++) {
		sig[r] = xcalloc(c->n + 1, sizeof(double));
		in[r] = 1;
		alone[r] = group_lp(c, in, o->min_margin, sig[r]);
		in[r] = 0;
		single_of[r] = -1;
	}
	*bases = NULL;
	*nbases = 0;
	*ngroups = make_groups(c, o, alone, bases, nbases);
	for (size_t g = 0; g < *ngroups; g++)
		if ((*bases)[g].nres == 1)
			single_of[(*bases)[g].res[0]] = (long)g;
	for (size_t r = 0; r < R; r++) {
		if (single_of[r] >= 0 || !(alone[r] >= o->min_margin))
			continue;
		in[r] = 1;
		add_base(c, in, sig[r], alone[r], o, bases, nbases);
		in[r] = 0;
		single_of[r] = (long)*nbases - 1;
	}
	for (size_t r = 0; r < R; r++)
		free(sig[r]);
	free(sig);
	free(alone);
	free(in);
}

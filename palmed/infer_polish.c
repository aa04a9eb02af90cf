/* The mapped forms checked beside the core's: see infer_polish.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/form.h"
#include "palmed/infer.h"
#include "palmed/infer_polish.h"
#include "palmed/lp.h"

void infer_polish_options_default(struct infer_polish_options *o)
{
	o->per_form = 3;
	o->targeted = 0;
	o->absent = 1;
	o->twins = 1;
	o->own = 1;
	o->partner_holds = 1;
	o->contain = 1;
	o->twin_floor = 1;
	o->vex_twins = 1;
	o->pushes_apart = 1;
	/* a quarter: the independent kernels 0.1-0.55 points better than at
	 * a half on three databases of the Zen 4, a third of a point worse
	 * at 0.1, 0.6 at 1 (docs/BENCHMARKS.md, "The polish's anchor") */
	o->anchor = 0.25;
	o->seed = 1;
	o->tol = 0.05;
}

/* One measured mix, as the fit of its target sees it: a instances of the
 * target beside forms whose loads (cycles per iteration on each resource)
 * are fixed. */
struct mix {
	double a, cycles, weight;
	long at;       /* the resource its fit holds it to, or -1: its bottleneck */
	int twin;      /* the target beside its register form (twin_mix) */
	double *fixed; /* nres entries */
};

struct rng {
	unsigned long long s;
};

static unsigned draw(struct rng *g, unsigned bound)
{
	g->s ^= g->s << 13;
	g->s ^= g->s >> 7;
	g->s ^= g->s << 17;
	return bound ? (unsigned)(g->s % bound) : 0;
}

/* Whether a form has only general-purpose and memory operands (no MMX,
 * XMM, YMM, ZMM or mask register, and no immediate: the "MM" of "IMM8"
 * counts a form with an immediate as a vector one). Counting those as
 * integer forms, a build from model 16's database on the Zen 5 moved the
 * independent kernels 9.68% -> 9.98% and the blocks 6.42% -> 6.36%
 * (docs/BENCHMARKS.md, "Measured, not changed"): kept as it is. */
static int integer_form(const char *name)
{
	return !strstr(name, "MM") && !strstr(name, "_K");
}

/* Target t (model index) with 1-3 instances beside 1-3 distinct core forms
 * of 1-4 instances each: for an integer target, three partners in four
 * are integer forms (what compiled code puts beside it; most core forms
 * are vector ones). */
static void make_mix(const struct model *m, size_t t, const size_t *core, size_t ncore,
		     const size_t *icore, size_t nicore, struct rng *g, struct kernel *k)
{
	kernel_init(k);
	kernel_add(k, m->forms[t], 1 + draw(g, 3));
	unsigned want = 1 + draw(g, 3), have = 0;
	int integer = integer_form(m->forms[t]) && nicore;
	for (unsigned tries = 0; have < want && tries < 50; tries++) {
		const char *p = integer && draw(g, 4) ? m->forms[icore[draw(g, (unsigned)nicore)]]
						      : m->forms[core[draw(g, (unsigned)ncore)]];
		int dup = 0;
		for (size_t i = 0; i < k->n; i++)
			dup |= !strcmp(k->terms[i].form, p);
		if (!dup) {
			kernel_add(k, p, 1 + draw(g, 4));
			have++;
		}
	}
}

/* The cycles of kernel k's forms one after another (their cycles alone
 * summed); INFINITY when a form of it is not in the model. */
static double serial_cycles(const struct model *m, const struct kernel *k)
{
	double sum = 0;
	for (size_t i = 0; i < k->n; i++) {
		long f = model_form_index(m, k->terms[i].form);
		sum += f >= 0 ? k->terms[i].count * m->form_cycles[f] : INFINITY;
	}
	return sum;
}

/* The mix as it ran (k and its helpers) seen from target t; 0, or -1 when
 * a form of it is not in the model, the mix ran slower than its forms one
 * after another or stores to other lines in turn (what no usages explain:
 * infer_refit.c's over_sum, form_stores_in_turn). With at_sum, a mix
 * slower than its forms one after another is taken at that sum instead,
 * the most usages can give it (the immediate mix: immediate_mix). */
static int read_mix(const struct model *m, size_t t, const struct kernel *k, const char *helpers,
		    double cycles, int at_sum, struct mix *x)
{
	struct kernel all;
	kernel_with(k, helpers, &all);
	x->a = 0;
	x->cycles = cycles;
	x->weight = 1;
	x->twin = 0;
	x->at = -1;
	x->fixed = xcalloc(m->nres + 1, sizeof(double));
	int rc = 0;
	double sum = serial_cycles(m, &all);
	for (size_t i = 0; i < all.n && rc == 0; i++) {
		long f = model_form_index(m, all.terms[i].form);
		if (f < 0) {
			rc = -1;
			continue;
		}
		if ((size_t)f == t) {
			x->a += all.terms[i].count;
		} else {
			for (size_t r = 0; r < m->nres; r++)
				x->fixed[r] += all.terms[i].count * model_rho(m, (size_t)f, r);
		}
	}
	int in_turn = kernel_stores_in_turn(&all);
	kernel_done(&all);
	if (rc == 0 && x->a > 0 && !in_turn && at_sum && cycles > sum)
		x->cycles = sum;
	else if (rc < 0 || x->a <= 0 || !(cycles <= sum * (1 + INFER_OVER_SUM)) || in_turn) {
		free(x->fixed);
		x->fixed = NULL;
		return -1;
	}
	return 0;
}

/* Load of mix x on resource r with the target's usages u. */
static double mix_load(const struct mix *x, const double *u, size_t r)
{
	return x->fixed[r] + x->a * u[r];
}

/* The resource the mix's load is largest on; of several within 10^-9 of
 * it, the one the target's usage takes most of. A fit drives a usage it
 * lowers down to a tie (three pushes and six moves, a push's usage of the
 * moves' resource lowered until both resources carry 3 cycles); held to
 * the resource it lowers there by the next round, it could go no lower,
 * where the other resource explains the mix alone. */
static size_t bottleneck(size_t R, const struct mix *x, const double *u)
{
	size_t best = 0;
	for (size_t r = 1; r < R; r++) {
		double l = mix_load(x, u, r), b = mix_load(x, u, best);
		if (l > b * (1 + 1e-9) || (l >= b * (1 - 1e-9) && u[r] > u[best]))
			best = r;
	}
	return best;
}

/* The resource a fit holds mix x to after its first round (its load
 * there at least the mix's cycles, less the error paid): of the
 * resources whose load is within HOLD_TIE of the largest, the one the
 * target's usage takes most of. The first round lowers a usage the
 * mixes deny down to the mix's cycles on that resource; the other forms'
 * loads are fits of measurements, off by a fraction of a percent, and a
 * tie within 10^-9 (bottleneck) is then missed: on a Zen 4 a push bound
 * alone on the ALUs' resource (the mapping's) and the stores' was lowered
 * until `push x2, sub, test` tied on the two, 1.0013 cycles against
 * 0.9998; held to the ALUs by those 0.15%, it kept 0.375 cycles there,
 * where every pair of a push with ALU forms says none. */
#define HOLD_TIE 0.01
static size_t hold_of(size_t R, const struct mix *x, const double *u)
{
	size_t top = bottleneck(R, x, u), best = top;
	double max = mix_load(x, u, top);
	for (size_t r = 0; r < R; r++)
		if (mix_load(x, u, r) >= max * (1 - HOLD_TIE) && u[r] > u[best] * (1 + 1e-9))
			best = r;
	return best;
}

/* The weighted relative error of the mixes with usages u, summed. */
static double mix_error(size_t R, const struct mix *xs, size_t n, const double *u)
{
	double e = 0;
	for (size_t b = 0; b < n; b++) {
		double c = mix_load(&xs[b], u, bottleneck(R, &xs[b], u));
		e += xs[b].weight * fabs(c - xs[b].cycles) / xs[b].cycles;
	}
	return e;
}

/* What a fit may make of the target's usage of resource r: hi[r] its
 * upper bound, or a negative hi[r] when it stays u0[r]. */
struct bounds {
	double *u0, *hi;
	double anchor; /* per unit of usage moved */
};

static double score(size_t R, const struct mix *xs, size_t n, const struct bounds *bd,
		    const double *u)
{
	double e = mix_error(R, xs, n, u);
	for (size_t r = 0; r < R; r++)
		e += bd->anchor * fabs(u[r] - bd->u0[r]);
	return e;
}

/* Mix b's row on resource r: a (u0 + up - down) + fixed, with the mix's
 * over (under: 0) or under (1) slack times its cycles, between lo and
 * hi less the fixed load; under 0 is the row "under its cycles, less its
 * over-prediction": a (u0 + up - down) + fixed <= c (1 + over); under 1
 * the bottleneck's "... >= c (1 - under)". */
static void add_mix_row(struct lp *lp, size_t R, const struct mix *xs, size_t b,
			const struct bounds *bd, size_t r, int under, double *row, size_t cols)
{
	const struct mix *mx = &xs[b];
	double rest = mx->cycles - mix_load(mx, bd->u0, r);
	memset(row, 0, cols * sizeof(double));
	row[r] = mx->a;
	row[R + r] = -mx->a;
	row[2 * R + 2 * b + (size_t)under] = under ? mx->cycles : -mx->cycles;
	lp_add_row(lp, row, under ? rest : -INFINITY, under ? INFINITY : rest);
}

/* A row "under its cycles" the program starts with: one the usages it
 * starts from load to this share of the mix's cycles. */
#define FIT_NEAR_TIGHT 0.9

/* The usages closest to bd->u0 (at bd->anchor a unit) that explain the
 * mixes best, each mix's bottleneck the resource the usages u say it is:
 * an L1 fit like infer_refit.c's, over the target's usages alone.
 * Columns: up_r, down_r (usage = u0 + up - down), then over_b, under_b.
 * Of the rows "under its cycles" (one per mix and resource), most never
 * bind: the program starts with those the usages u make nearly tight and
 * adds the ones its solution breaks until it breaks none, the optimum of
 * the whole program. With every row, an Intel Xeon's build of two cores
 * from its full database took 19 min 16 s, most of it here; this way
 * 4 min 36 s, the model's predictions the same but for ties (87 of
 * 437,995 kernels moved by more than 1%). */
static int fit_target(size_t R, const struct mix *xs, size_t n, const struct bounds *bd,
		      const double *u, int later, double *out)
{
	size_t cols = 2 * R + 2 * n;
	struct lp *lp = lp_new(cols, 0);
	double *row = xcalloc(cols + 1, sizeof(double)), *x = xcalloc(cols + 1, sizeof(double));
	double *now = xcalloc(R + 1, sizeof(double));
	unsigned char *added = xcalloc(n * R + 1, 1);
	for (size_t r = 0; r < R; r++) {
		if (bd->hi[r] < 0) {
			lp_set_bounds(lp, r, 0, 0);
			lp_set_bounds(lp, R + r, 0, 0);
			continue;
		}
		lp_set_objective(lp, r, bd->anchor);
		lp_set_objective(lp, R + r, bd->anchor);
		/* u0 + up - down within [0, hi] */
		lp_set_bounds(lp, r, 0, fmax(0, bd->hi[r] - bd->u0[r]));
		lp_set_bounds(lp, R + r, fmax(0, bd->u0[r] - bd->hi[r]), bd->u0[r]);
	}
	for (size_t b = 0; b < n; b++) {
		lp_set_objective(lp, 2 * R + 2 * b, xs[b].weight);
		lp_set_objective(lp, 2 * R + 2 * b + 1, xs[b].weight);
	}
	for (size_t b = 0; b < n; b++) {
		const struct mix *mx = &xs[b];
		size_t at = mx->at >= 0 ? (size_t)mx->at
			    : later	? hold_of(R, mx, u)
					: bottleneck(R, mx, u);
		add_mix_row(lp, R, xs, b, bd, at, 1, row, cols);
		for (size_t r = 0; r < R; r++)
			if (r == at || mix_load(mx, u, r) >= FIT_NEAR_TIGHT * mx->cycles) {
				add_mix_row(lp, R, xs, b, bd, r, 0, row, cols);
				added[b * R + r] = 1;
			}
	}
	int rc;
	for (;;) {
		if ((rc = lp_solve(lp, x, NULL)) < 0)
			break;
		for (size_t r = 0; r < R; r++)
			now[r] = bd->u0[r] + x[r] - x[R + r];
		size_t more = 0;
		for (size_t b = 0; b < n; b++)
			for (size_t r = 0; r < R; r++) {
				double c = xs[b].cycles * (1 + x[2 * R + 2 * b]);
				if (added[b * R + r] ||
				    mix_load(&xs[b], now, r) <= c + 1e-9 * xs[b].cycles)
					continue;
				add_mix_row(lp, R, xs, b, bd, r, 0, row, cols);
				added[b * R + r] = 1;
				more++;
			}
		if (!more)
			break;
	}
	if (rc == 0)
		for (size_t r = 0; r < R; r++)
			out[r] = fmax(0, now[r]);
	lp_delete(lp);
	free(row);
	free(x);
	free(now);
	free(added);
	return rc;
}

/* Fits from bd, the bottlenecks reassigned while the score falls (or
 * stays while the mixes' error falls: an L1 fit has ties, and the data
 * break them); the best usages into u, their score returned. */
static double fit_rounds(size_t R, const struct mix *xs, size_t n, const struct bounds *bd,
			 double *u)
{
	double *cand = xcalloc(R + 1, sizeof(double));
	memcpy(u, bd->u0, R * sizeof(double));
	double best = score(R, xs, n, bd, u), err = mix_error(R, xs, n, u);
	for (unsigned round = 0; round < 4; round++) {
		if (fit_target(R, xs, n, bd, u, round > 0, cand) < 0)
			break;
		double s = score(R, xs, n, bd, cand), e = mix_error(R, xs, n, cand);
		if (!(s < best - 1e-9 || (s < best + 1e-9 && e < err - 1e-9)))
			break;
		best = s;
		err = e;
		memcpy(u, cand, R * sizeof(double));
	}
	free(cand);
	return best;
}

/* Target t's usages refitted to its mixes and its cycles alone (the last
 * mix, xs[n - 1]); whether they changed. The width stays. When several
 * resources bind the form alone (a usage of its cycles alone on each), the
 * fit holds it alone to each in turn and keeps the best: held to the
 * first, it could never lower that one (a push given its cycles alone on
 * the ALUs' resource beside its store's kept it there, and four moves
 * with it were predicted at twice their time). Likewise the mix beside
 * its register form is held, in turn, to its bottleneck and to each
 * resource that binds the register form: a memory form bound alone by
 * the loads, beside a register form that binds the adders, ties on
 * both, and held to the loads it could never take its share of the
 * adders. */
static int polish_target(struct model *m, size_t t, struct mix *xs, size_t n,
			 const struct infer_polish_options *o, double *before, double *after,
			 unsigned *floored)
{
	size_t R = m->nres;
	double single = m->form_cycles[t];
	struct bounds bd = {xcalloc(R + 1, sizeof(double)), xcalloc(R + 1, sizeof(double)),
			    o->anchor / single};
	double *u = xcalloc(R + 1, sizeof(double));
	for (size_t r = 0; r < R; r++) {
		bd.u0[r] = model_rho(m, t, r);
		bd.hi[r] = strcmp(m->res[r].name, MODEL_WIDTH) ? INFINITY : -1;
	}
	*before += mix_error(R, xs, n, bd.u0) / (double)n;
	/* the twin mix's holds: its bottleneck (-1), then the register form's */
	long *holds = xmalloc((R + 2) * sizeof(long)), tw = -1;
	size_t nh = 0;
	holds[nh++] = -1;
	long lw = -1, iw = -1; /* the load mix (load_mix), the immediate mix (immediate_mix) */
	for (size_t b = 0; b + 1 < n; b++) {
		if (xs[b].twin == 1)
			tw = (long)b;
		if (xs[b].twin == 2)
			lw = (long)b;
		if (xs[b].twin == 3)
			iw = (long)b;
	}
	if (tw >= 0) {
		double ftop = 0;
		for (size_t r = 0; r < R; r++)
			if (bd.hi[r] >= 0)
				ftop = fmax(ftop, xs[tw].fixed[r]);
		for (size_t r = 0; r < R && ftop > 0; r++)
			if (bd.hi[r] >= 0 && xs[tw].fixed[r] >= ftop * (1 - 1e-9))
				holds[nh++] = (long)r;
	}
	double top = 0, best = INFINITY, *v = xcalloc(R + 1, sizeof(double));
	for (size_t r = 0; r < R; r++)
		if (bd.hi[r] >= 0)
			top = fmax(top, bd.u0[r]);
	long best_r = -1, best_h = -1;
	for (size_t r = 0; r < R; r++) {
		if (bd.hi[r] < 0 || bd.u0[r] < top * (1 - 1e-9) || !(top > 0))
			continue;
		xs[n - 1].at = (long)r;
		for (size_t h = 0; h < nh; h++) {
			if (tw >= 0)
				xs[tw].at = holds[h];
			double sc = fit_rounds(R, xs, n, &bd, v);
			if (sc < best - 1e-12) {
				best = sc;
				best_r = (long)r, best_h = holds[h];
				memcpy(u, v, R * sizeof(double));
			}
		}
	}
	if (!isfinite(best))
		best = fit_rounds(R, xs, n, &bd, u);
	/* Then each mix the usages leave short of its cycles, held in turn
	 * to the resource its other forms load most (the first that binds
	 * them), the holds above kept: a mix whose load ties on the form's
	 * own resource and a partner's is held to the form's, and a usage
	 * of the partner's that it lacks could not come back. Kept where
	 * the score falls. */
	xs[n - 1].at = best_r;
	if (tw >= 0)
		xs[tw].at = best_h;
	for (size_t b = 0; o->partner_holds && b + 1 < n; b++) {
		if ((long)b == tw ||
		    mix_load(&xs[b], u, bottleneck(R, &xs[b], u)) >= xs[b].cycles * (1 - 1e-6))
			continue;
		size_t p = 0;
		for (size_t r = 1; r < R; r++)
			if (bd.hi[r] >= 0 && xs[b].fixed[r] > xs[b].fixed[p] * (1 + 1e-9))
				p = r;
		if (bd.hi[p] < 0 || !(xs[b].fixed[p] > 0) || p == bottleneck(R, &xs[b], u))
			continue;
		xs[b].at = (long)p;
		double sc = fit_rounds(R, xs, n, &bd, v);
		if (sc < best - 1e-12) {
			best = sc;
			memcpy(u, v, R * sizeof(double));
		} else {
			xs[b].at = -1;
		}
	}
	for (size_t b = 0; b < n; b++)
		xs[b].at = -1;
	/* The memory form beside its register form, still over the fit's
	 * prediction by three times the noise: the two share the register
	 * form's unit (vpsignd ymm, ymm, [m] beside vpsignd ymm, ymm, ymm:
	 * 1.00 cycles, where its load's usages alone said 0.64), and one mix
	 * weighs too little against the others and the anchor to move it.
	 * The form takes what the pair leaves of that unit's cycles. */
	for (int j = 0; j < 3 && o->twin_floor; j++) { /* the load and immediate mixes likewise */
		long b = j == 0 ? tw : j == 1 ? lw : iw;
		if (b < 0)
			continue;
		size_t top = bottleneck(R, &xs[b], u), p = 0;
		for (size_t r = 1; r < R; r++)
			if (bd.hi[r] >= 0 && xs[b].fixed[r] > xs[b].fixed[p])
				p = r;
		double want = fmin(single, (xs[b].cycles - xs[b].fixed[p]) / xs[b].a);
		if (xs[b].cycles > mix_load(&xs[b], u, top) * (1 + 3 * o->tol) && bd.hi[p] >= 0 &&
		    want > u[p]) {
			u[p] = want;
			(*floored)++;
		}
	}
	free(holds);
	free(v);
	*after += mix_error(R, xs, n, u) / (double)n;
	int changed = 0;
	for (size_t r = 0; r < R; r++) {
		if (bd.hi[r] >= 0 && u[r] < o->tol * single)
			u[r] = 0;
		if (fabs(u[r] - bd.u0[r]) > 1e-9) {
			model_set_rho(m, t, r, u[r]);
			changed = 1;
		}
	}
	free(bd.u0);
	free(bd.hi);
	free(u);
	return changed;
}

static unsigned char *encodings(const struct model *m)
{
	unsigned char *enc = xcalloc(m->nforms + 1, 1);
	for (size_t f = 0; f < m->nforms; f++)
		enc[f] = (unsigned char)form_encoding(m->forms[f]);
	return enc;
}

/* Whether forms a and b can run in one kernel (form_encoding). */
static int mixable(const unsigned char *enc, size_t a, size_t b)
{
	return !enc || (enc[a] | enc[b]) != (FORM_ENC_VEX | FORM_ENC_SSE_ALONE);
}

/* The share of core form c's cycles alone that resource r takes, less the
 * largest share another resource (the width aside) takes: how well a mix
 * with c tells a usage of r from one of c's other resources. */
static double standing_out(const struct model *m, size_t c, size_t r)
{
	double other = 0;
	for (size_t s = 0; s < m->nres; s++)
		if (s != r && strcmp(m->res[s].name, MODEL_WIDTH))
			other = fmax(other, model_rho(m, c, s));
	return (model_rho(m, c, r) - other) / m->form_cycles[c];
}

/* The core form (of core[0..ncore), other than t) whose cycles alone
 * resource r takes the largest share of, if more than half, among those
 * whose load there stands out from their load elsewhere by STAND_OUT of
 * their cycles (standing_out), if any: a form that loads r and another
 * resource alike (cvtsi2sd on a Zen 4's FP adders and its moves to vector
 * registers, adc on the register moves' resource and the ALUs') would
 * read a usage of either as one of r. Ranking all by how far they stand
 * out instead chose forms on a part of a resource's units (a Zen 4
 * build's vector pipes: independent kernels 14.60% -> 15.25%). Of those
 * a kernel can hold beside t (enc, if not NULL: a legacy SSE form without
 * a VEX twin, sha256rnds2, stood out on the shift pipes, and every VEX
 * form's mix with it was refused); -1 if none. */
#define STAND_OUT 0.25
static long most_exclusive(const struct model *m, size_t r, const size_t *core, size_t ncore,
			   size_t t, const unsigned char *enc)
{
	long p[2] = {-1, -1}; /* the best standing out, the best of all */
	double best[2] = {0, 0};
	for (size_t c = 0; c < ncore; c++) {
		double share = model_rho(m, core[c], r) / m->form_cycles[core[c]];
		if (core[c] == t || !(share >= 0.5) || !mixable(enc, core[c], t))
			continue;
		for (int k = 0; k < 2; k++)
			if ((k || standing_out(m, core[c], r) >= STAND_OUT) && share > best[k])
				best[k] = share, p[k] = (long)core[c];
	}
	return p[0] >= 0 ? p[0] : p[1];
}

/* Instances of two forms that take about the same cycles, ci and cj alone
 * (the slower one once, the other up to 8 times). */
static void balance(double ci, double cj, unsigned *a, unsigned *b)
{
	double ratio = ci / cj;
	*a = ratio >= 1 ? 1 : (unsigned)fmin(8, round(1 / ratio));
	*b = ratio >= 1 ? (unsigned)fmin(8, round(ratio)) : 1;
}

/* The kernels of a stage as infer_meter_run_helpers leaves them. */
struct runs {
	double *cycles;
	int *status;
	char **errors, **helpers; /* malloc'd strings */
};

static void runs_init(struct runs *x, size_t n)
{
	x->cycles = xcalloc(n + 1, sizeof(double));
	x->status = xcalloc(n + 1, sizeof(int));
	x->errors = xcalloc(n + 1, sizeof(char *));
	x->helpers = xcalloc(n + 1, sizeof(char *));
}

/* Measures ks[0..n), the n kernels a stage made; how many it measured
 * before a stop. */
static size_t runs_measure(struct infer_meter *mt, const struct kernel *ks, size_t n,
			   struct runs *x)
{
	return infer_meter_run_helpers(mt, ks, n, x->cycles, x->status, x->errors, x->helpers);
}

static void runs_done(struct runs *x, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(x->errors[i]);
		free(x->helpers[i]);
	}
	free(x->cycles);
	free(x->status);
	free(x->errors);
	free(x->helpers);
}

/* Target t beside the core form that loads resource r most exclusively
 * (the most of its cycles alone), as many of it as load r as much as one
 * instance of t says it does: if t's usage of r is real, the two contend
 * and the mix takes their sum there; if not, each runs at its own pace.
 * Returns 1 with k made, or 0 when t does not use r or no core form does. */
static int targeted_mix(const struct model *m, size_t t, size_t r, const size_t *core, size_t ncore,
			const unsigned char *enc, struct kernel *k)
{
	double u = model_rho(m, t, r);
	if (!strcmp(m->res[r].name, MODEL_WIDTH) || !(u >= 0.05 * m->form_cycles[t]))
		return 0;
	long p = most_exclusive(m, r, core, ncore, t, enc);
	if (p < 0)
		return 0;
	double copies = round(u / model_rho(m, p, r));
	kernel_init(k);
	kernel_add(k, m->forms[t], 1);
	kernel_add(k, m->forms[p], (unsigned)fmin(8, fmax(1, copies)));
	return 1;
}

/* Whether a form's name holds "MM": a vector register (XMM, YMM, ZMM, MMX)
 * or an immediate (IMM8...) alike. */
static int vector_or_immediate(const char *name)
{
	return strstr(name, "MM") != NULL;
}

/* Target t beside the core form that loads resource r most exclusively
 * where t does not use r (under 5% of its cycles alone), both forms
 * vector or immediate ones (vector_or_immediate), as many of the core
 * form as take t's cycles alone on r: the targeted mixes probe only the
 * resources t uses, so a pipe the mapping left out was never checked. On
 * a Zen 5 `vpmaskmovd ymm, ymm, [m]` came out on the FP adders' resource
 * where it shares the FMAs' pipes (x2 beside four FMAs: 3.0 cycles,
 * predicted 2.0); from model 16's database the independent kernels 10.79%
 * -> 9.68%, the blocks 6.65% -> 6.42%, for 54,000 kernels more. Returns
 * 1 with k made, or 0 when t uses r, r is the width, or no such core form
 * loads r. */
static int absent_mix(const struct model *m, size_t t, size_t r, const size_t *core, size_t ncore,
		      const unsigned char *enc, struct kernel *k)
{
	if (!vector_or_immediate(m->forms[t]) || !strcmp(m->res[r].name, MODEL_WIDTH) ||
	    model_rho(m, t, r) >= 0.05 * m->form_cycles[t])
		return 0;
	long p = most_exclusive(m, r, core, ncore, t, enc);
	if (p < 0 || !vector_or_immediate(m->forms[p]) || !(model_rho(m, (size_t)p, r) > 0))
		return 0;
	double copies = round(m->form_cycles[t] / model_rho(m, (size_t)p, r));
	kernel_init(k);
	kernel_add(k, m->forms[t], 1);
	kernel_add(k, m->forms[p], (unsigned)fmin(8, fmax(1, copies)));
	return 1;
}

/* The register form of memory form t (form_name_registers), the first
 * the model has with cycles; -1 when there is none. */
static long register_twin(const struct model *m, size_t t)
{
	char names[2][FORM_NAME_MAX];
	size_t n = form_name_registers(m->forms[t], names);
	for (size_t i = 0; i < n; i++) {
		long w = model_form_index(m, names[i]);
		if (w >= 0 && (size_t)w != t && m->form_cycles[w] > 0)
			return w;
	}
	return -1;
}

/* The form that runs carry form t's operation without the carry, with
 * its operands (add for adc, adcx and adox, sub for sbb), the model
 * having it with cycles; -1 for any other form. A carry form runs beside
 * a zero idiom that breaks its chain through the flags (gen_plan.c), and
 * that pair is the width's alone: on a Zen 5 `ADC_GPR16_GPR16
 * XOR_GPR32_SAME` runs 0.263 cycles, and 25 of its 120 scalar integer
 * register forms, adc and sbb of every width among them, came out off
 * the ALUs, where `adc r16, r16` beside eight `add r16, r16` runs 1.73
 * cycles as nine adds do (1.75; predicted 1.61). The carry form's
 * cycles alone are the pair's less the zero idiom's, too few to size
 * the mix by, and a resource every form takes a sixth of a cycle of
 * explained `adc r16, r16` beside three adds as well as the ALUs did: it
 * goes beside the most copies, TWIN_MOST. */
static long carry_twin(const struct model *m, size_t t)
{
	static const char *const ops[][2] = {
	    {"ADC_", "ADD_"}, {"SBB_", "SUB_"}, {"ADCX_", "ADD_"}, {"ADOX_", "ADD_"}};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t len = strlen(ops[i][0]);
		if (strncmp(m->forms[t], ops[i][0], len) || strstr(m->forms[t], "_SAME"))
			continue; /* sbb r, r is no sub r, r (a zero idiom) */
		char name[FORM_NAME_MAX];
		snprintf(name, sizeof(name), "%s%s", ops[i][1], m->forms[t] + len);
		long w = model_form_index(m, name);
		return w >= 0 && (size_t)w != t && m->form_cycles[w] > 0 ? w : -1;
	}
	return -1;
}

/* Instances of the register form beside one of the memory form (ct and
 * cw their cycles alone): as many as take TWIN_SHARE times the memory
 * form's cycles, so that the register form's unit binds the pair. With
 * as many cycles of each (until 2026-12-06), a resource every form loads
 * a little explained the pair as well: on a Zen 4 xor r64, [m + i*8]
 * took its cycles alone (0.335) on a resource xor r64, r64 loads at
 * 0.168, the pair's 0.50 cycles were that resource's 0.168 + 0.335 as
 * much as two ALU slots, and the form kept no ALU usage (a third of the
 * integer memory forms of that build: blocks with them predicted up to
 * 13% fast); beside six xor r64, r64 the pair runs 1.76 cycles (seven
 * ALU operations), which that resource (1.34) cannot explain. */
#define TWIN_SHARE 4
#define TWIN_MOST 8
static unsigned twin_copies(double ct, double cw)
{
	return (unsigned)fmin(TWIN_MOST, fmax(2, ceil(TWIN_SHARE * ct / cw - 1e-9)));
}

/* Whether form w runs alone at the machine's width (a move the renamer
 * takes): it has no unit to bind, and its pair keeps as many cycles of
 * each (eight movups xmm, xmm beside movups [m], xmm gave model 8's
 * 128-bit stores a whole cycle of the stores' resource: docs/MODEL.md). */
static int width_bound(const struct model *m, size_t w)
{
	for (size_t r = 0; r < m->nres; r++)
		if (!strcmp(m->res[r].name, MODEL_WIDTH))
			return m->form_cycles[w] <= 1.2 * model_rho(m, w, r);
	return 0;
}

/* Memory form t beside its register form w, enough of w that its unit
 * binds the pair (twin_copies): an operation that loads its operand
 * still runs the operation (addpd xmm, [m] takes the FP adders as addpd
 * xmm, xmm does, 1.00 cycles for the pair on a Zen 3), which a mapping
 * that read its bottleneck on the loads and took a load's usages (a
 * sibling of movaps xmm, [m]: the pair takes their sum) cannot see in
 * mixes with core forms that leave the adders idle; a form that only
 * loads (movzx r32, [m] beside movzx r32, r8) runs beside it at the
 * longer of the two.
 * A carry form likewise beside the form without the carry (carry_twin).
 * Returns 1 with k made, or 0 when t has no register form in m. */
static int twin_mix(const struct model *m, size_t t, struct kernel *k)
{
	long w = register_twin(m, t);
	int carry = w < 0 && (w = carry_twin(m, t)) >= 0;
	if (w < 0)
		return 0;
	kernel_init(k);
	if (width_bound(m, (size_t)w)) { /* no unit to bind: as many cycles of each */
		unsigned a, b;
		balance(m->form_cycles[t], m->form_cycles[w], &a, &b);
		kernel_add(k, m->forms[t], a);
		kernel_add(k, m->forms[w], b);
		return 1;
	}
	kernel_add(k, m->forms[t], 1);
	kernel_add(k, m->forms[w],
		   carry ? TWIN_MOST : twin_copies(m->form_cycles[t], m->form_cycles[w]));
	return 1;
}

/* Memory form t that reads its operand beside the core's plain load,
 * as many as take TWIN_SHARE times t's cycles (twin_copies), so that the
 * loads bind the pair: a form mapped off the loads' resource (a Zen 5's
 * model 14 put `test byte [m], imm8` on bt's resource and no load) shows
 * it there. Returns 1 with k made, or 0 when t reads no memory, the
 * model lacks the load, or the loads cannot bind beside t (its cycles
 * alone over half of what TWIN_MOST loads take). */
#define PLAIN_LOAD "MOV_GPR64_M64"
static int load_mix(const struct model *m, size_t t, struct kernel *k)
{
	static const char *const no_load[] = {"NOP",  "PREFETCH", "CLFLUSH",
					      "CLWB", "CLDEMOTE", "LEA"};
	long ld = model_form_index(m, PLAIN_LOAD);
	struct form f;
	if (ld < 0 || (size_t)ld == t || !(m->form_cycles[ld] > 0) ||
	    form_parse(m->forms[t], &f) < 0 || strchr(f.mnemonic, '.') ||
	    form_store_kind(&f) == FORM_STORE_PLAIN || form_store_kind(&f) == FORM_STORE_STACK)
		return 0;
	int reads = 0;
	for (size_t i = 0; i < f.n; i++)
		reads |= form_kind_is_access(f.op[i]);
	for (size_t i = 0; i < sizeof(no_load) / sizeof(no_load[0]) && reads; i++)
		reads = strncmp(f.mnemonic, no_load[i], strlen(no_load[i])) != 0;
	double ct = m->form_cycles[t], cl = m->form_cycles[ld];
	if (!reads || TWIN_SHARE * ct > 2 * TWIN_MOST * cl)
		return 0;
	kernel_init(k);
	kernel_add(k, m->forms[t], 1);
	kernel_add(k, PLAIN_LOAD, twin_copies(ct, cl));
	return 1;
}

/* Memory form t with an immediate operand beside one plain immediate move
 * (twin flag 3): on a Zen 5 `cmp byte [m], imm8` (0.294 cycles alone) beside
 * `mov r32, imm32` (0.168) runs 0.493 cycles, slower than the two one after
 * another; beside `mov r32, r32` 0.306, `popcnt` 0.338, three immediate
 * moves 0.97, seven 1.35 (the front end's room for immediates and
 * displacements, it seems). The mappings of a build put it beside neither,
 * and predicted the pair 0.349 (blocks of compiled code hold it: `cmp byte
 * [m], imm8; mov r32, imm32`, 4.25 instructions a cycle natively,
 * predicted 5.73). The mix, one of each, is taken at its forms' sum when it
 * runs slower (read_mix), and its floor applied as a twin's: the form gets
 * the immediate move's resource. Returns 1 with k made, or 0 when t has no
 * memory and immediate operands or the model lacks the move. */
#define PLAIN_IMMEDIATE "MOV_GPR32_IMM32"
static int immediate_mix(const struct model *m, size_t t, struct kernel *k)
{
	long mv = model_form_index(m, PLAIN_IMMEDIATE);
	struct form f;
	if (mv < 0 || (size_t)mv == t || !(m->form_cycles[mv] > 0) ||
	    form_parse(m->forms[t], &f) < 0 || strchr(f.mnemonic, '.'))
		return 0;
	int mem = 0, imm = 0;
	for (size_t i = 0; i < f.n; i++) {
		mem |= form_kind_is_access(f.op[i]);
		imm |= f.op[i] == FORM_IMM8 || f.op[i] == FORM_IMM16 || f.op[i] == FORM_IMM32;
	}
	if (!mem || !imm)
		return 0;
	kernel_init(k);
	kernel_add(k, m->forms[t], 1);
	kernel_add(k, PLAIN_IMMEDIATE, 1);
	return 1;
}

/* Form t beside one register move (twin flag 4), for a form of
 * SEQUENCED_LEAST cycles or more alone: on a Zen 5 `shrd r64, r64, imm8`
 * runs one a cycle back to back and two cycles beside any other
 * instruction, a NOP, a move, an add or a vector add alike (microcode, it
 * seems: `shld`, `shrd` of every width and operand, `vcvtps2ph [m],
 * zmm, imm8`). Its cycles alone then say nothing of what it takes in
 * code: `shrd r64, r64, imm8` x3 beside three `vrsqrt14pd` ran 6.0 cycles,
 * predicted 3.06. A pair over its forms' sum by SEQUENCED_OVER gives the
 * form the pair's cycles on a resource of such forms ("sequencer",
 * sequenced_forms). Returns 1 with k made, or 0 when t runs under
 * SEQUENCED_LEAST cycles alone, is a string or locked form, or the model
 * lacks the move. */
#define FILLER "MOV_GPR64_GPR64"
#define SEQUENCED_LEAST 0.75
#define SEQUENCED_OVER 0.25
#define SEQUENCER "sequencer"
static int filler_mix(const struct model *m, size_t t, struct kernel *k)
{
	long mv = model_form_index(m, FILLER);
	if (mv < 0 || (size_t)mv == t || !(m->form_cycles[mv] > 0) ||
	    !(m->form_cycles[t] >= SEQUENCED_LEAST) || strchr(m->forms[t], '.'))
		return 0;
	kernel_init(k);
	kernel_add(k, m->forms[t], 1);
	kernel_add(k, FILLER, 1);
	return 1;
}

/* The filler mix k (and its helpers) as it ran, cycles: what the form
 * takes in code when the pair ran over its forms' sum by SEQUENCED_OVER,
 * else 0. */
static double sequenced(const struct model *m, const struct kernel *k, const char *helpers,
			double cycles)
{
	struct kernel all;
	kernel_with(k, helpers, &all);
	double sum = serial_cycles(m, &all);
	kernel_done(&all);
	return cycles > sum * (1 + SEQUENCED_OVER) ? cycles : 0;
}

/* The forms with seq[f] > 0 on a new resource, SEQUENCER, for seq[f]
 * cycles. Returns how many. */
static unsigned sequenced_forms(struct model *m, const double *seq, size_t nseq)
{
	long r = -1;
	unsigned n = 0;
	for (size_t f = 0; f < nseq; f++) {
		if (!(seq[f] > 0))
			continue;
		if (r < 0)
			r = (long)model_add_resource(m, SEQUENCER, m->forms[f]);
		model_set_rho(m, f, (size_t)r, seq[f]);
		n++;
	}
	return n;
}

/* Whether resource r is one of a cluster's own (infer_map_own.c): used,
 * and by no core form (cidx[0..nc)). */
static int own_resource(const struct model *m, size_t r, const size_t *cidx, size_t nc)
{
	int used = 0;
	if (!strcmp(m->res[r].name, MODEL_WIDTH))
		return 0;
	for (size_t c = 0; c < nc; c++)
		if (model_rho(m, cidx[c], r) > 0)
			return 0;
	for (size_t f = 0; f < m->nforms && !used; f++)
		used = model_rho(m, f, r) > 0;
	return used;
}

/* A pair of own_beside_core: the cluster's resource, the core resource
 * its partner loads most exclusively, and the instances of each. */
struct own_pair {
	size_t own, res, rep, partner;
	unsigned a, b;
};

/* The first form of each cluster of forms on a resource of their own,
 * measured beside the core form that loads each core resource most
 * exclusively (more than half its cycles alone), as many of each as take
 * the same cycles alone. A form that no core resource explains is given a
 * resource of its own, and its usages of the core's resources are read
 * against the core's bases; a core resource is a mixture of the CPU's
 * units, and a base that loads it need not load the unit the form uses:
 * on a Zen 3, vpblendd xmm came out on a resource of its own with the
 * forms that share its vector pipes, beside none of the core's, and
 * beside andnps xmm, xmm (four a cycle, as it) it takes the sum of both,
 * where the model said the longer. When the pair takes more than the
 * model predicts by three times the noise, the cluster's first form uses
 * the partner's resource as much as the pair's cycles there say, and
 * every form of the cluster likewise in proportion to its cycles alone;
 * the check in mixes that follows then refits them. Returns 0, or -1
 * with perpi_error() "interrupted". */
static int own_beside_core(struct infer_meter *mt, struct model *m, const size_t *cidx, size_t nc,
			   const unsigned char *enc, double tol, unsigned *pairs, unsigned *shared)
{
	size_t R = m->nres, n = 0;
	unsigned char *own = xcalloc(R + 1, 1);
	for (size_t r = 0; r < R; r++)
		own[r] = (unsigned char)own_resource(m, r, cidx, nc);
	struct own_pair *op = xmalloc((R * R + 1) * sizeof(*op));
	for (size_t r = 0; r < R; r++) {
		long rep = own[r] && m->res[r].kernel ? model_form_index(m, m->res[r].kernel) : -1;
		if (rep < 0 || model_rho(m, (size_t)rep, r) <= 0)
			continue;
		double single = m->form_cycles[rep];
		for (size_t k = 0; k < R; k++) {
			if (own[k] || k == r || !strcmp(m->res[k].name, MODEL_WIDTH) ||
			    model_rho(m, (size_t)rep, k) >= 0.9 * single)
				continue;
			long p = most_exclusive(m, k, cidx, nc, (size_t)rep, enc);
			if (p < 0)
				continue;
			op[n] = (struct own_pair){r, k, (size_t)rep, (size_t)p, 0, 0};
			balance(single, model_rho(m, (size_t)p, k), &op[n].a, &op[n].b);
			n++;
		}
	}
	int rc = 0;
	if (n) {
		struct kernel *ks = xmalloc(n * sizeof(*ks));
		struct runs x;
		runs_init(&x, n);
		for (size_t i = 0; i < n; i++) {
			kernel_init(&ks[i]);
			kernel_add(&ks[i], m->forms[op[i].rep], op[i].a);
			kernel_add(&ks[i], m->forms[op[i].partner], op[i].b);
		}
		infer_meter_label(mt, "resources of their own beside core forms: %zu kernels", n);
		size_t done = runs_measure(mt, ks, n, &x);
		if (done < n)
			rc = perpi_set_error("interrupted");
		/* read against the model as the mapping left it, every pair
		 * first, then the usages added */
		double *use = xcalloc(n, sizeof(double));
		for (size_t i = 0; i < done && rc == 0; i++) {
			struct prediction pr;
			use[i] = -1;
			if (x.status[i] != 0 || x.helpers[i] || model_predict(m, &ks[i], &pr) < 0)
				continue;
			double c = x.cycles[i], pred = pr.cycles;
			prediction_done(&pr);
			double u = (c - op[i].b * model_rho(m, op[i].partner, op[i].res)) / op[i].a;
			if (c > pred * (1 + 3 * tol) && u > model_rho(m, op[i].rep, op[i].res))
				use[i] = fmin(u, m->form_cycles[op[i].rep]);
			model_add_run(m, &ks[i], NULL, c);
		}
		for (size_t i = 0; i < done && rc == 0; i++) {
			if (use[i] < 0)
				continue;
			double scale = use[i] / model_rho(m, op[i].rep, op[i].own);
			for (size_t f = 0; f < m->nforms; f++) {
				double u = model_rho(m, f, op[i].own) * scale;
				if (u > model_rho(m, f, op[i].res)) {
					model_set_rho(m, f, op[i].res, fmin(u, m->form_cycles[f]));
					(*shared)++;
				}
			}
		}
		*pairs += (unsigned)done;
		free(use);
		for (size_t i = 0; i < n; i++)
			kernel_done(&ks[i]);
		free(ks);
		runs_done(&x, n);
	}
	free(op);
	free(own);
	return rc;
}

/* Core resource b inside a (the units of b among a's, as the four vector
 * pipes hold the two that shift): every core form that loads b, enough
 * to tell (at least CONTAIN_FORMS of them, each at least 0.05 cycles and
 * a tenth of its cycles alone), loads a at least k times as much, k over
 * CONTAIN_LEAST. Returns k, or 0. */
#define CONTAIN_FORMS 4
#define CONTAIN_LEAST 0.3
static double contained(const struct model *m, size_t a, size_t b, const size_t *cidx, size_t nc)
{
	double k = INFINITY;
	unsigned n = 0;
	for (size_t i = 0; i < nc; i++) {
		double ub = model_rho(m, cidx[i], b);
		if (ub < 0.05 || ub < 0.1 * m->form_cycles[cidx[i]])
			continue;
		n++;
		k = fmin(k, model_rho(m, cidx[i], a) / ub);
	}
	return n >= CONTAIN_FORMS && k > CONTAIN_LEAST ? k : 0;
}

/* Each mapped form that loads a core resource b inside a loads a at
 * least k times its load of b (at most its cycles alone): a probe against
 * a base that left some of a's units idle reads less than that (the
 * Zen 3's psrldq xmm, imm8 on the shift pipes and not on the four vector
 * pipes that hold them). Returns the usages raised, the pairs in *pairs. */
static unsigned contain_usages(struct model *m, const size_t *cidx, size_t nc,
			       const unsigned char *is_core, double tol, unsigned *pairs)
{
	unsigned raised = 0;
	for (size_t a = 0; a < m->nres; a++)
		for (size_t b = 0; b < m->nres; b++) {
			double k;
			if (a == b || !strcmp(m->res[a].name, MODEL_WIDTH) ||
			    !strcmp(m->res[b].name, MODEL_WIDTH) ||
			    !(k = contained(m, a, b, cidx, nc)))
				continue;
			(*pairs)++;
			for (size_t j = 0; j < m->nforms; j++) {
				double c = m->form_cycles[j],
				       want = fmin(c, k * model_rho(m, j, b));
				if (!is_core[j] && c > 0 && want > model_rho(m, j, a) + tol * c) {
					model_set_rho(m, j, a, want);
					raised++;
				}
			}
		}
	return raised;
}

/* vex_twins (below) */
#define VEX_SPREAD 0.10	      /* cycles alone within this much of each other */
#define VEX_INTERFERENCE 0.10 /* a pair slower than the sum by this: not twins */

/* The VEX forms to measure beside their legacy forms into vex[] and
 * leg[] (if not NULL: m->nforms entries each); returns how many. */
static size_t vex_candidates(const struct model *m, const unsigned char *is_core, size_t *vex,
			     size_t *leg)
{
	size_t n = 0;
	for (size_t f = 0; f < m->nforms; f++) {
		char name[FORM_NAME_MAX];
		long l;
		double cf = m->form_cycles[f];
		if (is_core[f] || !(cf > 0) || !form_name_legacy(m->forms[f], name, sizeof(name)) ||
		    (l = model_form_index(m, name)) < 0 || !(m->form_cycles[l] > 0) ||
		    fabs(cf / m->form_cycles[l] - 1) > VEX_SPREAD)
			continue;
		if (vex) {
			vex[n] = f;
			leg[n] = (size_t)l;
		}
		n++;
	}
	return n;
}

/* VEX forms as their legacy twins. A VEX-128 form with a separate first
 * source (vpmullw xmm, xmm, xmm) decodes to the µops of its legacy SSE
 * form (pmullw xmm, xmm), but the two are mapped apart, and the three-
 * operand form has no core form of its shape to be a sibling of
 * (infer_map_sibling.c): its probes read it against bases of other forms,
 * whose resources are mixtures of the CPU's units. On a Zen 3 vpmullw xmm
 * came out with 0.38 cycles of the core's resource R6 and vpsrld xmm,
 * xmm, xmm with 0.49, and their pair was predicted at 0.88 cycles where
 * it runs 0.50 (pmullw xmm, xmm: 0.06 of R6). So after the checks in
 * mixes, each such form whose legacy form is mapped within VEX_SPREAD of
 * its cycles alone is measured beside it, as many of each as take the
 * same cycles; a pair that takes the sum of both (they run on the same
 * units here) gives the VEX form the legacy form's usages, scaled by
 * their cycles alone. A pair that takes less (other units on this CPU)
 * or far more, or that runs with helpers, leaves it as it was. Returns 0,
 * or -1 with perpi_error() "interrupted". */
static int vex_twins(struct infer_meter *mt, struct model *m, const unsigned char *is_core,
		     double tol, unsigned *pairs, unsigned *taken)
{
	size_t *vex = xmalloc((m->nforms + 1) * sizeof(size_t)),
	       *leg = xmalloc((m->nforms + 1) * sizeof(size_t)),
	       n = vex_candidates(m, is_core, vex, leg);
	int rc = 0;
	if (n) {
		struct kernel *ks = xmalloc(n * sizeof(*ks));
		unsigned *a = xmalloc(n * sizeof(unsigned)), *b = xmalloc(n * sizeof(unsigned));
		struct runs x;
		runs_init(&x, n);
		for (size_t i = 0; i < n; i++) {
			balance(m->form_cycles[vex[i]], m->form_cycles[leg[i]], &a[i], &b[i]);
			kernel_init(&ks[i]);
			kernel_add(&ks[i], m->forms[vex[i]], a[i]);
			kernel_add(&ks[i], m->forms[leg[i]], b[i]);
		}
		mt->planned = 0; /* the last stage */
		infer_meter_label(mt, "VEX forms beside their legacy forms: %zu kernels", n);
		size_t done = runs_measure(mt, ks, n, &x);
		if (done < n)
			rc = perpi_set_error("interrupted");
		for (size_t i = 0; i < done && rc == 0; i++) {
			if (x.status[i] != 0)
				continue;
			model_add_run(m, &ks[i], x.helpers[i], x.cycles[i]);
			double cf = m->form_cycles[vex[i]], cl = m->form_cycles[leg[i]],
			       sum = a[i] * cf + b[i] * cl, c = x.cycles[i];
			if (x.helpers[i] || c < sum * (1 - 2 * tol) || c > sum * (1 + VEX_INTERFERENCE))
				continue;
			for (size_t r = 0; r < m->nres; r++)
				if (strcmp(m->res[r].name, MODEL_WIDTH))
					model_set_rho(m, vex[i], r,
						      fmin(cf, model_rho(m, leg[i], r) * cf / cl));
			(*taken)++;
		}
		*pairs += (unsigned)done;
		for (size_t i = 0; i < n; i++)
			kernel_done(&ks[i]);
		free(ks);
		free(a);
		free(b);
		runs_done(&x, n);
	}
	free(vex);
	free(leg);
	return rc;
}

/* The resource a form loads most, besides skip and the width; -1: none. */
static long top_resource(const struct model *m, size_t f, long skip)
{
	long top = -1;
	for (size_t r = 0; r < m->nres; r++)
		if ((long)r != skip && strcmp(m->res[r].name, MODEL_WIDTH) && model_rho(m, f, r) > 0 &&
		    (top < 0 || model_rho(m, f, r) > model_rho(m, f, (size_t)top)))
			top = (long)r;
	return top;
}

/* The front end's resource (the one a NOP loads most) and the address
 * units' (the one the plain load loads most besides it) into *front and
 * *lres; 0, or -1 when the model lacks either. */
#define LOAD_FORM "MOV_GPR64_M64"
static int front_and_address(const struct model *m, long *front, long *lres)
{
	long nop = model_form_index(m, "NOP"), ld = model_form_index(m, LOAD_FORM);
	*front = nop < 0 ? -1 : top_resource(m, (size_t)nop, -1);
	*lres = ld < 0 || *front < 0 ? -1 : top_resource(m, (size_t)ld, *front);
	return *lres < 0 ? -1 : 0;
}

/* Each form of mnemonic loads the address resource lres at least as the
 * plain load does (addr), at most its cycles alone; returns the forms
 * raised so. */
static unsigned raise_address(struct model *m, const char *mnemonic, size_t lres, double addr,
			      double tol)
{
	unsigned raised = 0;
	for (size_t f = 0; f < m->nforms; f++) {
		struct form fm;
		double want = fmin(m->form_cycles[f], addr);
		if (form_parse(m->forms[f], &fm) < 0 || strcmp(fm.mnemonic, mnemonic) ||
		    model_rho(m, f, lres) >= want * (1 - tol))
			continue;
		model_set_rho(m, f, lres, want);
		raised++;
	}
	return raised;
}

/* Pushes apart from the front end. The core's resource that a NOP loads
 * fully (the front end's: model.h) can carry a push's cycles alone: on a
 * Zen 3 it also held the address units, and push r64 took 0.50 cycles of
 * it, a move or a NOP 0.17; push + three moves was predicted at their
 * sum, 1.0 cycles, where it runs the dispatch width's 0.68, and the
 * prologues of the runs' blocks (pushes among moves) were their worst.
 * Three pairs of the plain push check it on this CPU: beside NOPs, as
 * many as take the same cycles, it runs under their sum (it does not take
 * the front end's slots beyond its own); beside plain loads, likewise,
 * over the longer (it shares something with them: the address units);
 * beside plain stores at their sum at least (it shares the store units).
 * With the first two, each push form (a form of PUSH) that loads the
 * front end past a NOP's slot has that usage moved to a resource of the
 * stores (a push alone and among pushes as before), keeps a slot there,
 * and loads the plain load's top resource at least as the load does; with
 * the third, every other form that stores (form_stores) loads the stores'
 * resource as it loads the front end's, where it keeps that usage. Only
 * pushes leave the front end: moving every store's usage so (282 forms on
 * the Zen 3) won on one timing of the runs' blocks and lost on three;
 * pushes write one line after another down the stack, where a compiled
 * program's plain stores go to another line 27-51% of the time, a cycle
 * each on that CPU (perpi core's store_line), which the front end's
 * resource likely carries for them (docs/BENCHMARKS.md, "The Zen 3, the
 * third night"). Returns 0, or -1 with perpi_error() "interrupted". */
#define PUSH_FORM "PUSH_GPR64"
#define STORE_FORM "MOV_M64_GPR64"
static int pushes_apart(struct infer_meter *mt, struct model *m, double tol,
			struct infer_polish_stats *ps)
{
	const char *other[3] = {"NOP", LOAD_FORM, STORE_FORM};
	long push = model_form_index(m, PUSH_FORM), of[3];
	ps->pushes_gate = -1;
	for (int i = 0; i < 3; i++)
		of[i] = model_form_index(m, other[i]);
	for (int i = 0; i < 3; i++)
		if (push < 0 || of[i] < 0 || !(m->form_cycles[push] > 0) ||
		    !(m->form_cycles[of[i]] > 0))
			return 0;
	long front, lres;
	if (front_and_address(m, &front, &lres) < 0)
		return 0;
	double cp = m->form_cycles[push];
	struct kernel ks[3];
	unsigned a[3], b[3];
	for (int i = 0; i < 3; i++) {
		balance(cp, m->form_cycles[of[i]], &a[i], &b[i]);
		kernel_init(&ks[i]);
		kernel_add(&ks[i], PUSH_FORM, a[i]);
		kernel_add(&ks[i], other[i], b[i]);
	}
	struct runs x;
	runs_init(&x, 3);
	infer_meter_label(mt, "pushes beside NOPs, loads and stores: 3 kernels");
	int rc = runs_measure(mt, ks, 3, &x) < 3 ? perpi_set_error("interrupted") : 0;
	int clean[3] = {0, 0, 0};
	double sum[3], longer[3];
	for (int i = 0; rc == 0 && i < 3; i++) {
		clean[i] = x.status[i] == 0 && !x.helpers[i];
		sum[i] = a[i] * cp + b[i] * m->form_cycles[of[i]];
		longer[i] = fmax(a[i] * cp, b[i] * m->form_cycles[of[i]]);
		if (x.status[i] == 0)
			model_add_run(m, &ks[i], x.helpers[i], x.cycles[i]);
	}
	if (rc == 0) {
		ps->pushes_gate = clean[0] && clean[1] && x.cycles[0] < sum[0] * (1 - 3 * tol) &&
				  x.cycles[1] > longer[1] * (1 + 3 * tol);
		ps->stores_share = clean[2] && x.cycles[2] >= sum[2] * (1 - 3 * tol);
	}
	double slot = model_rho(m, (size_t)of[0], (size_t)front),
	       addr = model_rho(m, (size_t)of[1], (size_t)lres);
	/* beside loads over the longer, whatever the NOPs say: every push
	 * form loads the address units at least as the load does (its cycles
	 * alone at most), as pops_beside_loads gives pops; the mapping can
	 * leave a push off them (a Zen 4 build put it on the ALUs' resource at
	 * 0.33 and off the loads', where `MOV_GPR64_M64 PUSH_GPR64` runs 0.67
	 * cycles: 0.50 predicted) */
	int beside_loads =
	    rc == 0 && clean[1] && x.cycles[1] > longer[1] * (1 + 3 * tol) && addr > 0;
	if (beside_loads)
		ps->pushes_raised = raise_address(m, "PUSH", (size_t)lres, addr, tol);
	long stores = -1;
	for (size_t f = 0; rc == 0 && ps->pushes_gate == 1 && f < m->nforms; f++) {
		struct form fm;
		double u = model_rho(m, f, (size_t)front);
		if (form_parse(m->forms[f], &fm) < 0 || u <= slot * (1 + tol))
			continue;
		int is_push = !strcmp(fm.mnemonic, "PUSH");
		if (!is_push && !(ps->stores_share && form_stores(&fm)))
			continue;
		if (stores < 0)
			stores = (long)model_add_resource(m, "stores", PUSH_FORM);
		model_set_rho(m, f, (size_t)stores, fmax(model_rho(m, f, (size_t)stores), u));
		if (!is_push) {
			ps->stores_loading++;
			continue;
		}
		model_set_rho(m, f, (size_t)front, slot);
		model_set_rho(m, f, (size_t)lres,
			      fmax(model_rho(m, f, (size_t)lres), fmin(m->form_cycles[f], addr)));
		ps->pushes_moved++;
	}
	for (int i = 0; i < 3; i++)
		kernel_done(&ks[i]);
	runs_done(&x, 3);
	return rc;
}

/* Pops beside loads. A pop reads the stack through the address units that
 * the loads take, but the core's mapping can leave it on resources of its
 * own: on the Zen 3 pop r64 took 0.11 cycles of the plain load's top
 * resource (a load 0.32, three address units), and blocks of epilogues
 * (five or six pops beside loads) were predicted 30% faster than they
 * run. A pair of the plain pop beside plain loads, as many as take the
 * same cycles, checks it on this CPU: over the longer, it shares their
 * units; then each pop form (a form of POP) loads that resource at least
 * as the plain load does (its cycles alone at most). Returns 0, or -1
 * with perpi_error() "interrupted". */
#define POP_FORM "POP_GPR64"
static int pops_beside_loads(struct infer_meter *mt, struct model *m, double tol,
			     struct infer_polish_stats *ps)
{
	long pop = model_form_index(m, POP_FORM), ld = model_form_index(m, LOAD_FORM), front, lres;
	ps->pops_gate = -1;
	if (pop < 0 || ld < 0 || !(m->form_cycles[pop] > 0) || !(m->form_cycles[ld] > 0) ||
	    front_and_address(m, &front, &lres) < 0)
		return 0;
	double cp = m->form_cycles[pop], cl = m->form_cycles[ld];
	struct kernel k;
	unsigned a, b;
	balance(cp, cl, &a, &b);
	kernel_init(&k);
	kernel_add(&k, POP_FORM, a);
	kernel_add(&k, LOAD_FORM, b);
	struct runs x;
	runs_init(&x, 1);
	infer_meter_label(mt, "pops beside loads: 1 kernel");
	int rc = runs_measure(mt, &k, 1, &x) < 1 ? perpi_set_error("interrupted") : 0;
	if (rc == 0 && x.status[0] == 0)
		model_add_run(m, &k, x.helpers[0], x.cycles[0]);
	if (rc == 0)
		ps->pops_gate = x.status[0] == 0 && !x.helpers[0] &&
				x.cycles[0] > fmax(a * cp, b * cl) * (1 + 3 * tol);
	double addr = model_rho(m, (size_t)ld, (size_t)lres);
	if (rc == 0 && ps->pops_gate == 1)
		ps->pops_raised = raise_address(m, "POP", (size_t)lres, addr, tol);
	kernel_done(&k);
	runs_done(&x, 1);
	return rc;
}

/* A plain store beside a push, each writing its own line in turn (the
 * generator's arena and the stack): what the pair takes past the model's
 * resources is what a store to another line than the store before costs
 * (model.c's store_turn_bound counts one such past the half cycles for
 * this pair); the model's store_turn is STORE_TURN_SHARE of it. On the
 * Zen 4 the pair takes 2.0 cycles, the resources 1.0. The share: the
 * harness's kernels take every such store whole, the runs' blocks timed
 * in the independent generator's code half of it (from model 8's
 * database, the blocks' RMS error 6.04% with none, 4.48% with half, 6.60%
 * with all of it; tau 0.842, 0.856, 0.855; model 9's alike:
 * docs/BENCHMARKS.md, "The Zen 4, stores in turn"): compiled code's plain
 * stores go to another line than the store before a third to half of the
 * time (docs/MODEL.md, "Pushes apart").
 * A read-modify-write beside a plain store likewise: the share of the
 * half cycle the store takes past the bound's (the read-modify-write's
 * whole cycle and the store's half) is the model's rmw_turn. The Zen 5
 * runs this pair in 2.08 cycles, the push's in its resources' 1.0: its
 * rmw_turn 0.5, store_turn 0 (docs/BENCHMARKS.md, "The Zen 5, a
 * read-modify-write beside stores"). Returns 0, or -1 with perpi_error()
 * "interrupted". */
#define STORE_TURN_SHARE 0.5
#define RMW_FORM "ADD_M64_GPR64"
static int stores_in_turn(struct infer_meter *mt, struct model *m, double tol,
			  struct infer_polish_stats *ps)
{
	const char *first[2] = {PUSH_FORM, RMW_FORM};
	long st = model_form_index(m, STORE_FORM);
	ps->turn_measured = 0;
	ps->store_turn = ps->rmw_turn = 0;
	if (st < 0 || !(m->form_cycles[st] > 0))
		return 0;
	struct kernel ks[2];
	size_t which[2], n = 0;
	for (size_t i = 0; i < 2; i++) {
		long f = model_form_index(m, first[i]);
		if (f < 0 || !(m->form_cycles[f] > 0))
			continue;
		kernel_init(&ks[n]);
		kernel_add(&ks[n], first[i], 1);
		kernel_add(&ks[n], STORE_FORM, 1);
		which[n++] = i;
	}
	if (!n)
		return 0;
	struct runs x;
	runs_init(&x, n);
	infer_meter_label(mt, "a store beside a push and a read-modify-write: %zu kernels", n);
	int rc = runs_measure(mt, ks, n, &x) < n ? perpi_set_error("interrupted") : 0;
	double turn[2] = {m->store_turn, m->rmw_turn};
	m->store_turn = m->rmw_turn = 0;
	for (size_t j = 0; j < n && rc == 0; j++) {
		struct prediction pr;
		if (x.status[j] != 0 || x.helpers[j] || model_predict(m, &ks[j], &pr) < 0)
			continue;
		/* past the model's resources, and for the read-modify-write past
		 * the bound's 1.5 cycles too, as a share of what the bound adds */
		size_t i = which[j];
		double past = x.cycles[j] - pr.cycles;
		if (i == 1)
			past = 2 * (x.cycles[j] - fmax(pr.cycles, 1.5));
		prediction_done(&pr);
		model_add_run(m, &ks[j], NULL, x.cycles[j]);
		ps->turn_measured = 1;
		turn[i] = x.cycles[j] - pr.cycles > 3 * tol * x.cycles[j] && past > 0
			      ? STORE_TURN_SHARE * fmin(past, 1)
			      : 0;
	}
	if (rc == 0) {
		ps->store_turn = turn[0];
		ps->rmw_turn = turn[1];
	}
	m->store_turn = turn[0];
	m->rmw_turn = turn[1];
	for (size_t j = 0; j < n; j++)
		kernel_done(&ks[j]);
	runs_done(&x, n);
	return rc;
}

int infer_polish(struct infer_meter *mt, struct model *m, const char *const *core, size_t ncore,
		 const struct infer_polish_options *o, struct infer_polish_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	size_t *cidx = xmalloc((ncore + 1) * sizeof(size_t)), nc = 0;
	unsigned char *is_core = xcalloc(m->nforms + 1, 1);
	for (size_t i = 0; i < ncore; i++) {
		long f = model_form_index(m, core[i]);
		if (f >= 0 && !is_core[f]) {
			is_core[f] = 1;
			cidx[nc++] = (size_t)f;
		}
	}
	size_t *icore = xmalloc((nc + 1) * sizeof(size_t)), nic = 0;
	for (size_t i = 0; i < nc; i++)
		if (integer_form(m->forms[cidx[i]]))
			icore[nic++] = cidx[i];
	unsigned char *enc = encodings(m);
	if (o->own && nc && o->per_form &&
	    own_beside_core(mt, m, cidx, nc, enc, o->tol, &stats->own_pairs, &stats->own_shared) <
		0) {
		free(enc);
		free(cidx);
		free(icore);
		free(is_core);
		return -1;
	}
	if (o->contain && nc)
		stats->contained = contain_usages(m, cidx, nc, is_core, o->tol, &stats->containing);
	size_t nt = 0, *targets = xmalloc((m->nforms + 1) * sizeof(size_t));
	for (size_t j = 0; j < m->nforms; j++)
		if (!is_core[j] && m->form_cycles[j] > 0 && strcmp(m->forms[j], "NOP"))
			targets[nt++] = j;
	if (nc == 0)
		nt = 0;
	/* the kernels, target by target: first[ti] the first of target ti's */
	size_t cap = nt * (o->per_form + (o->targeted ? 2 * m->nres : 0) + 4) + 1, nk = 0;
	struct kernel *ks = xmalloc(cap * sizeof(*ks));
	unsigned char *twin = xcalloc(cap, 1);
	size_t *first = xmalloc((nt + 2) * sizeof(size_t));
	struct rng g = {0x9e3779b97f4a7c15ULL ^ o->seed};
	for (size_t ti = 0; ti < nt; ti++) {
		first[ti] = nk;
		for (unsigned i = 0; i < o->per_form; i++)
			make_mix(m, targets[ti], cidx, nc, icore, nic, &g, &ks[nk++]);
		for (size_t r = 0; o->targeted && r < m->nres; r++)
			nk += targeted_mix(m, targets[ti], r, cidx, nc, enc, &ks[nk]);
		for (size_t r = 0; o->targeted && o->absent && r < m->nres; r++)
			if (absent_mix(m, targets[ti], r, cidx, nc, enc, &ks[nk])) {
				nk++;
				stats->absent_mixes++;
			}
		if (o->twins && o->per_form && twin_mix(m, targets[ti], &ks[nk])) {
			twin[nk++] = 1;
			stats->twins++;
		}
		if (o->twins && o->per_form && load_mix(m, targets[ti], &ks[nk])) {
			twin[nk++] = 2;
			stats->load_mixes++;
		}
		if (o->twins && o->per_form && immediate_mix(m, targets[ti], &ks[nk])) {
			twin[nk++] = 3;
			stats->immediate_mixes++;
		}
		if (o->twins && o->per_form && filler_mix(m, targets[ti], &ks[nk]))
			twin[nk++] = 4;
	}
	first[nt] = nk;
	int rc = 0;
	if (nc == 0 || nk == 0)
		goto measured;
	struct runs x;
	runs_init(&x, nk);
	/* the VEX forms beside their legacy forms come last */
	mt->planned = o->vex_twins ? vex_candidates(m, is_core, NULL, NULL) : 0;
	infer_meter_label(mt, "checking %zu mapped forms beside core forms: %zu kernels", nt, nk);
	size_t done = runs_measure(mt, ks, nk, &x);
	if (done < nk)
		rc = perpi_set_error("interrupted");
	size_t most = 1;
	for (size_t ti = 0; ti < nt; ti++)
		most = first[ti + 1] - first[ti] > most ? first[ti + 1] - first[ti] : most;
	struct mix *xs = xmalloc((most + 2) * sizeof(*xs));
	double *seq = xcalloc(m->nforms + 1, sizeof(double)); /* sequenced */
	double before = 0, after = 0;
	for (size_t ti = 0; ti < nt && rc == 0; ti++) {
		size_t t = targets[ti], n = 0;
		for (size_t i = first[ti]; i < first[ti + 1]; i++) {
			if (x.status[i] != 0)
				continue;
			stats->kernels++;
			if (twin[i] == 4 &&
			    (seq[t] = sequenced(m, &ks[i], x.helpers[i], x.cycles[i])) > 0)
				continue;
			if (read_mix(m, t, &ks[i], x.helpers[i], x.cycles[i], twin[i] == 3,
				     &xs[n]) == 0) {
				/* the one mix that reads the operation's own unit
				 * weighs as the form alone does */
				xs[n].weight = twin[i] && twin[i] != 4 ? 2 : 1;
				xs[n].twin = twin[i] == 4 ? 0 : twin[i];
				n++;
			}
		}
		if (n == 0)
			continue;
		/* the form alone, which the mapping read its usages beside */
		xs[n] = (struct mix){.a = 1, .cycles = m->form_cycles[t], .weight = 2, .at = -1};
		xs[n].fixed = xcalloc(m->nres + 1, sizeof(double));
		n++;
		stats->forms++;
		stats->changed +=
		    polish_target(m, t, xs, n, o, &before, &after, &stats->twin_floors);
		for (size_t b = 0; b < n; b++)
			free(xs[b].fixed);
	}
	if (rc == 0)
		stats->sequenced = sequenced_forms(m, seq, m->nforms);
	/* the mixes join the model's measurements, as they ran */
	for (size_t i = 0; i < done && rc == 0; i++)
		if (x.status[i] == 0)
			model_add_run(m, &ks[i], x.helpers[i], x.cycles[i]);
	if (stats->forms) {
		stats->before = before / (double)stats->forms;
		stats->after = after / (double)stats->forms;
	}
	free(xs);
	free(seq);
	runs_done(&x, nk);
measured:
	if (rc == 0 && nc && o->vex_twins &&
	    vex_twins(mt, m, is_core, o->tol, &stats->vex_pairs, &stats->vex_taken) < 0)
		rc = -1;
	stats->pushes_gate = -1;
	if (rc == 0 && nc && o->pushes_apart && pushes_apart(mt, m, o->tol, stats) < 0)
		rc = -1;
	stats->pops_gate = -1;
	if (rc == 0 && nc && o->pushes_apart && pops_beside_loads(mt, m, o->tol, stats) < 0)
		rc = -1;
	if (rc == 0 && nc && o->pushes_apart && stores_in_turn(mt, m, o->tol, stats) < 0)
		rc = -1;
	for (size_t i = 0; i < nk; i++)
		kernel_done(&ks[i]);
	free(ks);
	free(twin);
	free(first);
	free(cidx);
	free(icore);
	free(is_core);
	free(targets);
	free(enc);
	return rc;
}

/* Refitting the usages to every measurement at once.
 *
 * The search reads each resource's usages off one saturating kernel and
 * one probe per form: on a real CPU every probe carries its own timing
 * noise, and a usage read at one kernel is never checked against the
 * others. Once the resources are known, the usages that best explain all
 * the measurements together are a linear program (the core-mapping LP of
 * Palmed, over every measured kernel instead of the basic ones): with each
 * measured kernel b assigned the resource r(b) that the current model says
 * bounds it,
 *
 *   minimise   sum_{b,r} u_br + sum_b l_b + lambda sum_{r,j} rho(r,j) / cycles(j)
 *   subject to sum_j rho(r,j) sigma_bj <= c_b (1 + u_br)   for every r
 *              sum_j rho(r(b),j) sigma_bj >= c_b (1 - l_b)
 *              rho, u, l >= 0
 *
 * u_br and l_b are kernel b's relative over- and under-prediction by
 * resource r: the objective is an absolute relative error (an L1 fit: a
 * kernel the host disturbed pulls less than in a least-squares fit), and
 * the small lambda term settles the usages no measurement constrains at
 * zero. With a slack per (kernel, resource), the program splits into one
 * per resource, each small. Its rows of the first kind are many and few
 * are tight: they are added as the solution violates them. The assignment
 * r(b) is then recomputed with the new usages and the fit repeated while
 * the error falls. With more resources than infer_options.max_resources,
 * the ones that explain the measurements best are kept (keep_best) and
 * the fit runs again on them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/form.h"
#include "palmed/infer_private.h"
#include "palmed/lp.h"

#define REFIT_LAMBDA 1e-4
#define REFIT_ROUNDS 12 /* rounds of added rows per fit */
#define REFIT_FITS 3	/* assignments tried */
/* Kernels of up to REFIT_SMALL instructions (what code and the evaluation
 * run) weigh 1 in the fit; the long kernels of the isolation stage, whose
 * timing on a real core mixes in effects a resource model does not have,
 * weigh REFIT_LARGE_WEIGHT. */
#define REFIT_SMALL 24
#define REFIT_LARGE_WEIGHT 0.05

/* The measurements the fit uses: every short kernel, and among the long
 * ones an evenly spaced sample of at most REFIT_MAX_LONG (a long build
 * measures tens of thousands of probes; they weigh little, and GLPK's time
 * grows faster than the rows). */
#define REFIT_MAX_LONG 4000
/* Rows of one resource's program: kernels it bounds, and kernels it must
 * not exceed added per round. */
#define REFIT_MAX_ROWS 3000

struct sparse {
	size_t n, *cols;
	double *val;
	double weight; /* of the kernel's error in the fit */
	double cycles;
	double width; /* its load of the machine's width (0: none) */
};

static double sigma_size(const struct state *st, const double *sigma)
{
	double size = 0;
	for (size_t j = 0; j < st->n; j++)
		size += sigma[j];
	return size;
}

/* Whether kernel sigma ran slower than its forms one after another (by
 * more than INFER_OVER_SUM): no resource model reaches that (each
 * resource's load is a sum of the forms' loads, each at most the form's
 * cycles alone), so the kernel measured something else (stores to a new
 * cache line each, a chain through memory or a merged register), and
 * fitting the usages to it only raises them where no other kernel wants
 * them. On a Zen 4, `MOV_M64_GPR64 PUSH_GPR64` ran 2.0 cycles, each alone
 * 0.5 (the stack's line and the arena's stored to in turn); 1,834 of a
 * build's 128,265 kernels were over (non-temporal stores, clflush,
 * cvtsi2sd's merge, stores beside pushes); left out here and in the
 * mixes' fit (infer_polish.c), the runs' blocks 8.30% -> 7.62% from one
 * database (docs/BENCHMARKS.md). */
static int over_sum(const struct state *st, const double *sigma, double cycles)
{
	double sum = 0;
	for (size_t j = 0; j < st->n; j++)
		if (sigma[j] != 0) {
			if (!(st->single[j] > 0))
				return 0;
			sum += sigma[j] * st->single[j];
		}
	return sum > 0 && cycles > sum * (1 + INFER_OVER_SUM);
}

/* The nonzero multiplicities of each measurement used; *count of them. */
static struct sparse *supports(const struct state *st, size_t *count)
{
	size_t nlong = 0, seen = 0;
	for (size_t b = 0; b < st->nmeas; b++)
		nlong += sigma_size(st, st->meas[b].sigma) > REFIT_SMALL;
	size_t stride = (nlong + REFIT_MAX_LONG - 1) / REFIT_MAX_LONG;
	struct sparse *sp = xcalloc(st->nmeas + 1, sizeof(*sp));
	*count = 0;
	for (size_t b = 0; b < st->nmeas; b++) {
		const double *sigma = st->meas[b].sigma;
		int small = sigma_size(st, sigma) <= REFIT_SMALL;
		if (!small && seen++ % stride)
			continue;
		if (over_sum(st, sigma, st->meas[b].cycles))
			continue;
		struct sparse *e = &sp[(*count)++];
		e->cols = xmalloc((st->n + 1) * sizeof(size_t));
		e->val = xmalloc((st->n + 1) * sizeof(double));
		for (size_t j = 0; j < st->n; j++)
			if (sigma[j] != 0) {
				e->cols[e->n] = j;
				e->val[e->n++] = sigma[j];
			}
		e->weight = small ? 1 : REFIT_LARGE_WEIGHT;
		e->cycles = st->meas[b].cycles;
	}
	return sp;
}

static double load(const double *rho, const struct sparse *e)
{
	double sum = 0;
	for (size_t k = 0; k < e->n; k++)
		sum += rho[e->cols[k]] * e->val[k];
	return sum;
}

/* Mean absolute relative error of the model rho over the kernels used. */
static double fit_error(const struct state *st, const struct sparse *sp, size_t M,
			double *const *rho)
{
	double sum = 0;
	for (size_t b = 0; b < M; b++) {
		double best = sp[b].width;
		for (size_t r = 0; r < st->nres; r++)
			best = fmax(best, load(rho[r], &sp[b]));
		sum += fabs(best - sp[b].cycles) / sp[b].cycles;
	}
	return M ? sum / (double)M : 0;
}

/* The rows of one resource's fit and their slack columns. */
struct refit_rows {
	size_t *rows; /* the kernel of each slack column */
	size_t nrows, cap, n;
	size_t *cols; /* scratch for one row: n + 2 entries */
	double *val;
};

/* Kernel b's row: mine (r is its bottleneck): load + cb l - cb u = cb;
 * the others: load - cb u <= cb. */
static void add_kernel_row(struct lp *lp, struct refit_rows *rr, const struct sparse *s, size_t b,
			   int mine)
{
	double cb = s->cycles;
	size_t k = s->n, first = rr->n + rr->nrows;
	memcpy(rr->cols, s->cols, k * sizeof(size_t));
	memcpy(rr->val, s->val, k * sizeof(double));
	if (rr->nrows + 2 > rr->cap) {
		rr->cap *= 2;
		rr->rows = xrealloc(rr->rows, rr->cap * sizeof(size_t));
	}
	rr->rows[rr->nrows++] = b;
	rr->cols[k] = first, rr->val[k++] = -cb;
	if (mine) {
		rr->rows[rr->nrows++] = b;
		rr->cols[k] = first + 1, rr->val[k++] = cb;
	}
	lp_add_cols(lp, mine ? 2 : 1);
	lp_set_objective(lp, first, s->weight);
	if (mine)
		lp_set_objective(lp, first + 1, s->weight);
	lp_add_row_sparse(lp, k, rr->cols, rr->val, mine ? cb : -INFINITY, cb);
}

/* Resource r's usages fitted with the assignment of rho (kernels whose
 * bottleneck r is must reach their cycles; the others must stay below
 * theirs), into out. Each row gets its own slack, so resources fit apart:
 * R small programs instead of one large one. Returns 0, or -1 if GLPK
 * fails. */
static int fit_resource(const struct state *st, const struct sparse *sp, size_t M,
			const size_t *assign, double *const *rho, size_t r, double *out)
{
	size_t n = st->n;
	struct refit_rows rr = {xmalloc(64 * sizeof(size_t)), 0, 64, n,
				xmalloc((n + 2) * sizeof(size_t)), xmalloc((n + 2) * sizeof(double))};
	unsigned char *added = xcalloc(M + 1, 1);
	double *x = NULL;
	struct lp *lp = lp_new(n, 0);
	/* a form's usage of any resource is at most its cycles alone: the
	 * model must time the form alone as it was measured (the slack of
	 * its row, or its row left out of a sample, let TEST_GPR64_GPR64
	 * take 0.78 cycles of one resource, 0.17 measured, in a build on
	 * Zen 5, and every block with a test come out 3 times too slow) */
	for (size_t j = 0; j < n; j++) {
		lp_set_objective(lp, j, REFIT_LAMBDA / st->single[j]);
		lp_set_bounds(lp, j, 0, st->single[j]);
	}
	/* The kernels r bounds: all of them, or an evenly spaced sample of
	 * REFIT_MAX_ROWS (the others are left out of this fit). */
	size_t nmine = 0, seen = 0;
	for (size_t b = 0; b < M; b++)
		nmine += assign[b] == r;
	size_t stride = (nmine + REFIT_MAX_ROWS - 1) / REFIT_MAX_ROWS;
	for (size_t b = 0; b < M; b++)
		if (assign[b] == r && seen++ % stride)
			added[b] = 2;
	int rc = -1;
	for (unsigned round = 0; round < REFIT_ROUNDS && !infer_stopped(st); round++) {
		size_t more = 0, others = 0;
		for (size_t b = 0; b < M; b++) {
			if (added[b])
				continue;
			double cb = sp[b].cycles, now = load(x ? x : rho[r], &sp[b]);
			int mine = assign[b] == r;
			/* at first the rows the model makes nearly tight, then the
			 * ones the solution violates (REFIT_MAX_ROWS a round) */
			if (!mine &&
			    (now <= cb * (x ? 1 + 1e-7 : 0.9) || others++ >= REFIT_MAX_ROWS))
				continue;
			add_kernel_row(lp, &rr, &sp[b], b, mine);
			added[b] = 1;
			more++;
		}
		if (x && !more)
			break;
		x = xrealloc(x, (n + rr.nrows + 1) * sizeof(double));
		if ((rc = lp_solve(lp, x, NULL)) < 0)
			break;
	}
	if (rc == 0)
		for (size_t j = 0; j < n; j++)
			out[j] = x[j] < 1e-9 ? 0 : x[j];
	lp_delete(lp);
	free(rr.rows);
	free(added);
	free(rr.cols);
	free(rr.val);
	free(x);
	return rc;
}

/* Every resource fitted with the assignment of rho, into out. */
static int fit(const struct state *st, const struct sparse *sp, size_t M, double *const *rho,
	       double **out)
{
	size_t *assign = xmalloc((M + 1) * sizeof(size_t));
	for (size_t b = 0; b < M; b++) {
		double best = -1;
		for (size_t r = 0; r < st->nres; r++) {
			double l = load(rho[r], &sp[b]);
			if (l > best)
				best = l, assign[b] = r;
		}
		if (sp[b].width >= best && sp[b].width >= sp[b].cycles * (1 - st->o->tol))
			assign[b] = (size_t)-1;
	}
	int rc = 0;
	for (size_t r = 0; r < st->nres && rc == 0; r++) {
		rc = infer_stopped(st) ? -1 : fit_resource(st, sp, M, assign, rho, r, out[r]);
		infer_label(st, "fitting the usages: resource %zu of %zu", r + 1, st->nres);
	}
	free(assign);
	return rc;
}

/* The fits of REFIT_FITS assignments, while the error falls; returns the
 * error. */
static double fits(struct state *st, const struct sparse *sp, size_t M, double err)
{
	double **cand = xmalloc(st->nres * sizeof(double *));
	for (size_t r = 0; r < st->nres; r++)
		cand[r] = xmalloc(st->n * sizeof(double));
	for (unsigned f = 0; f < REFIT_FITS; f++) {
		if (fit(st, sp, M, st->rho, cand) < 0)
			break;
		double e = fit_error(st, sp, M, cand);
		if (!(e < err * (1 - 1e-3)))
			break;
		err = e;
		for (size_t r = 0; r < st->nres; r++)
			memcpy(st->rho[r], cand[r], st->n * sizeof(double));
	}
	for (size_t r = 0; r < st->nres; r++)
		free(cand[r]);
	free(cand);
	return err;
}

/* Keeps the `keep` resources that together explain the measurements best,
 * chosen one at a time (each the one that lowers the weighted error most,
 * given those chosen before). The search adds a resource for every kernel
 * the model could not explain; on a real core most are mixtures of a few
 * true ones, each form loads dozens of them, and the mapping's bases, which
 * then saturate several at once with small margins, spread every mapped
 * form over all of them. Returns the resources dropped. */
static size_t keep_best(struct state *st, const struct sparse *sp, size_t M, size_t keep)
{
	size_t R = st->nres;
	if (keep == 0 || R <= keep)
		return 0;
	double *loads = xmalloc((M * R + 1) * sizeof(double)), *now = xcalloc(M + 1, sizeof(double));
	unsigned char *chosen = xcalloc(R + 1, 1);
	for (size_t b = 0; b < M; b++)
		now[b] = sp[b].width;
	for (size_t b = 0; b < M; b++)
		for (size_t r = 0; r < R; r++)
			loads[b * R + r] = load(st->rho[r], &sp[b]);
	for (size_t k = 0; k < keep; k++) {
		size_t best = 0;
		double best_err = INFINITY;
		for (size_t r = 0; r < R; r++) {
			if (chosen[r])
				continue;
			double e = 0;
			for (size_t b = 0; b < M; b++) {
				double c = fmax(now[b], loads[b * R + r]);
				e += sp[b].weight * fabs(c - sp[b].cycles) / sp[b].cycles;
			}
			if (e < best_err)
				best_err = e, best = r;
		}
		chosen[best] = 1;
		for (size_t b = 0; b < M; b++)
			now[b] = fmax(now[b], loads[b * R + best]);
	}
	size_t to = 0;
	for (size_t r = 0; r < R; r++) {
		if (!chosen[r]) {
			free(st->rho[r]);
			free(st->satkern[r]);
			continue;
		}
		st->rho[to] = st->rho[r];
		st->satkern[to++] = st->satkern[r];
	}
	st->nres = to;
	free(loads);
	free(now);
	free(chosen);
	return R - to;
}

/* The machine's width in the fit (infer_add_width puts it in the model):
 * each kernel's load of it, its instructions that do something
 * (infer_form_idle) over the most instructions a cycle any kernel ran
 * (kernels with a string form or one that does nothing left out, as in
 * infer_add_width). Without it the fit spent core resources on the
 * dispatch, each an approximation shared by most forms: on a Zen 5, a
 * resource that loads and ALU forms both took most of their cycles alone
 * on put `movzx r32, [m16]; test r16, r16` (7.68 a cycle natively) at
 * 6.02, and `mov r64, [m]; xor r32, r32` (7.88) at 6.46; with the width,
 * 7.81 (docs/BENCHMARKS.md). Returns the width, 0 when none. */
static double core_width(const struct state *st, struct sparse *sp, size_t M)
{
	unsigned char *idle = xcalloc(st->n + 1, 1), *out = xcalloc(st->n + 1, 1);
	double best = 0;
	for (size_t j = 0; j < st->n; j++) {
		idle[j] = (unsigned char)infer_form_idle(st->forms[j]);
		out[j] = (unsigned char)infer_form_widthless(st->forms[j]);
	}
	for (size_t b = 0; b < M; b++) {
		double size = 0;
		int left_out = 0;
		for (size_t k = 0; k < sp[b].n; k++) {
			size += idle[sp[b].cols[k]] ? 0 : sp[b].val[k];
			left_out |= out[sp[b].cols[k]];
		}
		sp[b].width = size; /* over the width, below */
		if (!left_out)
			best = fmax(best, size / sp[b].cycles);
	}
	for (size_t b = 0; b < M; b++)
		sp[b].width = best > 0 ? sp[b].width / best : 0;
	free(idle);
	free(out);
	return best;
}

void infer_refit(struct state *st)
{
	if (!st->nres || !st->nmeas)
		return;
	size_t M;
	struct sparse *sp = supports(st, &M);
	double width = st->o->width ? core_width(st, sp, M) : 0;
	double before = fit_error(st, sp, M, st->rho);
	double err = fits(st, sp, M, before);
	size_t dropped = keep_best(st, sp, M, st->o->max_resources);
	if (dropped && !infer_stopped(st)) {
		double kept = fit_error(st, sp, M, st->rho);
		infer_note(st,
			   "the %zu resources that explain the measurements best kept, %zu dropped: "
			   "mean error %.2f%% -> %.2f%%",
			   st->nres, dropped, 100 * err, 100 * kept);
		err = fits(st, sp, M, kept);
	}
	/* Below the tolerance of a form's own cycles, a usage is the fit's
	 * noise (about half of them on this Zen 4; zeroing them changes the
	 * held-out error by 0.02 points) and only clutters the model. */
	for (size_t r = 0; r < st->nres; r++)
		for (size_t j = 0; j < st->n; j++)
			if (st->rho[r][j] < st->o->tol * st->single[j])
				st->rho[r][j] = 0;
	infer_note(
	    st, "usages fitted to %zu of the %zu measurements%s: mean error %.2f%% -> %.2f%%", M,
	    st->nmeas, width > 0 ? ", beside the machine's width" : "", 100 * before, 100 * err);
	if (width > 0)
		infer_note(st,
			   "the width in the core's fit: %.2f instructions a cycle (the fastest "
			   "kernel of core forms)",
			   width);
	for (size_t b = 0; b < M; b++) {
		free(sp[b].cols);
		free(sp[b].val);
	}
	free(sp);
}

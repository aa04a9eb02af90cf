/* Timing the independent generator's kernels: its own code, assembled
 * and linked into a shared object, run by the benchmark harness (the one
 * part it shares with the training generator: the clock and its
 * disturbance checks). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/bench.h"
#include "palmed/bench_stats.h"
#include "palmed/eval_gen_private.h"
#include "palmed/harness.h"

#define SLICE 32 /* kernels per shared object */

/* The figure of the clean samples, as the training measurements take it
 * (palmed/bench_stats.h: the median, or the faster mode's when they fall
 * into two), or -1 with the reason. */
int eg_summarise(const struct harness_output *o, unsigned insns, double *cycles, char **error)
{
	unsigned n = 0;
	for (unsigned i = 0; i < o->n; i++)
		n += o->clean[i] != 0;
	if (o->status < 0) {
		*error = xasprintf("%s", o->error);
		return -1;
	}
	if (n < 3) {
		*error = xstrdup("fewer than 3 repetitions " BENCH_BUSY_HOST);
		return -1;
	}
	struct bench_summary sum;
	bench_summarise(o->samples, o->clean, o->n, &sum);
	*cycles = sum.cycles;
	if (sum.spread > bench_max_spread(sum.cycles, insns)) {
		*error = xasprintf("repetitions spread by %.0f%%", 100 * sum.spread);
		return -1;
	}
	return 0;
}

static void config(struct harness_config *hc)
{
	struct bench_options bo;
	bench_options_default(&bo);
	memset(hc, 0, sizeof(*hc));
	hc->measures = bo.num_measures;
	hc->warmup = bo.warmup;
	hc->max_attempts = bo.max_attempts;
	hc->max_spread = bo.max_spread;
	hc->cpu = bo.cpu;
	hc->force_tsc = bo.force_tsc;
	hc->max_seconds = bo.max_seconds;
}

/* One shared object for ks[0..n): generate, assemble, link, run. */
static void run_slice(struct eval_gen *g, const struct kernel *ks, size_t n, double *cycles,
		      int *status, char **errors)
{
	struct strbuf s;
	struct harness_job *jobs = xcalloc(n + 1, sizeof(*jobs));
	char(*symbols)[32] = xcalloc(n + 1, sizeof(*symbols));
	size_t *of = xcalloc(n + 1, sizeof(size_t)), nj = 0;
	strbuf_init(&s);
	strbuf_addf(&s, ".intel_syntax noprefix\n");
	for (size_t i = 0; i < n; i++) {
		unsigned copies;
		int fills = 0;
		snprintf(symbols[nj], sizeof(symbols[0]), "perpi_eval%zu", nj);
		status[i] = -1;
		if (eval_gen_kernel(g, &ks[i], symbols[nj], &s, &copies, &fills) < 0) {
			errors[i] = xstrdup(perpi_error());
			continue;
		}
		/* a call that fills a stack frame first (eval_gen.c's
		 * add_prologue: about 250 cycles on a Zen 4, inside the timing)
		 * runs four times the instructions, the fill under 0.4% of it */
		unsigned body = copies * kernel_size(&ks[i]), total = fills ? 400000 : 100000;
		jobs[nj].symbol = symbols[nj];
		jobs[nj].turns = (total + body - 1) / body;
		jobs[nj].divisor = (double)jobs[nj].turns * copies;
		of[nj++] = i;
	}
	char stem[32], *diag = NULL;
	snprintf(stem, sizeof(stem), "eval%u", g->stem++);
	struct harness_output *out = xcalloc(nj + 1, sizeof(*out));
	int rc = nj ? harness_assemble(g->dir, stem, s.buf, &diag) : -1;
	if (rc == 0)
		rc = harness_link(g->dir, stem);
	if (rc == 0) {
		struct harness_config hc;
		char *so = xasprintf("%s/%s.so", g->dir, stem);
		config(&hc);
		if (!g->worker)
			g->worker = harness_worker_new();
		rc = harness_worker_run(g->worker, &hc, so, jobs, nj, out, NULL, NULL);
		free(so);
	}
	for (size_t j = 0; j < nj; j++) {
		size_t i = of[j];
		if (rc < 0)
			errors[i] = xasprintf("%s", perpi_error());
		else if (eg_summarise(&out[j], (unsigned)kernel_size(&ks[i]), &cycles[i],
				      &errors[i]) == 0)
			status[i] = 0;
		harness_output_done(&out[j]);
	}
	free(diag);
	free(out);
	strbuf_done(&s);
	free(jobs);
	free(symbols);
	free(of);
}

/* The kernels ks[idx[0..m)] measured again, in slices of SLICE, into
 * c[0..m), st and er (as run_slice's); stops between two slices when
 * *stop is set. Returns how many were measured. */
static size_t run_again(struct eval_gen *g, const struct kernel *ks, const size_t *idx, size_t m,
			double *c, int *st, char **er, const volatile sig_atomic_t *stop)
{
	struct kernel *again = xcalloc(m + 1, sizeof(*again));
	size_t at = 0;
	for (size_t j = 0; j < m; j++)
		again[j] = ks[idx[j]]; /* the kernels themselves are ks's */
	for (; at < m && !(stop && *stop); at += SLICE)
		run_slice(g, again + at, m - at < SLICE ? m - at : SLICE, c + at, st + at, er + at);
	free(again);
	return at < m ? at : m;
}

/* Kernels the host disturbed, or whose repetitions spread, are measured
 * again (twice at most, in one more shared object each time): a busy
 * spell passes, a kernel that always spreads stays refused. */
static void retry(struct eval_gen *g, const struct kernel *ks, size_t n, double *cycles,
		  int *status, char **errors, const volatile sig_atomic_t *stop)
{
	size_t *idx = xmalloc((n + 1) * sizeof(size_t));
	double *c = xmalloc((n + 1) * sizeof(double));
	int *st = xmalloc((n + 1) * sizeof(int));
	char **er = xmalloc((n + 1) * sizeof(char *));
	for (int round = 0; round < 2 && !(stop && *stop); round++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (status[i] < 0 && errors[i] &&
			    (strstr(errors[i], "spread") || strstr(errors[i], "undisturbed")))
				idx[m++] = i;
		memset(er, 0, (m + 1) * sizeof(char *));
		size_t done = run_again(g, ks, idx, m, c, st, er, stop);
		for (size_t j = 0; j < done; j++) {
			size_t i = idx[j];
			free(errors[i]);
			errors[i] = er[j];
			status[i] = st[j];
			cycles[i] = c[j];
		}
	}
	free(idx);
	free(c);
	free(st);
	free(er);
}

/* The kernels of pass (1, 2, ...) that the first measured, into idx:
 * backwards in odd passes (other neighbours, other slices), forwards from
 * the middle in even ones. Returns how many. */
static size_t pass_order(const int *status, size_t n, unsigned pass, size_t *idx)
{
	size_t m = 0;
	for (size_t j = 0; j < n; j++) {
		size_t i = pass % 2 ? n - 1 - j : (j + n / 2) % n;
		if (status[i] == 0)
			idx[m++] = i;
	}
	return m;
}

/* Every kernel measured is measured again in g->passes - 1 more passes,
 * in other shared objects (slices of another order: pass_order), and the
 * fastest is kept. The harness keeps the faster mode of a kernel's
 * repetitions, but a slow spell of the machine can outlast a whole slice:
 * on the Zen 5 VM, kernels of mask-register forms ran 1.5 to 2 times
 * slower in one evaluation than in the one before and in perpi bench (the
 * same kernels: ADD_GPR16_IMM8^2 VPCMPGTW_K_YMM_M256^2, 1.93 instructions
 * a cycle against 3.06 and 3.1); on the shared Zen 3 VM, a block of the
 * runs' (CMP_GPR64_IMM32 MOV_GPR64_M64) ran 5.85 instructions a cycle in
 * one evaluation and 3.77 in the next, both in two passes. The kernel's
 * speed is the machine's when it is not slowed, as for every measurement
 * of the model. */
static void more_passes(struct eval_gen *g, const struct kernel *ks, size_t n, double *cycles,
			const int *status, const volatile sig_atomic_t *stop)
{
	size_t *idx = xmalloc((n + 1) * sizeof(size_t));
	double *c = xmalloc((n + 1) * sizeof(double));
	double *later = xmalloc((n + 1) * sizeof(double));
	int *st = xmalloc((n + 1) * sizeof(int));
	char **er = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		later[i] = INFINITY;
	for (unsigned pass = 1; pass < g->passes && !(stop && *stop); pass++) {
		size_t m = pass_order(status, n, pass, idx);
		memset(er, 0, (m + 1) * sizeof(char *));
		size_t done = run_again(g, ks, idx, m, c, st, er, stop);
		for (size_t j = 0; j < done; j++) {
			free(er[j]);
			if (st[j] == 0)
				later[idx[j]] = fmin(later[idx[j]], c[j]);
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (status[i] != 0 || later[i] == INFINITY)
			continue;
		g->timed++;
		g->faster_first += cycles[i] < later[i] / 1.05;
		g->faster_later += later[i] < cycles[i] / 1.05;
		cycles[i] = fmin(cycles[i], later[i]);
	}
	free(idx);
	free(c);
	free(later);
	free(st);
	free(er);
}

void eval_gen_set_passes(struct eval_gen *g, unsigned passes)
{
	g->passes = passes ? passes : 1;
}

void eval_gen_passes(const struct eval_gen *g, unsigned *passes, size_t *timed,
		     size_t *faster_first, size_t *faster_later)
{
	*passes = g->passes;
	*timed = g->timed;
	*faster_first = g->faster_first;
	*faster_later = g->faster_later;
}

void eval_gen_measure(struct eval_gen *g, const struct kernel *ks, size_t n, double *cycles,
		      int *status, char **errors, const volatile sig_atomic_t *stop)
{
	size_t at = 0;
	for (; at < n && !(stop && *stop); at += SLICE)
		run_slice(g, ks + at, n - at < SLICE ? n - at : SLICE, cycles + at, status + at,
			  errors + at);
	if (at > n)
		at = n;
	retry(g, ks, at, cycles, status, errors, stop);
	more_passes(g, ks, at, cycles, status, stop);
	for (; at < n; at++) {
		status[at] = -1;
		errors[at] = xstrdup("interrupted");
	}
}

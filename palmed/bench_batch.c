/* One batch of a campaign (palmed/bench_private.h): the kernels generated
 * into one shared object, assembled (a kernel GNU as rejects is reported
 * and the rest assembled again), run in the worker, their results
 * summarised and stored as they arrive. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/bench_private.h"
#include "palmed/bench_stats.h"
#include "palmed/db.h"
#include "palmed/timing.h"

static void summarise(struct bench_result *r, unsigned size)
{
	struct bench_summary sum;
	bench_summarise(r->samples, r->clean, r->n_samples, &sum);
	r->cycles = sum.cycles;
	r->spread = sum.spread;
	r->bimodal = sum.bimodal;
	r->other_cycles = sum.other_cycles;
	r->ipc = size / r->cycles;
}

static void job_done(void *arg, size_t job, size_t done, size_t total)
{
	struct campaign *c = arg;
	size_t i = c->kernel_of_job[job];
	struct harness_output *o = &c->ho[job];
	struct bench_result *r = &c->out[i];
	/* the references only go down, but for one the worker found out of reach */
	for (int k = 0; k < PROBE_COUNT; k++) {
		int replaced = (o->replaced >> k & 1) && !(c->b->best_replaced >> k & 1);
		if (isfinite(o->best[k]) && o->best[k] > 0 &&
		    (c->b->best[k] == 0 || o->best[k] < c->b->best[k] || replaced)) {
			c->b->best[k] = o->best[k];
			c->b->best_dirty = 1;
			c->b->best_replaced |= (unsigned)replaced << k;
		}
	}
	unsigned n_clean = 0;
	for (unsigned j = 0; j < o->n; j++)
		n_clean += o->clean[j] != 0;
	c->b->reps += o->taken > o->n ? o->taken : o->n;
	c->b->reps_clean += n_clean;
	char *spec = kernel_to_string(&c->ks[i]);
	if (o->status < 0) {
		c->status[i] = -1;
		c->errors[i] = xasprintf("kernel %s: %s", spec, o->error);
	} else if (n_clean < 3) {
		c->status[i] = -1;
		c->disturbed[i] = 1;
		c->errors[i] =
		    xasprintf("kernel %s: fewer than 3 repetitions were " BENCH_BUSY_HOST " in "
			      "%.1f s (a busy machine); try again, or give --max-seconds",
			      spec, c->b->opt.max_seconds);
	} else {
		r->source = o->papi ? TIMING_PAPI : TIMING_TSC;
		r->n_samples = o->n;
		r->samples = o->samples;
		r->clean = o->clean;
		o->samples = NULL;
		o->clean = NULL;
		r->ticks_per_cycle = o->ticks_per_cycle;
		r->flagged = c->gi[job].flagged;
		snprintf(r->flag_reason, sizeof(r->flag_reason), "%s", c->gi[job].reason);
		snprintf(r->helpers, sizeof(r->helpers), "%s", c->gi[job].helpers);
		summarise(r, c->latency ? 1 : kernel_size(&c->ks[i]));
		c->status[i] = 0;
		if (c->b->db) {
			char *key = bench_kernel_key(c->b, &c->ks[i]);
			if (db_store(c->b->db, spec, c->latency ? "latency" : "throughput", key,
				     r) < 0) {
				c->status[i] = -1;
				c->errors[i] = xasprintf("storing %s: %s", spec, perpi_error());
			}
			free(key);
		}
	}
	free(spec);
	if (c->progress)
		c->progress(c->arg, c->done_before + done, c->total);
}

void bench_fail_all(struct campaign *c, const size_t *idx, size_t n, const char *msg)
{
	for (size_t j = 0; j < n; j++)
		if (!c->status[idx[j]] && !c->out[idx[j]].samples) {
			c->status[idx[j]] = -1;
			c->errors[idx[j]] = xstrdup(msg);
		}
}

/* Generate the batch's kernels (indices idx) into s, but those marked in
 * skip or failing to generate (their error set); first_line[j]: the line
 * of s where job j's text starts. Returns the jobs. */
static size_t generate(struct campaign *c, const size_t *idx, size_t n, const unsigned char *skip,
		       struct harness_job *jobs, char (*symbols)[32], struct strbuf *s,
		       size_t *first_line)
{
	struct bench_ctx *b = c->b;
	struct gen_params gp = b->gp;
	size_t n_jobs = 0, lines = 2;
	gp.latency = c->latency;
	strbuf_addf(s, ".intel_syntax noprefix\n");
	for (size_t j = 0; j < n; j++) {
		const struct kernel *k = &c->ks[idx[j]];
		const struct gen_form_info **infos = xcalloc(k->n, sizeof(*infos));
		size_t before = s->len;
		snprintf(symbols[n_jobs], sizeof(symbols[0]), "perpi_k%zu", n_jobs);
		if (skip[j]) {
		} else if (bench_kernel_infos(b, k, infos) < 0 ||
			   gen_kernel(k, infos, &gp, symbols[n_jobs], s, &c->gi[n_jobs]) < 0) {
			c->status[idx[j]] = -1;
			c->errors[idx[j]] = xstrdup(perpi_error());
		} else if (c->gi[n_jobs].flagged && b->opt.skip_flagged) {
			/* its verdict is known: nothing to run (a mixed SSE/VEX loop
			 * runs for seconds on an Intel core), its text dropped */
			struct bench_result *r = &c->out[idx[j]];
			r->flagged = 1;
			r->cycles = r->ipc = NAN;
			snprintf(r->flag_reason, sizeof(r->flag_reason), "%s",
				 c->gi[n_jobs].reason);
			c->status[idx[j]] = 0;
			s->len = before;
			s->buf[before] = '\0';
		} else {
			unsigned body = c->gi[n_jobs].body_insns;
			uint64_t turns = (b->opt.total_insn + body - 1) / body;
			jobs[n_jobs].symbol = symbols[n_jobs];
			jobs[n_jobs].turns = turns ? turns : 1;
			jobs[n_jobs].divisor = (double)jobs[n_jobs].turns * c->gi[n_jobs].copies;
			first_line[n_jobs] = lines;
			c->kernel_of_job[n_jobs++] = idx[j];
		}
		for (size_t i = before; i < s->len; i++)
			lines += s->buf[i] == '\n';
		free(infos);
	}
	first_line[n_jobs] = lines;
	return n_jobs;
}

/* The kernels whose text GNU as rejected, from its messages ("STEM.s:LINE:
 * Error: ..."): failed with that message and marked in skip. Returns how
 * many were found. */
static size_t blame(struct campaign *c, const size_t *idx, const char *diag, const char *stem,
		    const size_t *first_line, size_t n_jobs, unsigned char *skip)
{
	size_t found = 0;
	char *key = xasprintf("%s.s:", stem);
	for (const char *p = diag ? strstr(diag, key) : NULL; p; p = strstr(p + 1, key)) {
		size_t line = strtoul(p + strlen(key), NULL, 10);
		const char *msg = strstr(p, "Error: ");
		for (size_t j = 0; j < n_jobs && msg; j++) {
			if (line < first_line[j] || line >= first_line[j + 1])
				continue;
			size_t i = 0, k = c->kernel_of_job[j];
			while (idx[i] != k)
				i++;
			if (skip[i])
				continue;
			skip[i] = 1;
			found++;
			c->status[k] = -1;
			c->errors[k] = xasprintf("GNU as rejected the generated code: %.*s",
						 (int)strcspn(msg + 7, "\n"), msg + 7);
		}
	}
	free(key);
	return found;
}

static void run_jobs(struct campaign *c, const size_t *idx, size_t n, const char *stem,
		     const struct harness_job *jobs, size_t n_jobs)
{
	struct bench_ctx *b = c->b;
	struct harness_config hc = {
	    .measures = b->opt.num_measures ? b->opt.num_measures : 1,
	    .warmup = b->opt.warmup,
	    .max_attempts = b->opt.max_attempts ? b->opt.max_attempts : 1,
	    .max_spread = b->opt.max_spread,
	    .cpu = b->opt.cpu,
	    .force_tsc = b->opt.force_tsc,
	    .max_seconds = b->opt.max_seconds > 0 ? b->opt.max_seconds : 1.0,
	    .kernel_timeout = b->opt.kernel_timeout,
	    .stop = b->opt.stop,
	};
	memcpy(hc.best_hint, b->best, sizeof(hc.best_hint));
	char *so = xasprintf("%s/%s.so", b->dir, stem);
	c->ho = xcalloc(n_jobs, sizeof(*c->ho));
	if (!b->worker)
		b->worker = harness_worker_new();
	double t0 = perpi_now();
	if (harness_worker_run(b->worker, &hc, so, jobs, n_jobs, c->ho, job_done, c) < 0)
		bench_fail_all(c, idx, n, perpi_error());
	else if (b->opt.stop && *b->opt.stop) /* the jobs it did not run: no result */
		bench_fail_all(c, idx, n, "interrupted");
	if (getenv("PERPI_BENCH_TIMES")) /* where the time goes, for bench/ */
		fprintf(stderr, "perpi: %zu kernels: run %.1f ms\n", n_jobs,
			1e3 * (perpi_now() - t0));
	for (size_t j = 0; j < n_jobs; j++)
		harness_output_done(&c->ho[j]);
	free(c->ho);
	free(so);
}

/* Generate, assemble and run one batch of kernels (indices idx). A kernel
 * GNU as rejects is reported and the batch assembled again without it. */
void bench_run_batch(struct campaign *c, const size_t *idx, size_t n)
{
	struct bench_ctx *b = c->b;
	struct harness_job *jobs = xcalloc(n, sizeof(*jobs));
	char(*symbols)[32] = xcalloc(n, sizeof(*symbols));
	size_t *first_line = xcalloc(n + 1, sizeof(size_t)), n_jobs = 0;
	unsigned char *skip = xcalloc(n + 1, 1);
	char stem[32];
	int rc = -1;
	c->gi = xcalloc(n, sizeof(*c->gi));
	c->kernel_of_job = xcalloc(n, sizeof(size_t));
	snprintf(stem, sizeof(stem), "batch%u", b->batch++);
	for (int attempt = 0; attempt < 4 && rc < 0; attempt++) {
		struct strbuf s;
		char *diag = NULL;
		strbuf_init(&s);
		n_jobs = generate(c, idx, n, skip, jobs, symbols, &s, first_line);
		rc = n_jobs == 0 || bench_ensure_dir(b) < 0
			 ? -2
			 : harness_assemble(b->dir, stem, s.buf, &diag);
		if (rc == -1 && !blame(c, idx, diag, stem, first_line, n_jobs, skip))
			rc = -2;
		strbuf_done(&s);
		free(diag);
	}
	if (rc == 0 && harness_link(b->dir, stem) == 0)
		run_jobs(c, idx, n, stem, jobs, n_jobs);
	else if (n_jobs)
		bench_fail_all(c, idx, n, perpi_error());
	free(jobs);
	free(symbols);
	free(first_line);
	free(skip);
	free(c->gi);
	free(c->kernel_of_job);
}

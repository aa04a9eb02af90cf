#include "palmed/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/bench_private.h"
#include "palmed/bench_stats.h"
#include "palmed/db.h"
#include "palmed/gen.h"
#include "palmed/harness.h"
#include "palmed/timing.h"

/* Bumped whenever the generated code or the measuring method changes, so
 * that cached measurements of the old code are not taken for new ones. */
#define BENCH_GENERATOR_VERSION 8
/* The kernels whose code changed since without the others': those with a
 * form that writes a vector register implicitly (gen.h: pcmpestrm's xmm0,
 * now out of the pools). The others' measurements stand. */
#define BENCH_GENERATOR_IMPLICIT_VEC 9

const char *timing_source_name(enum timing_source s)
{
	return s == TIMING_PAPI ? "papi" : "tsc";
}

void bench_options_default(struct bench_options *o)
{
	memset(o, 0, sizeof(*o));
	o->unroll_size = 256;
	o->total_insn = 100000;
	o->num_measures = 15;
	o->warmup = 3;
	o->max_spread = 0.02;
	o->max_attempts = 3;
	o->max_seconds = 2.0;
	o->cpu = -1;
}

static char *options_key(const struct bench_options *o, int generator)
{
	return xasprintf("gen=%d unroll=%u total=%u measures=%u warmup=%u", generator,
			 o->unroll_size, o->total_insn, o->num_measures, o->warmup);
}

char *bench_options_key(const struct bench_options *o)
{
	return options_key(o, BENCH_GENERATOR_VERSION);
}

void bench_result_init(struct bench_result *r)
{
	memset(r, 0, sizeof(*r));
}

void bench_result_done(struct bench_result *r)
{
	free(r->samples);
	free(r->clean);
	bench_result_init(r);
}

/* Probe k's name in the database: "fp 2" (TIMING_REFERENCE_GENERATION). */
static const char *probe_name(int k, char name[32])
{
	snprintf(name, 32, "%s %d", timing_probe_names[k], TIMING_REFERENCE_GENERATION);
	return name;
}

struct bench_ctx *bench_new(const struct bench_options *o, struct db *db)
{
	struct bench_ctx *b = xcalloc(1, sizeof(*b));
	b->opt = *o;
	b->db = db;
	b->gp.unroll_size = o->unroll_size ? o->unroll_size : 1;
	__builtin_cpu_init();
	b->gp.avx = __builtin_cpu_supports("avx");
	b->gp.avx512 = __builtin_cpu_supports("avx512f");
	/* the probe references: the better of the database's and the cache file's */
	double from_file[PROBE_COUNT];
	machine_reference_key(b->machine, sizeof(b->machine));
	timing_reference_load(b->machine, from_file);
	for (int k = 0; k < PROBE_COUNT; k++) {
		double from_db = 0;
		char name[32];
		if (db)
			db_probe_get(db, probe_name(k, name), &from_db);
		b->best[k] = from_db > 0 && (from_file[k] <= 0 || from_db < from_file[k])
				 ? from_db
				 : from_file[k];
	}
	return b;
}

void bench_repetitions(const struct bench_ctx *b, unsigned long *all, unsigned long *clean)
{
	*all = b->reps;
	*clean = b->reps_clean;
}

void bench_delete(struct bench_ctx *b)
{
	if (!b)
		return;
	if (b->best_dirty) {
		char name[32];
		for (int k = 0; k < PROBE_COUNT && b->db; k++)
			if (b->best[k] > 0)
				db_probe_put(b->db, probe_name(k, name), b->best[k],
					     b->best_replaced >> k & 1);
		timing_reference_save(b->machine, b->best, b->best_replaced);
	}
	harness_worker_delete(b->worker);
	if (b->dir) {
		harness_remove_dir(b->dir);
		free(b->dir);
	}
	for (size_t i = 0; i < b->n_forms; i++)
		free(b->form_errors[i]);
	free(b->forms);
	free(b->form_errors);
	free(b);
}

int bench_ensure_dir(struct bench_ctx *b)
{
	if (!b->dir)
		b->dir = harness_make_dir();
	return b->dir ? 0 : -1;
}

static ssize_t find_form(struct bench_ctx *b, const char *name)
{
	for (size_t i = 0; i < b->n_forms; i++)
		if (!strcmp(b->forms[i].name, name))
			return (ssize_t)i;
	return -1;
}

static void add_form(struct bench_ctx *b, const struct gen_form_info *info)
{
	if (b->n_forms == b->cap_forms) {
		b->cap_forms = b->cap_forms ? 2 * b->cap_forms : 64;
		b->forms = xrealloc(b->forms, b->cap_forms * sizeof(*b->forms));
		b->form_errors = xrealloc(b->form_errors, b->cap_forms * sizeof(char *));
	}
	b->forms[b->n_forms] = *info;
	b->form_errors[b->n_forms++] = NULL;
}

/* A form's semantics from the database's cache, if there. */
static int from_db_cache(struct bench_ctx *b, const char *form)
{
	char *text = NULL;
	struct gen_form_info info;
	if (!b->db || db_form_semantics_get(b->db, form, &text) != 1)
		return 0;
	int ok = gen_form_info_from_text(form, text, &info) == 0;
	free(text);
	if (ok)
		add_form(b, &info);
	return ok;
}

/* Probe every form of ks not seen yet, in one assembler run. */
int bench_probe_kernels(struct bench_ctx *b, const struct kernel *ks, size_t n)
{
	const char **names = NULL;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t t = 0; t < ks[i].n; t++) {
			const char *f = ks[i].terms[t].form;
			int seen = find_form(b, f) >= 0 || from_db_cache(b, f);
			for (size_t j = 0; j < m && !seen; j++)
				seen = !strcmp(names[j], f);
			if (!seen) {
				names = xrealloc(names, (m + 1) * sizeof(*names));
				names[m++] = f;
			}
		}
	if (m == 0)
		return 0;
	if (bench_ensure_dir(b) < 0) {
		free(names);
		return -1;
	}
	if (b->n_forms + m > b->cap_forms) {
		b->cap_forms = (b->n_forms + m) * 2;
		b->forms = xrealloc(b->forms, b->cap_forms * sizeof(*b->forms));
		b->form_errors = xrealloc(b->form_errors, b->cap_forms * sizeof(char *));
	}
	int *status = xcalloc(m, sizeof(int));
	gen_probe_forms(names, m, b->dir, b->forms + b->n_forms, status,
			b->form_errors + b->n_forms);
	for (size_t i = 0; i < m && b->db; i++)
		if (status[i] == 0) {
			char *text = gen_form_info_to_text(&b->forms[b->n_forms + i]);
			db_form_semantics_put(b->db, names[i], text);
			free(text);
		}
	b->n_forms += m;
	free(status);
	free(names);
	return 0;
}

/* The semantics of each term of k, or -1 with the first form's error. */
int bench_kernel_infos(struct bench_ctx *b, const struct kernel *k,
		       const struct gen_form_info **infos)
{
	for (size_t t = 0; t < k->n; t++) {
		ssize_t i = find_form(b, k->terms[t].form);
		if (i < 0)
			return perpi_set_error("form %s was not probed", k->terms[t].form);
		if (b->form_errors[i])
			return perpi_set_error("%s", b->form_errors[i]);
		infos[t] = &b->forms[i];
	}
	return 0;
}

/* The helpers of a kernel found in the database: planned again (the
 * generator is deterministic, the forms' semantics are cached). */
static void cached_helpers(struct bench_ctx *b, const struct kernel *k, int latency,
			   struct bench_result *r)
{
	const struct gen_form_info **infos = xcalloc(k->n + 1, sizeof(*infos));
	struct gen_info gi;
	if (bench_probe_kernels(b, k, 1) == 0 && bench_kernel_infos(b, k, infos) == 0 &&
	    gen_kernel_helpers(k, infos, latency, &gi) == 0)
		snprintf(r->helpers, sizeof(r->helpers), "%s", gi.helpers);
	free(infos);
}

char *bench_kernel_key(struct bench_ctx *b, const struct kernel *k)
{
	const struct gen_form_info **infos = xcalloc(k->n + 1, sizeof(*infos));
	int generator = BENCH_GENERATOR_VERSION;
	if (bench_probe_kernels(b, k, 1) == 0 && bench_kernel_infos(b, k, infos) == 0)
		for (size_t t = 0; t < k->n; t++)
			if (infos[t]->implicit_vec_write)
				generator = BENCH_GENERATOR_IMPLICIT_VEC;
	free(infos);
	return options_key(&b->opt, generator);
}

/* The kernels of c found in the database (out[] filled); the others'
 * indices go to pending. Returns how many are pending. */
static size_t look_up(struct campaign *c, size_t *pending)
{
	struct bench_ctx *b = c->b;
	size_t n_pending = 0;
	/* the forms' semantics first, in one run of the assembler: the keys
	 * need them (a failure shows again when the kernels run) */
	if (b->db && !b->opt.fresh)
		(void)bench_probe_kernels(b, c->ks, c->total);
	for (size_t i = 0; i < c->total; i++) {
		char *key = b->db && !b->opt.fresh ? bench_kernel_key(b, &c->ks[i]) : NULL;
		struct bench_result *r = &c->out[i];
		bench_result_init(r);
		c->status[i] = 0;
		c->errors[i] = NULL;
		char *spec = kernel_to_string(&c->ks[i]);
		int hit =
		    b->db && !b->opt.fresh
			? db_lookup(b->db, spec, c->latency ? "latency" : "throughput", key, r)
			: 0;
		free(spec);
		if (hit < 0) {
			c->status[i] = -1;
			c->errors[i] = xstrdup(perpi_error());
		}
		if (hit > 0) {
			struct bench_summary sum;
			bench_summarise(r->samples, r->clean, r->n_samples, &sum);
			r->bimodal = sum.bimodal;
			r->other_cycles = sum.other_cycles;
			cached_helpers(b, &c->ks[i], c->latency, r);
		}
		if (hit)
			c->done_before++;
		else
			pending[n_pending++] = i;
		free(key);
	}
	return n_pending;
}

static size_t measure(struct bench_ctx *b, const struct kernel *ks, size_t n,
		      struct bench_result *out, int *status, char **errors, int latency,
		      bench_progress_fn progress, void *arg)
{
	struct campaign c = {.b = b,
			     .ks = ks,
			     .out = out,
			     .status = status,
			     .errors = errors,
			     .latency = latency,
			     .progress = progress,
			     .arg = arg,
			     .total = n};
	size_t *pending = xcalloc(n + 1, sizeof(size_t));
	size_t n_pending = look_up(&c, pending);
	if (progress && c.done_before)
		progress(arg, c.done_before, n);
	if (n_pending) {
		struct kernel *pending_ks = xcalloc(n_pending, sizeof(*pending_ks));
		for (size_t j = 0; j < n_pending; j++)
			pending_ks[j] = ks[pending[j]];
		int rc = bench_probe_kernels(b, pending_ks, n_pending);
		free(pending_ks);
		if (rc < 0)
			bench_fail_all(&c, pending, n_pending, perpi_error());
	}
	c.disturbed = xcalloc(n + 1, 1);
	for (size_t j = 0; j < n_pending; j += BATCH_MAX) {
		size_t m = n_pending - j < BATCH_MAX ? n_pending - j : BATCH_MAX;
		if (b->opt.stop && *b->opt.stop) {
			bench_fail_all(&c, pending + j, n_pending - j, "interrupted");
			break;
		}
		bench_run_batch(&c, pending + j, m);
		c.done_before += m;
	}
	/* in a campaign, the kernels the host disturbed throughout get a second
	 * chance at the end: the busy spell may be over */
	size_t n_retry = 0;
	for (size_t i = 0; i < n && n > 1 && !(b->opt.stop && *b->opt.stop); i++)
		if (c.disturbed[i]) {
			free(errors[i]);
			errors[i] = NULL;
			status[i] = 0;
			c.disturbed[i] = 0;
			pending[n_retry++] = i;
		}
	c.progress = NULL;
	for (size_t j = 0; j < n_retry; j += BATCH_MAX)
		bench_run_batch(&c, pending + j, n_retry - j < BATCH_MAX ? n_retry - j : BATCH_MAX);
	free(c.disturbed);
	free(pending);
	size_t ok = 0;
	for (size_t i = 0; i < n; i++)
		ok += status[i] == 0;
	return ok;
}

size_t bench_measure_many(struct bench_ctx *b, const struct kernel *ks, size_t n,
			  struct bench_result *out, int *status, char **errors,
			  bench_progress_fn progress, void *arg)
{
	return measure(b, ks, n, out, status, errors, 0, progress, arg);
}

static int measure_one(struct bench_ctx *b, const struct kernel *k, struct bench_result *out,
		       int latency)
{
	int status;
	char *error = NULL;
	measure(b, k, 1, out, &status, &error, latency, NULL, NULL);
	if (status < 0) {
		perpi_set_error("%s", error ? error : "measurement failed");
		free(error);
		return -1;
	}
	return 0;
}

int bench_measure(struct bench_ctx *b, const struct kernel *k, struct bench_result *out)
{
	return measure_one(b, k, out, 0);
}

int bench_cycles(void *ctx, const struct kernel *k, double *cycles_per_iter)
{
	struct bench_result r;
	if (bench_measure(ctx, k, &r) < 0)
		return -1;
	*cycles_per_iter = r.cycles;
	bench_result_done(&r);
	return 0;
}

int bench_latency(struct bench_ctx *b, const char *form, struct bench_result *out)
{
	struct kernel k;
	kernel_init(&k);
	kernel_add(&k, form, 1);
	int rc = measure_one(b, &k, out, 1);
	kernel_done(&k);
	return rc;
}

char *bench_kernel_asm(struct bench_ctx *b, const struct kernel *k, int latency)
{
	const struct gen_form_info **infos = xcalloc(k->n, sizeof(*infos));
	struct gen_params gp = b->gp;
	struct gen_info gi;
	struct strbuf s;
	strbuf_init(&s);
	gp.latency = latency;
	if (bench_probe_kernels(b, k, 1) < 0 || bench_kernel_infos(b, k, infos) < 0 ||
	    gen_kernel(k, infos, &gp, "perpi_kernel", &s, &gi) < 0) {
		free(infos);
		strbuf_done(&s);
		return NULL;
	}
	free(infos);
	if (gi.flagged) {
		struct strbuf t;
		strbuf_init(&t);
		strbuf_addf(&t, "# flagged: %s\n%s", gi.reason, s.buf);
		strbuf_done(&s);
		return t.buf;
	}
	return s.buf;
}

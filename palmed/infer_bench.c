#include "palmed/infer_bench.h"

#include "palmed/bench_stats.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/bench_stats.h"
#include "palmed/db.h"
#include "palmed/gen.h"
#include "palmed/model.h"

#define REFUSED "refused" /* the kind of the database's rows of refusals */
#define HELPERS_REFUSAL "timed with helpers"

/* Whether k was refused before (*reason then malloc'd). */
static int refused_before(struct infer_bench *ib, const struct kernel *k, char **reason)
{
	struct bench_result r;
	if (!ib->db || ib->retry_refused)
		return 0;
	char *spec = kernel_to_string(k);
	int found = db_lookup(ib->db, spec, REFUSED, ib->key, &r) == 1;
	free(spec);
	/* A kernel refused for a legacy-SSE form without a VEX twin beside
	 * VEX code is written anew: the generator decides again (it found
	 * more twins since; palmed/gen.h's GEN_TWIN_MERGE). */
	if (found && strstr(r.flag_reason, GEN_NO_TWIN)) {
		bench_result_done(&r);
		found = 0;
	}
	if (found) {
		*reason = xstrdup(r.flag_reason); /* as the first time: the same model */
		bench_result_done(&r);
	}
	return found;
}

/* Remembers that k was refused, unless it was only interrupted or the
 * host was busy throughout (BENCH_BUSY_HOST):
 * neither is the kernel's, and the next build measures it. */
static void remember_refusal(struct infer_bench *ib, const struct kernel *k, const char *reason)
{
	/* a refusal for helpers is the caller's choice, not the kernel's */
	if (!ib->db || (ib->stop && *ib->stop) || !strncmp(reason, HELPERS_REFUSAL, 18) ||
	    strstr(reason, BENCH_BUSY_HOST))
		return;
	struct bench_result r;
	bench_result_init(&r);
	r.flagged = 1;
	snprintf(r.flag_reason, sizeof(r.flag_reason), "%s", reason);
	char *spec = kernel_to_string(k);
	if (db_store(ib->db, spec, REFUSED, ib->key, &r) < 0)
		perpi_warn("palmed: cannot remember the refusal of %s: %s", spec, perpi_error());
	free(spec);
	bench_result_done(&r);
}

/* Why the model cannot use a result that came back: the generated code
 * kept a dependency (its cycles are a latency, not the throughput the model
 * is about), or the loop ran helper instructions with the kernel (a
 * division's operands, flag or register dependency breakers: gen.h's
 * gen_info). The cycles are then those of the kernel and the helpers
 * together: such a result is left out, with the helpers named, unless the
 * call takes them (ib->accept_helpers: the mapping stage, which knows the
 * helpers' usage and takes it off: infer_map.c). NULL: usable. */
static const char *refusal_of(const struct infer_bench *ib, const struct bench_result *r)
{
	static char why[256];
	if (r->flagged)
		snprintf(why, sizeof(why), "not measurable as throughput: %s", r->flag_reason);
	else if (r->helpers[0] && !ib->accept_helpers)
		snprintf(why, sizeof(why),
			 HELPERS_REFUSAL " (%s): their share is not separable here", r->helpers);
	else
		return NULL;
	/* as long as the database remembers it: a refusal found there later
	 * reads the same (palmed/bench.h's flag_reason) */
	why[sizeof(r->flag_reason) - 1] = '\0';
	return why;
}

static double spread_limit(const struct kernel *k, const struct bench_result *r)
{
	return bench_max_spread(r->cycles, kernel_size(k));
}

/* From attempt first on (0: the cache may answer). */
static int measure_from(struct infer_bench *ib, const struct kernel *k, struct bench_result *r,
			unsigned first)
{
	int rc = -1;
	/* A busy host makes the runner give up on a kernel or return widely
	 * spread samples; neither is the kernel's fault: measure it again
	 * (bypassing the cached result). */
	for (unsigned attempt = first; attempt < 3; attempt++) {
		bench_result_init(r);
		rc = bench_measure(attempt ? ib->fresh : ib->bench, k, r);
		if (rc == 0 && refusal_of(ib, r)) {
			rc = perpi_set_error("%s", refusal_of(ib, r));
			break;
		}
		if (rc == 0 && r->spread <= spread_limit(k, r))
			break;
		if (rc == 0)
			rc = perpi_set_error("repetitions spread by %.0f%% (a busy host, or a "
					     "kernel whose timing varies from run to run)",
					     100 * r->spread);
		else if (!strstr(perpi_error(), "disturbed"))
			break;
		if (attempt < 2)
			bench_result_done(r);
	}
	if (rc < 0)
		bench_result_done(r);
	return rc;
}

int infer_bench_measure(struct infer_bench *ib, const struct kernel *k, struct bench_result *r)
{
	char *why;
	if (refused_before(ib, k, &why)) {
		perpi_set_error("%s", why);
		free(why);
		return -1;
	}
	int rc = measure_from(ib, k, r, 0);
	if (rc < 0)
		remember_refusal(ib, k, perpi_error());
	return rc;
}

static void count(struct infer_bench *ib, int status, const struct bench_result *r)
{
	if (status < 0)
		ib->refused++;
	else if (r->from_cache)
		ib->cached++;
	else
		ib->measured++;
}

static int infer_measure_cycles(void *ctx, const struct kernel *k, double *cycles)
{
	struct infer_bench *ib = ctx;
	struct bench_result r;
	ib->accept_helpers = 0;
	int rc = infer_bench_measure(ib, k, &r);
	count(ib, rc, &r);
	if (rc == 0) {
		*cycles = r.cycles;
		bench_result_done(&r);
	}
	return rc;
}

/* The kernels refused before get their reason (from_refusal[i] set) and
 * are not measured; the others go to todo, at[j] their index in ks.
 * Returns how many go to todo. */
static size_t set_aside_refused(struct infer_bench *ib, const struct kernel *ks, size_t n,
				int *status, char **errors, unsigned char *from_refusal,
				struct kernel *todo, size_t *at)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		char *why;
		status[i] = 0;
		errors[i] = NULL;
		if (refused_before(ib, &ks[i], &why)) {
			status[i] = -1;
			errors[i] = why;
			from_refusal[i] = 1;
			ib->refused++;
		} else {
			todo[m] = ks[i];
			at[m++] = i;
		}
	}
	return m;
}

/* One campaign through the runner (much faster than kernel by kernel),
 * then what infer_bench_measure would do next for each kernel the host
 * disturbed or spread too widely: measure it again on its own. */
static void infer_measure_cycles_many(void *ctx, const struct kernel *ks, size_t n, double *cycles,
				      int *status, char **errors, char **helpers)
{
	struct infer_bench *ib = ctx;
	ib->accept_helpers = helpers != NULL;
	struct bench_result *r = xcalloc(n + 1, sizeof(*r));
	struct kernel *todo = xcalloc(n + 1, sizeof(*todo));
	size_t *at = xcalloc(n + 1, sizeof(size_t));
	unsigned char *from_refusal = xcalloc(n + 1, 1);
	size_t m = set_aside_refused(ib, ks, n, status, errors, from_refusal, todo, at);
	int *st = xcalloc(m + 1, sizeof(int));
	char **er = xcalloc(m + 1, sizeof(char *));
	struct bench_result *rr = xcalloc(m + 1, sizeof(*rr));
	if (m)
		bench_measure_many(ib->bench, todo, m, rr, st, er, NULL, NULL);
	for (size_t j = 0; j < m; j++) {
		status[at[j]] = st[j];
		errors[at[j]] = er[j];
		r[at[j]] = rr[j];
	}
	free(todo);
	free(st);
	free(er);
	free(rr);
	for (size_t i = 0; i < n; i++) {
		if (from_refusal[i])
			continue;
		int retry = 0;
		if (status[i] == 0 && refusal_of(ib, &r[i])) {
			status[i] = -1;
			errors[i] = xstrdup(refusal_of(ib, &r[i]));
		} else if (status[i] == 0) {
			retry = r[i].spread > spread_limit(&ks[i], &r[i]);
		} else {
			retry = errors[i] && strstr(errors[i], "disturbed");
		}
		if (retry && ib->stop && *ib->stop) {
			/* stopping: the kernel is left out, not measured again */
		} else if (retry) {
			free(errors[i]);
			errors[i] = NULL;
			bench_result_done(&r[i]);
			status[i] = measure_from(ib, &ks[i], &r[i], 1);
			if (status[i] < 0)
				errors[i] = xstrdup(perpi_error());
		}
		count(ib, status[i], &r[i]);
		if (status[i] == 0)
			cycles[i] = r[i].cycles;
		if (status[i] == 0 && helpers)
			helpers[i] = r[i].helpers[0] ? xstrdup(r[i].helpers) : NULL;
		else if (status[i] != 0)
			remember_refusal(ib, &ks[i], errors[i]);
		bench_result_done(&r[i]);
	}
	free(r);
	free(at);
	free(from_refusal);
}

static void infer_repetitions(void *ctx, unsigned long *all, unsigned long *clean)
{
	struct infer_bench *ib = ctx;
	unsigned long a, c;
	bench_repetitions(ib->bench, all, clean);
	bench_repetitions(ib->fresh, &a, &c);
	*all += a;
	*clean += c;
}

static void infer_refused(void *ctx, const struct kernel *k, const char *reason)
{
	remember_refusal(ctx, k, reason);
}

void infer_bench_init(struct infer_bench *ib, const struct bench_options *o, struct db *db,
		      struct measure *out)
{
	/* a flagged kernel is refused whatever it measures: not run */
	struct bench_options opt = *o, fresh = *o;
	opt.skip_flagged = fresh.skip_flagged = 1;
	fresh.fresh = 1;
	ib->bench = bench_new(&opt, db);
	ib->fresh = bench_new(&fresh, db);
	ib->cpu = model_host_cpu();
	ib->measured = ib->cached = ib->refused = 0;
	ib->stop = NULL;
	ib->db = db;
	ib->key = bench_options_key(o);
	ib->retry_refused = 0;
	ib->accept_helpers = 0;
	out->ctx = ib;
	out->cycles = infer_measure_cycles;
	out->cycles_many = infer_measure_cycles_many;
	out->repetitions = infer_repetitions;
	out->refused = infer_refused;
	out->cpu = ib->cpu;
}

void infer_bench_done(struct infer_bench *ib)
{
	/* The fresh context's worker was forked last and holds the other
	 * worker's pipes: stop it first, or the other never sees its end. */
	bench_delete(ib->fresh);
	bench_delete(ib->bench);
	free(ib->cpu);
	free(ib->key);
	ib->bench = ib->fresh = NULL;
	ib->cpu = NULL;
	ib->key = NULL;
}

#include "palmed/infer_bench.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/model.h"

int infer_bench_measure(struct infer_bench *ib, const struct kernel *k, struct bench_result *r)
{
	int rc = -1;
	/* A busy host makes the runner give up on a kernel or return widely
	 * spread samples; neither is the kernel's fault: measure it again
	 * (bypassing the cached result). */
	for (unsigned attempt = 0; attempt < 3; attempt++) {
		bench_result_init(r);
		rc = bench_measure(attempt ? ib->fresh : ib->bench, k, r);
		if (rc == 0 && r->flagged) {
			/* The generated code kept a dependency: its cycles are a
			 * latency, not the throughput the model is about. */
			rc = perpi_set_error("not measurable as throughput: %s", r->flag_reason);
			break;
		}
		if (rc == 0 && r->spread <= INFER_BENCH_MAX_SPREAD)
			break;
		if (rc == 0)
			rc = perpi_set_error("repetitions spread by %.0f%% (a busy host)",
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

static int infer_measure_cycles(void *ctx, const struct kernel *k, double *cycles)
{
	struct infer_bench *ib = ctx;
	struct bench_result r;
	if (infer_bench_measure(ib, k, &r) < 0) {
		ib->refused++;
		return -1;
	}
	*cycles = r.cycles;
	if (r.from_cache)
		ib->cached++;
	else
		ib->measured++;
	bench_result_done(&r);
	return 0;
}

void infer_bench_init(struct infer_bench *ib, const struct bench_options *o, struct db *db,
		      struct measure *out)
{
	struct bench_options fresh = *o;
	fresh.fresh = 1;
	ib->bench = bench_new(o, db);
	ib->fresh = bench_new(&fresh, db);
	ib->cpu = model_host_cpu();
	ib->measured = ib->cached = ib->refused = 0;
	out->ctx = ib;
	out->cycles = infer_measure_cycles;
	out->cpu = ib->cpu;
}

void infer_bench_done(struct infer_bench *ib)
{
	/* The fresh context's worker was forked last and holds the other
	 * worker's pipes: stop it first, or the other never sees its end. */
	bench_delete(ib->fresh);
	bench_delete(ib->bench);
	free(ib->cpu);
	ib->bench = ib->fresh = NULL;
	ib->cpu = NULL;
}

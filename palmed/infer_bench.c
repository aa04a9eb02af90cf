#include "palmed/infer_bench.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/model.h"

static int infer_measure_cycles(void *ctx, const struct kernel *k, double *cycles)
{
	struct infer_bench *ib = ctx;
	struct bench_result r;
	int rc = -1;
	/* A host busy for a while makes the runner give up on a kernel;
	 * that is not the kernel's fault: try again a little later. */
	for (unsigned attempt = 0; attempt < 3; attempt++) {
		bench_result_init(&r);
		rc = bench_measure(ib->bench, k, &r);
		if (rc == 0 || !strstr(perpi_error(), "disturbed") || attempt == 2)
			break;
		bench_result_done(&r);
	}
	if (rc == 0 && r.flagged) {
		/* The generated code kept a dependency: its cycles are a latency,
		 * not the throughput the model is about. */
		rc = perpi_set_error("not measurable as throughput: %s", r.flag_reason);
	}
	if (rc == 0) {
		*cycles = r.cycles;
		if (r.from_cache)
			ib->cached++;
		else
			ib->measured++;
	} else {
		ib->refused++;
	}
	bench_result_done(&r);
	return rc;
}

void infer_bench_init(struct infer_bench *ib, struct bench_ctx *bench, struct measure *out)
{
	ib->bench = bench;
	ib->cpu = model_host_cpu();
	ib->measured = ib->cached = ib->refused = 0;
	out->ctx = ib;
	out->cycles = infer_measure_cycles;
	out->cpu = ib->cpu;
}

void infer_bench_done(struct infer_bench *ib)
{
	free(ib->cpu);
	ib->cpu = NULL;
}

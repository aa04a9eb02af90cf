/* New kernels measured one at a time through bench_measure in one process,
 * as the Palmed inference does: the median and p90 of the wall time per
 * kernel. Usage: bench/bench_pipedream_api [N]  (default 40 kernels) */
#include <stdio.h>
#include <stdlib.h>

#include "common/util.h"
#include "palmed/bench.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const char *const forms[] = {"ADD_GPR64_GPR64", "IMUL_GPR64_GPR64", "ADDSD_XMM_XMM",
					    "MOV_GPR64_M64", "LEA_GPR64_MEM", "VMULPD_YMM_YMM_YMM"};
	int n = argc > 1 ? atoi(argv[1]) : 40;
	if (n < 1)
		n = 40;
	struct bench_options o;
	bench_options_default(&o);
	struct bench_ctx *b = bench_new(&o, NULL);
	double *ms = xmalloc(n * sizeof(*ms));
	int failed = 0;
	for (int i = 0; i < n; i++) {
		/* all different: A^(i/6+1) B, B another form than A */
		struct kernel k;
		struct bench_result r;
		kernel_init(&k);
		kernel_add(&k, forms[i % 6], 1 + i / 6);
		kernel_add(&k, forms[(i % 6 + 1 + (i / 6) % 5) % 6], 1);
		double t = perpi_now();
		if (bench_measure(b, &k, &r) == 0)
			bench_result_done(&r);
		else
			failed++;
		ms[i] = 1e3 * (perpi_now() - t);
		kernel_done(&k);
	}
	bench_delete(b);
	qsort(ms, n, sizeof(*ms), cmp_double);
	printf("| new kernel, one at a time in one process (`bench_measure`, median of %d) | %.1f ms "
	       "(p90 %.1f ms%s) | <= 50 ms |\n",
	       n, ms[(n - 1) / 2], ms[(n * 9 + 9) / 10 - 1 < n ? (n * 9 + 9) / 10 - 1 : n - 1],
	       failed ? ", some disturbed throughout" : "");
	free(ms);
	return 0;
}

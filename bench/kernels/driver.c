/* The driver of the cycle-prediction kernels (bench/kernels/, `perpi eval
 * cycles`): sets the kernel's data up, then calls kernel() CALLS times and
 * times each call in place with the TSC, converted to core cycles by a
 * chain of dependent adds timed in the same process (the in-process rdtsc
 * harness that `perpi eval cycles` uses until `perpi measure` is there).
 *
 *   usage: KERNEL [CALLS]     (default 3)
 *
 * It prints one line on stdout:
 *   perpi-kernel NAME calls N min CYCLES median CYCLES overhead CYCLES
 * where CYCLES are core cycles per call, the timer's own cost (an empty
 * timed region, its minimum) already subtracted. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel.h"

#define CHAIN 4096 /* dependent adds per calibration */

static inline uint64_t tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

/* TSC ticks per core cycle: the fastest of many chains of CHAIN adds. */
static double ticks_per_cycle(void)
{
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < 200; r++) {
		uint64_t x = 1, t0 = tsc();
		__asm__ volatile(".rept 4096\n\tadd %0, %0\n\t.endr" : "+r"(x));
		uint64_t t = tsc() - t0;
		best = t < best ? t : best;
	}
	return (double)best / CHAIN;
}

static uint64_t empty_region(void)
{
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < 1000; r++) {
		uint64_t t0 = tsc(), t = tsc() - t0;
		best = t < best ? t : best;
	}
	return best;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

volatile long kernel_sink;

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 3;
	if (calls < 1 || calls > 1000000) {
		fprintf(stderr, "%s: CALLS must be between 1 and 10^6\n", argv[0]);
		return 2;
	}
	kernel_setup();
	double tpc = ticks_per_cycle();
	uint64_t overhead = empty_region();
	double *cyc = malloc(calls * sizeof(*cyc));
	for (long c = 0; c < calls; c++) {
		uint64_t t0 = tsc();
		kernel_sink += kernel();
		uint64_t t = tsc() - t0;
		cyc[c] = (double)(t > overhead ? t - overhead : 0) / tpc;
	}
	qsort(cyc, calls, sizeof(*cyc), by_value);
	printf("perpi-kernel %s calls %ld min %.1f median %.1f overhead %.1f\n", kernel_name, calls,
	       cyc[0], cyc[(calls - 1) / 2], overhead / tpc);
	free(cyc);
	return 0;
}

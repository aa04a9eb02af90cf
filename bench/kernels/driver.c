/* The driver of the cycle-prediction kernels (bench/kernels/, `perpi eval
 * cycles`): before each call it sets the kernel's data up afresh (the
 * generator goes on, so call k of every run gets the same data, and no
 * call repeats the data of another: a branch predictor cannot learn a
 * kernel's data-dependent branches by heart over the calls), then calls
 * kernel() and times the call in place with the TSC, converted to core
 * cycles by a chain of dependent adds timed in the same process (the
 * in-process rdtsc harness that `perpi eval cycles` uses until `perpi
 * measure` is there).
 *
 *   usage: KERNEL [CALLS]     (default 3)
 *
 * It prints one line on stdout:
 *   perpi-kernel NAME calls N step S overhead O cycles C1 ... CN probes P1 ... PN
 * with each call's core cycles, the timer's own cost O (the mean of the
 * fastest empty timed regions) subtracted, and S the TSC's step in core
 * cycles: on this VM the TSC advances in steps of about 40 ticks (70
 * cycles), so a call of D cycles reads as the step below or above D, in
 * proportion to how close D is to each, and the mean of several runs'
 * readings of call k is D. Pk is the slower of two throughput probes (8
 * chains of adds, 16384 in all) run just before and after call k: a core
 * shared with a busy neighbour (a sibling hyperthread, the host) runs
 * them slower, and `perpi eval cycles` keeps only the calls whose probes
 * ran at full speed. */
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

/* Ticks of 16384 adds in 8 independent chains: throughput bound. */
static uint64_t probe(void)
{
	uint64_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8, t0 = tsc();
	for (int k = 0; k < 64; k++)
		__asm__ volatile(
		    ".rept 32\n\tadd %0, %0\n\tadd %1, %1\n\tadd %2, %2\n\tadd %3, %3\n"
		    "\tadd %4, %4\n\tadd %5, %5\n\tadd %6, %6\n\tadd %7, %7\n\t.endr"
		    : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(g), "+r"(h));
	return tsc() - t0;
}

/* The TSC's step: the smallest advance between two reads. */
static uint64_t tsc_step(void)
{
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < 1000; r++) {
		uint64_t a = tsc(), b;
		while ((b = tsc()) == a)
			;
		best = b - a < best ? b - a : best;
	}
	return best;
}

/* Mean of the sorted samples v[0..n) within 1.5 steps of the minimum. */
static double clean_mean(const double *v, long n, double step)
{
	double sum = 0;
	long k = 0;
	while (k < n && v[k] <= v[0] + 1.5 * step)
		sum += v[k++];
	return sum / (double)k;
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
	if (calls < 1 || calls > 1000) {
		fprintf(stderr, "%s: CALLS must be between 1 and 1000\n", argv[0]);
		return 2;
	}
	double tpc = ticks_per_cycle(), step = (double)tsc_step() / tpc;
	long reps = 1000; /* the timer's own cost: an empty region */
	double *cyc = malloc((reps > calls ? reps : calls) * sizeof(*cyc));
	for (long r = 0; r < reps; r++) {
		uint64_t t0 = tsc();
		cyc[r] = (double)(tsc() - t0) / tpc;
	}
	qsort(cyc, reps, sizeof(*cyc), by_value);
	double overhead = clean_mean(cyc, reps, step);
	double *probes = malloc(calls * sizeof(*probes));
	for (long c = 0; c < calls; c++) {
		kernel_setup();
		uint64_t p0 = probe(), t0 = tsc();
		kernel_sink += kernel();
		uint64_t t1 = tsc(), p1 = probe();
		cyc[c] = (double)(t1 - t0) / tpc - overhead;
		probes[c] = (double)(p0 > p1 ? p0 : p1) / tpc;
	}
	printf("perpi-kernel %s calls %ld step %.1f overhead %.1f cycles", kernel_name, calls, step,
	       overhead);
	for (long c = 0; c < calls; c++)
		printf(" %.1f", cyc[c]);
	printf(" probes");
	for (long c = 0; c < calls; c++)
		printf(" %.1f", probes[c]);
	printf("\n");
	free(probes);
	free(cyc);
	return 0;
}

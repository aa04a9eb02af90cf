/* The figure a kernel's repetitions give (palmed/bench.h): the median of
 * the clean ones, or, when they fall into two modes, the faster mode's. */
#ifndef PERPI_BENCH_STATS_H
#define PERPI_BENCH_STATS_H

struct bench_summary {
	double cycles;	     /* the median of the samples kept */
	double spread;	     /* (q75 - q25) / median of the samples kept */
	int bimodal;	     /* two modes: the faster one was kept */
	double other_cycles; /* bimodal: the slower mode's median */
	unsigned kept;	     /* samples the figure comes from */
};

/* Two modes: the clean samples, sorted, have a gap of more than
 * BENCH_MODE_GAP (relative) between two neighbours, with at least 3 on
 * each side and a fifth of them below it (a single slow repetition is no
 * mode). Seen on this Zen 5 (vector ALU chains) and on
 * the Zen 4 the docs measured (shuffles): a run of such a kernel settles in
 * either mode, so its median moved between modes from run to run. The
 * faster mode is what the core sustains when its scheduling goes well; it
 * is kept so that every measurement of the kernel gives the same figure.
 * No clean sample: all of them are used. */
#define BENCH_MODE_GAP 0.05
void bench_summarise(const double *samples, const unsigned char *clean, unsigned n,
		     struct bench_summary *out);

/* The relative spread a kernel's figure may have and still be used (by
 * the inference and by perpi palmed eval's native timings): 5%, and 15%
 * for a kernel of slow instructions, BENCH_SLOW_CYCLES cycles an
 * instruction or more. Atomics (lock add, xadd, xchg with memory: 21
 * cycles on Zen 5) spread by 6-13% however calm the host, and were left
 * unmapped for it, with every kernel holding one; at 21 cycles a 10%
 * spread is still a figure within 2 cycles. */
#define BENCH_MAX_SPREAD 0.05
#define BENCH_MAX_SPREAD_SLOW 0.15
#define BENCH_SLOW_CYCLES 4.0
double bench_max_spread(double cycles, unsigned insns);

#endif

/* Clocks for Pipedream: the TSC, converted to core cycles by timing a chain
 * of dependent 1-cycle adds (the calibration probe), a throughput-bound
 * probe that shows when the host takes the core away (steal, a busy SMT
 * sibling), and PAPI's cycle counter where it works. */
#ifndef PERPI_TIMING_H
#define PERPI_TIMING_H

#include <stdint.h>

/* Dependent adds timed by one calibration probe (its length in cycles). */
#define TIMING_CHAIN_CYCLES 16384
/* Independent adds in one throughput probe (4 per cycle on 4 ALUs). */
#define TIMING_WIDE_INSNS 32768

/* TSC read fenced so that it neither starts before earlier instructions
 * finish nor lets later ones start early. */
static inline uint64_t timing_tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

/* The probes; each returns TSC ticks, with the timer's own cost removed. */
uint64_t timing_chain_ticks(void);
uint64_t timing_wide_ticks(void);
/* Ticks a timed empty region costs (the minimum of many reads). */
uint64_t timing_overhead(void);

/* TSC ticks per core cycle, from the fastest of n calibration probes. */
double timing_calibrate(unsigned n);

/* The throughput probe's best speed on this machine, in cycles per probe
 * instruction, kept in a small file ($XDG_CACHE_HOME/perpi/probe-reference,
 * else ~/.cache/perpi/...) under a key naming the machine, so that even a
 * run without database starts from a reference taken on a quiet moment.
 * load: 0 and *out (0 if unknown); save: keeps the smaller value. */
int timing_reference_load(const char *machine, double *out);
int timing_reference_save(const char *machine, double value);

/* PAPI_TOT_CYC and PAPI_TOT_INS usable in this process? Probed once at
 * run time (a VM usually has no counters). 0 when built without PAPI. */
int timing_papi_works(void);
/* Start/stop counting in this thread (after timing_papi_works() said 1).
 * timing_papi_stop returns 0 and the cycles and instructions since start. */
int timing_papi_start(void);
int timing_papi_stop(uint64_t *cycles, uint64_t *insns);

#endif

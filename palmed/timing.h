/* Clocks for Pipedream: the TSC, converted to core cycles by timing a chain
 * of dependent 1-cycle adds (the calibration probe), throughput-bound
 * probes of the integer ALUs, the load ports and the FP pipes that show
 * when the host takes the core or part of it away (steal, a busy SMT
 * sibling), and PAPI's cycle counter where it works. */
#ifndef PERPI_TIMING_H
#define PERPI_TIMING_H

#include <stdint.h>

/* Dependent adds timed by one calibration probe (its length in cycles). */
#define TIMING_CHAIN_CYCLES 16384
/* Throughput probes: each saturates one kind of unit with independent
 * instructions, so that a sibling thread using the same units slows it. */
enum timing_probe {
	PROBE_ALU,   /* 64 adds per loop turn over 8 registers */
	PROBE_LOAD,  /* 64 loads per turn from one 512-byte buffer */
	PROBE_FP,    /* 60 addpd per turn over 12 XMM registers */
	PROBE_FRONT, /* 64 zero idioms per turn over 8 registers: the front end and
		      * renaming only, which a busy SMT sibling shares */
	PROBE_COUNT
};
extern const char *const timing_probe_names[PROBE_COUNT]; /* "alu", "load", "fp", "front" */
extern const unsigned timing_probe_insns[PROBE_COUNT];	  /* instructions per probe */
#define TIMING_WIDE_INSNS 16384				  /* the ALU probe's length */

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
/* A second calibration on other units: TIMING_FP_CHAIN_INSNS dependent
 * addsd (latency 2-4 cycles by CPU, an integer). A sibling thread can slow
 * the chain of adds, and then every probe read against it looks fast and
 * every kernel's cycles come out too few; it does not slow both chains
 * alike, so the ratio of the two shows it (palmed/harness_measure.c). */
#define TIMING_FP_CHAIN_INSNS 2048
uint64_t timing_fp_chain_ticks(void);
uint64_t timing_probe_ticks(enum timing_probe p);
/* Probe p's cycles per instruction now: the fastest of `tries` runs, at
 * ticks_per_cycle (timing_calibrate's). */
double timing_probe_cpi(enum timing_probe p, double ticks_per_cycle, unsigned tries);
/* The reorder window now: ticks of two chains of sqrtsd around 288 nops
 * over the same around 64. About 1 when the window holds 300 instructions
 * (448 on Zen 5); 1.3 to 2 when a busy SMT sibling has split it (224 on
 * Zen 5), which slows latency-bound code by as much and no throughput
 * probe sees. */
#define TIMING_WINDOW_SPLIT 1.10
double timing_window_ratio(void);
/* The ratio above which the window counts as split: TIMING_WINDOW_SPLIT,
 * or $PERPI_WINDOW_SPLIT (a machine whose probe reads otherwise; tests). */
double timing_window_split(void);
/* Ticks a timed empty region costs (the minimum of many reads). */
uint64_t timing_overhead(void);

/* TSC ticks per core cycle, from the fastest of n calibration probes. */
double timing_calibrate(unsigned n);

/* The references' generation, in the machine's key and the database's
 * probe names: those kept before the FP chain closed each probe point
 * (palmed/harness_measure.c, probe) may hold a clock change (an Intel Xeon
 * kept 0.418 cycles an addpd, which it runs at 0.5) and are not read. */
#define TIMING_REFERENCE_GENERATION 2

/* The throughput probes' best speed on this machine, in cycles per probe
 * instruction, kept in a small file ($XDG_CACHE_HOME/perpi/probe-reference,
 * else ~/.cache/perpi/...) under a key naming the machine, so that even a
 * run without database starts from a reference taken on a quiet moment.
 * load: 0 and out[] (0 where unknown); save: keeps the smaller values, but
 * for the probes of the mask `replace` (bit k: probe k's reference was out
 * of reach), whose value replaces the kept one. */
int timing_reference_load(const char *machine, double out[PROBE_COUNT]);
int timing_reference_save(const char *machine, const double value[PROBE_COUNT],
			  unsigned replace);

/* PAPI_TOT_CYC and PAPI_TOT_INS usable in this process? Probed once at
 * run time (a VM usually has no counters). 0 when built without PAPI. */
int timing_papi_works(void);
/* Start/stop counting in this thread (after timing_papi_works() said 1).
 * timing_papi_stop returns 0 and the cycles and instructions since start. */
int timing_papi_start(void);
int timing_papi_stop(uint64_t *cycles, uint64_t *insns);

#endif

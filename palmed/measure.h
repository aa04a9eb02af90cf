/* The one thing the Palmed inference needs from a machine: the cycles per
 * iteration of a kernel. A simulated machine (palmed/sim.h) and the real
 * benchmark runner both fill this struct, so the inference never knows which
 * one answers. */
#ifndef PERPI_MEASURE_H
#define PERPI_MEASURE_H

#include <stddef.h>

#include "palmed/kernel.h"

struct measure {
	void *ctx; /* owned by whoever filled the struct */
	/* Cycles per iteration of k (one instance of the whole multiset).
	 * Returns 0, or -1 with perpi_error() set (e.g. a form that cannot be
	 * benchmarked); the inference then reports that form as unmapped. */
	int (*cycles)(void *ctx, const struct kernel *k, double *cycles_per_iter);
	/* The CPU identity the measurements belong to, written into the model
	 * ("AuthenticAMD family 25 model 17: AMD EPYC ...", "simulated: zen"). */
	const char *cpu;
	/* Optional (NULL: the inference calls cycles once per kernel): many
	 * kernels at once, which a real machine does far faster (one shared
	 * object, one worker). status[i] is 0 with cycles[i] set, or -1 with
	 * errors[i] a malloc'd reason (the caller frees it).
	 * helpers: NULL, and a kernel that runs only beside helper
	 * instructions (a division's dividend set, a dependency broken by a
	 * zero idiom: palmed/gen.h) is refused, its cycles not its own; or
	 * n slots, and such a kernel is measured with them: cycles[i] is then
	 * that of ks[i] and helpers[i] together, helpers[i] their kernel
	 * spec, malloc'd (NULL when none ran). */
	void (*cycles_many)(void *ctx, const struct kernel *ks, size_t n, double *cycles,
			    int *status, char **errors, char **helpers);
	/* Optional (NULL: not known): the repetitions timed so far and how
	 * many of them the host left undisturbed (bench_repetitions). */
	void (*repetitions)(void *ctx, unsigned long *all, unsigned long *clean);
	/* Optional (NULL: not kept): a verdict the caller reached on k from
	 * several measurements (it disturbs the probes itself:
	 * palmed/infer_meter.c), to be remembered like a refusal the
	 * measurement itself gave. */
	void (*refused)(void *ctx, const struct kernel *k, const char *reason);
};

#endif

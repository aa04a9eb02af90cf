/* The evaluation of predicted cycles (`perpi eval cycles`, docs/CYCLES.md):
 * for each kernel, the native cycles of one call of its function and three
 * predictions of the same call from its recorded run:
 *   - perpi: the out-of-order core model (palmed/cycles.h);
 *   - bound: the Palmed resource bound lifted by exact block occurrences
 *     (palmed/lift.h), per call;
 *   - llvm-mca: llvm-mca-19 on each basic block, lifted the same way (the
 *     CesASMe formula: sum over blocks of occurrences x llvm-mca's cycles
 *     per iteration of the block), per call.
 * Then per predictor: RMS relative error, Kendall's tau, coverage; a CSV
 * and an SVG scatter of predicted against native cycles. */
#ifndef PERPI_EVAL_CYCLES_H
#define PERPI_EVAL_CYCLES_H

#include <stddef.h>
#include <stdio.h>

#include "palmed/core.h"
#include "palmed/model.h"

enum { PRED_PERPI, PRED_BOUND, PRED_MCA, PRED_COUNT };
extern const char *const eval_cycles_predictor[PRED_COUNT]; /* "perpi", "bound", "llvm-mca" */

struct eval_cycles_kernel {
	char *name;		 /* owned */
	double native;		 /* cycles of one call (the fastest); NAN when not measured */
	double measured;	 /* by perpi measure (the median call); NAN if not */
	double driver;		 /* by the kernel's own rdtsc (bench/kernels/driver.c) */
	int slowed;		 /* perpi measure found the core slowed after every run */
	double pred[PRED_COUNT]; /* cycles of one call; NAN when not predicted */
	unsigned long calls;	 /* calls in the recording */
	unsigned long insns;	 /* dynamic instructions of one call (the recording's mean) */
	double l1_miss_rate;	 /* the simulated L1's, over the calls */
	int flagged;		 /* above CYCLES_L1_FLAG: perpi's prediction is not counted */
	double mispredicts;	 /* per call */
};

/* Predicts a call of function (SYM, the one the recording at path was
 * made with `perpi record --function SYM`) with m and c (and llvm-mca when
 * use_mca): the mean over the recorded calls but the first (whose code,
 * data and predictor start cold; the only one if there is one), which
 * the bound and llvm-mca get by subtracting a replay of the first call
 * alone. Fills k's predictions, calls, insns and L1 figures. Returns 0,
 * or -1 with perpi_error(). */
int eval_cycles_predict(const char *path, const char *function, const struct model *m,
			const struct core *c, int use_mca, struct eval_cycles_kernel *k);

struct eval_cycles_metrics {
	double rms;	 /* RMS of (predicted - native) / native over the covered kernels */
	double tau;	 /* Kendall's tau-b of predicted and native over them */
	double coverage; /* covered kernels / kernels measured */
	size_t covered;
};
void eval_cycles_metrics(const struct eval_cycles_kernel *ks, size_t n, int predictor,
			 struct eval_cycles_metrics *out);

/* name,native,perpi,bound,llvm-mca,calls,instructions,l1_miss_rate,flagged,
 * mispredicts_per_call,measure,driver,slowed */
int eval_cycles_write_csv(const struct eval_cycles_kernel *ks, size_t n, const char *path);
/* Predicted against native cycles, both axes logarithmic, the diagonal
 * and the +-15% band. */
int eval_cycles_write_svg(const struct eval_cycles_kernel *ks, size_t n, int predictor,
			  const char *path);
/* The table and the metrics, as `perpi eval cycles` prints them. */
void eval_cycles_print(FILE *out, const struct eval_cycles_kernel *ks, size_t n);

#endif

/* The evaluation harness: held-out kernels, measured natively and
 * predicted by each predictor; RMS relative IPC error, Kendall's tau,
 * coverage; raw results as CSV; a predicted-vs-native SVG scatter. */
#ifndef PERPI_EVAL_H
#define PERPI_EVAL_H

#include <stdio.h>

#include "palmed/kernel.h"
#include "palmed/model.h"

#define EVAL_MAX_PREDICTORS 4

struct eval_point {
	char *kernel;  /* canonical spec, owned */
	double native; /* measured IPC */
	double pred[EVAL_MAX_PREDICTORS]; /* predicted IPC, NAN if not covered */
};

struct eval_set {
	size_t npred;
	const char *pred_names[EVAL_MAX_PREDICTORS]; /* static strings */
	size_t n;
	struct eval_point *points; /* owned */
};

struct eval_metrics {
	double rms;      /* sqrt(mean(((pred - native) / native)^2)) over covered */
	double tau;      /* Kendall's tau-b between predicted and native IPC */
	double coverage; /* share of kernels the predictor covers */
	size_t covered;
};

/* count random kernels of 2-5 distinct forms with multiplicities 1-4, drawn
 * from forms with seed, none of them among exclude's measurements (the
 * kernels a model was built from). kernels must hold count entries. */
void eval_random_kernels(const char *const *forms, size_t nforms, unsigned seed, size_t count,
			 const struct model *exclude, struct kernel *kernels);

void eval_set_init(struct eval_set *s);
void eval_set_done(struct eval_set *s);
size_t eval_add_predictor(struct eval_set *s, const char *name);
/* Appends a point with every prediction NAN; returns its index. */
size_t eval_add_point(struct eval_set *s, const char *kernel, double native_ipc);

void eval_metrics(const struct eval_set *s, size_t predictor, struct eval_metrics *out);
/* Kendall's tau-b of two series (pairs with a NAN are skipped). */
double eval_kendall_tau(const double *a, const double *b, size_t n);

/* kernel,native_ipc,<predictor>_ipc... one line per point. */
int eval_write_csv(const struct eval_set *s, const char *path);
/* Predicted (y) against native (x) IPC with the diagonal. */
int eval_write_svg(const struct eval_set *s, size_t predictor, const char *path);

/* Whether llvm-mca-19 is on the PATH. */
int eval_mca_available(void);
/* llvm-mca's IPC for the loop body of a generated kernel (asm_text as
 * bench_kernel_asm gives it). Returns 0, or -1 with perpi_error() set. */
int eval_mca_ipc(const char *asm_text, double *ipc);

#endif

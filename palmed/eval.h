/* The evaluation harness: held-out kernels, measured natively and
 * predicted by each predictor; RMS relative IPC error, Kendall's tau,
 * coverage; raw results as CSV; a predicted-vs-native SVG scatter. */
#ifndef PERPI_EVAL_H
#define PERPI_EVAL_H

#include <stdio.h>

#include "palmed/core.h"
#include "palmed/kernel.h"
#include "palmed/model.h"

#define EVAL_MAX_PREDICTORS 4

struct eval_point {
	char *kernel;			  /* canonical spec, owned */
	double native;			  /* measured IPC */
	double pred[EVAL_MAX_PREDICTORS]; /* predicted IPC, NAN if not covered */
	double weight;	 /* 1 for random kernels; a block kernel's dynamic instructions */
	const char *set; /* the CSV's set column if not the set's name ("loop"), static */
};

struct eval_set {
	const char *name; /* "random" or "blocks": the CSV's set column */
	int weighted;	  /* points differ in weight (the scatter shows it) */
	size_t npred;
	const char *pred_names[EVAL_MAX_PREDICTORS]; /* static strings */
	size_t n;
	struct eval_point *points; /* owned */
};

/* With w a point's weight and e = (pred - native) / native, over the
 * points the predictor covers: rms = sqrt(sum w e^2 / sum w) (the plain RMS
 * when every weight is 1); tau is unweighted, over the covered points;
 * coverage = covered weight / all weight. */
struct eval_metrics {
	double rms;
	double tau;	 /* Kendall's tau-b between predicted and native IPC */
	double coverage; /* share of the weight (of kernels) the predictor covers */
	size_t covered;	 /* kernels */
};

/* count random kernels of 2-5 distinct forms with multiplicities 1-4, drawn
 * from forms with seed, none of them among exclude's measurements (the
 * kernels a model was built from). kernels must hold count entries. */
void eval_random_kernels(const char *const *forms, size_t nforms, unsigned seed, size_t count,
			 const struct model *exclude, struct kernel *kernels);

/* Whether spec (canonical) is one of m's measurements (m may be NULL). */
int eval_model_measured(const struct model *m, const char *spec);

/* An empty set named "random", unweighted. */
void eval_set_init(struct eval_set *s);
void eval_set_done(struct eval_set *s);
size_t eval_add_predictor(struct eval_set *s, const char *name);
/* Appends a point of weight 1 with every prediction NAN; returns its index. */
size_t eval_add_point(struct eval_set *s, const char *kernel, double native_ipc);

void eval_metrics(const struct eval_set *s, size_t predictor, struct eval_metrics *out);
/* Kendall's tau-b of two series (pairs with a NAN are skipped). */
double eval_kendall_tau(const double *a, const double *b, size_t n);

/* The points that weigh most in predictor's RMS error: their indices into
 * s->points, the largest share of sum w e^2 first (n at most), with each
 * one's share of it; returns how many (only points predicted with an
 * error of more than 1e-6, not rounding, count). *over (if not NULL): the
 * share of the squared error that comes from points predicted faster than
 * they run. */
size_t eval_worst(const struct eval_set *s, size_t predictor, size_t n, size_t *idx, double *share,
		  double *over);

/* kernel,native_ipc,<predictor>_ipc...,set,weight: one line per point of
 * every set (the sets have the same predictors, in the same order). */
int eval_write_csv(const struct eval_set *const *sets, size_t nsets, const char *path);
/* Predicted (y) against native (x) IPC with the diagonal; in a weighted
 * set a point's area is proportional to its weight. */
int eval_write_svg(const struct eval_set *s, size_t predictor, const char *path);

/* perpi's cycle model (palmed/cycles.h, with m's resources and c's
 * parameters) on the loop of a generated kernel: text as eval_gen_kernel
 * writes it, its body `copies` copies of a multiset of `size`
 * instructions; *ipc per instruction of the multiset, as the native
 * figure is. dir: a scratch directory. Returns 0, or -1 with perpi_error()
 * set. (palmed/eval_code.c) */
int eval_code_ipc(const struct model *m, const struct core *c, const char *dir, const char *text,
		  unsigned copies, unsigned size, double *ipc);

/* Whether llvm-mca-19 is on the PATH. */
int eval_mca_available(void);
/* llvm-mca's IPC for the loop body of a generated kernel (asm_text as
 * bench_kernel_asm gives it). Returns 0, or -1 with perpi_error() set. */
int eval_mca_ipc(const char *asm_text, double *ipc);

#endif

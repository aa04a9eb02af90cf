/* What the parts of the mapping stage share (infer_map.c: probing and
 * reading usages; infer_map_bases.c: the kernels that saturate groups of
 * the core's resources). Not for use outside palmed/infer_map*.c. */
#ifndef PERPI_INFER_MAP_PRIVATE_H
#define PERPI_INFER_MAP_PRIVATE_H

#include "palmed/infer_map.h"
#include "palmed/kernel.h"

/* The core model as dense arrays. */
struct map_core {
	size_t n, R;	       /* core forms, resources */
	char **forms;	       /* names, owned */
	double *single;	       /* n: cycles alone */
	double **rho;	       /* R rows of n */
	unsigned char *enc;    /* n: form_encoding */
	unsigned char *banned; /* n: left out of the bases (map_base_again) */
};

/* A kernel of core forms that saturates a group of resources. */
struct map_base {
	size_t nres;
	size_t *res;   /* the group, resource indices */
	double *sigma; /* n integer multiplicities */
	double T;      /* the model's cycles: the load of every resource of the group */
	double margin; /* 1 - (heaviest load outside the group) / T */
	double cycles; /* measured; 0 when it could not be */
	/* The zero idiom the runner puts beside a probe's flag reader when the
	 * base writes flags (gen_plan.c), and its cycles per instance on this
	 * base, measured the first time a probe needs them (NULL, NAN: not
	 * yet; a NULL form with NAN: could not be measured). */
	char *helper;
	double helper_cost;
};

void map_core_init(struct map_core *c, const struct model *m);
void map_core_done(struct map_core *c);

/* The groups, then the bases of single resources not already a group of
 * one: *bases (nbases, the caller frees with map_bases_free), the first
 * *ngroups of them the groups, which partition the resources (unless
 * there would be more than o->max_probes: the grouping stops one past);
 * single_of[r] is the base saturating r alone with enough margin, or -1. */
void map_make_bases(const struct map_core *c, const struct infer_map_options *o,
		    struct map_base **bases, size_t *nbases, size_t *ngroups, long *single_of);
void map_bases_free(struct map_base *bases, size_t n);
/* Frees b's arrays and zeroes it. */
void map_base_done(struct map_base *b);
/* The base of b's group again without the core forms c->banned: 0 and
 * *out (its res and sigma the caller's); or -1 when the other forms
 * cannot saturate the group (a margin below 0.1). */
int map_base_again(const struct map_core *c, const struct infer_map_options *o,
		   const struct map_base *b, struct map_base *out);

/* A form being mapped, and what its probes have read. */
struct target {
	char *name;
	double single;
	double *upper;	       /* per resource: least upper bound read (INFINITY: none) */
	double *exact;	       /* per resource: read on a base of that resource alone (NAN) */
	unsigned char *refine; /* per group: read positive, probe its resources one by one */
	/* What every measurement of one instance ran beside (a division's
	 * dividend set, a zero idiom breaking a chain: a kernel spec), or
	 * NULL: the usages read are the form's and its helpers' together
	 * until map_helpers_subtract. */
	char *helpers;
	/* The core form it runs as (infer_map_sibling.c), or -1. */
	long sibling;
	/* An indexed memory form (CMP_M8X_GPR8): the target of its unindexed
	 * form, whose usages it takes scaled by their cycles alone (the check
	 * in mixes then refits them), or -1 (map_twins). */
	long twin;
};

/* One probe: copies x base + instances x form. */
struct probe {
	size_t target, base;
	unsigned copies, instances;
};

struct mapping {
	struct infer_meter *mt;
	struct model *m;
	const struct infer_map_options *o;
	struct infer_map_stats *stats;
	struct map_core core;
	struct map_base *bases;
	size_t nbases, ngroups;
	long *single_of;
	struct target *t;
	size_t nt;
	/* Template mode (infer_map_template.c): the single-resource bases
	 * every form is probed against, instead of the groups. */
	size_t *probed, nprobed;
	/* The most instructions a cycle a measured kernel ran (infer_fastest),
	 * 0 when the width is not used */
	double width;
};

/* The kernels and results of one list to measure. */
struct batch {
	struct kernel *ks;
	double *cycles;
	int *status;
	char **errors;
	size_t n;
};

/* Measures ks, logging every measurement in the model (with the helpers
 * that ran beside it). A kernel of forms that run with helpers is taken
 * when exactly their targets' helpers ran (status -1 otherwise). Returns
 * 0, or -1 ("interrupted") after a stop request. */
int map_measure(struct mapping *mp, const struct kernel *ks, size_t n, double *cycles, int *status,
		char **errors);
/* The same, any helpers taken: helpers[i] names them (NULL: none; the
 * caller frees them). */
int map_measure_helpers(struct mapping *mp, const struct kernel *ks, size_t n, double *cycles,
			int *status, char **errors, char **helpers);

/* infer_map_helpers.c. The helpers that the targets of k need, as a
 * kernel spec (NULL: none); the caller frees it. */
char *map_helpers_expected(const struct mapping *mp, const struct kernel *k);
/* The targets whose helpers the model does not map (a helper neither a
 * core form nor a target measured without helpers) are unmapped, saying
 * so, and left out of mp->t. */
void map_helpers_check(struct mapping *mp);
/* Each target's usages, read with its helpers, less the helpers' own
 * (the model adds usages: form + helpers loads each resource by the sum),
 * after every target is in the model. */
void map_helpers_subtract(struct mapping *mp);
/* map_measure, but a kernel timed beside more helpers than its targets
 * take alone is not refused when all the more are instances of one form:
 * extra[i] says how many, extra_form[i] (the caller frees) which; the
 * cycles are those of the kernel and those helpers together. */
int map_measure_extra(struct mapping *mp, const struct kernel *ks, size_t n, double *cycles,
		      int *status, char **errors, unsigned *extra, char **extra_form);
void map_batch_init(struct batch *b, size_t n);
void map_batch_done(struct batch *b);

/* The forms of the model at indices own[0..n) take their cycles alone on
 * no core resource: the ones whose bottlenecks turn out shared (a kernel
 * of two of them takes the sum of their cycles) get one resource
 * together, the others one each. Returns 0, or -1 when interrupted. */
int map_own_resources(struct mapping *mp, const size_t *own, size_t n);
/* The locked forms mapped (the LOCK prefix, xchg with memory), measured
 * beside one of them: those whose pair takes the sum of both alone (a
 * lock drains the memory operations before it, so two locks do not
 * overlap, whatever resources the mapping gave each) take one more
 * resource together. Returns 0, or -1 when interrupted. */
int map_locked(struct mapping *mp);
/* infer_map_strings.c: each REP form mapped timed at a second length:
 * its start and its cycles an iteration (model_set_string). Returns 0, or
 * -1 when interrupted. */
int map_strings(struct mapping *mp);
/* a instances of a form of ci cycles alone and b of one of cj, as many
 * cycles each (b from 1 to 8): the pairs of the own resources and of the
 * split. */
void map_balance(double ci, double cj, unsigned *a, unsigned *b);

/* infer_map_split.c: each core resource (but the front end's) that mapped
 * forms load fully is split where pairs of them show that they do not
 * share it. Returns 0, or -1 when interrupted. */
int map_split_shared(struct mapping *mp);
/* infer_map_sibling.c: each target measured beside up to two core forms of
 * its shape (infer_map_sibling.c) and nearly its cycles alone; the first whose
 * pair takes the sum of both becomes its sibling. Returns 0, or -1 when
 * interrupted. */
int map_siblings(struct mapping *mp);
/* Template mode: up to k single-resource bases (indices into bases) that
 * cover the core forms, into out; returns how many. */
size_t map_choose_probes(const struct mapping *mp, size_t *out, size_t k);
/* Template mode: the usages of t over the core's resources, into x. */
void map_template_usage(const struct mapping *mp, const struct target *t, const size_t *probed,
			size_t k, double *x);

/* copies x base, as a kernel (k initialised by the caller). */
void map_base_kernel(const struct map_core *c, const struct map_base *b, unsigned copies,
		     struct kernel *k);

#endif

/* What the parts of the inference share (infer.c: the measurement log,
 * the bounds and the driver; infer_isolate.c: reading a resource off a
 * kernel; infer_search.c: looking for kernels the model gets wrong). Not for
 * use outside palmed/infer*.c. */
#ifndef PERPI_INFER_PRIVATE_H
#define PERPI_INFER_PRIVATE_H

#include "palmed/infer.h"
#include "palmed/infer_meter.h"

struct measured {
	double *sigma; /* n multiplicities */
	double cycles;
	unsigned *support; /* the forms of sigma (nonzero), nsupport of them */
	unsigned nsupport;
};

struct state {
	const struct measure *ms;
	const struct infer_options *o;
	struct infer_stats *stats;
	struct model *model; /* unmapped forms and the measurement log */
	size_t n;	     /* forms that could be measured alone */
	char **forms;	     /* sorted */
	double *single;	     /* cycles of each form alone */
	size_t nmeas;
	struct measured *meas;
	size_t *slots, nslots; /* open addressing: index + 1 of a measurement, 0 free */
	size_t nres;
	double **rho;	/* nres vectors of n */
	char **satkern; /* a kernel whose bottleneck each resource is */
	unsigned long long rng;
	struct infer_meter *meter; /* measures in slices, shows progress */
};

/* Whether the caller asked the inference to stop (infer_options.stop). */
int infer_stopped(const struct state *st);
/* The progress line (what is being done), and a line that stays. */
void infer_label(const struct state *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void infer_note(const struct state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds sigma's measurement to the log (infer_log.c). */
void infer_log_measured(struct state *st, const double *sigma, double cycles);
/* Cycles of the integer kernel sigma, measured once (then from the log). */
int infer_measure(struct state *st, const double *sigma, double *cycles);
/* The same for count kernels, measured together (far faster on a real
 * machine); ok[i] says whether cycles[i] is set. perpi_error() tells the
 * last failure. */
void infer_measure_many(struct state *st, double *const *sigmas, size_t count, double *cycles,
			int *ok);
struct measured *infer_find_measured(const struct state *st, const double *sigma);
double infer_dot(const double *a, const double *b, size_t n);
/* The model's cycles (max over known resources): a lower bound of truth. */
double infer_lower_bound(const struct state *st, const double *sigma);
/* What the measurements alone guarantee: an upper bound (an LP). */
double infer_upper_bound(const struct state *st, const double *sigma);
/* No measured kernel exceeds its cycles under usage rho. */
int infer_consistent(const struct state *st, const double *rho);
/* Takes rho (malloc'd); kernel_sigma is where the resource was found. */
void infer_add_resource(struct state *st, double *rho, const double *kernel_sigma);
/* A kernel (cycles ck) slower than the model: find its bottleneck and add
 * it. Returns 1 if a resource was added. */
int infer_isolate(struct state *st, const double *kernel, double ck);
/* A pseudo-random number below bound, from the state's seed. */
unsigned infer_random(struct state *st, unsigned bound);
/* The searches of one pass; each returns the resources it added. */
unsigned infer_search_pairs(struct state *st);
unsigned infer_search_mixes(struct state *st);
/* The usages of the resources found, fitted to every measurement at once
 * (infer_refit.c). */
void infer_refit(struct state *st);

#endif

/* Palmed inference: from cycle measurements of kernels alone, find the
 * abstract resources of a CPU and each form's usage of them
 * (docs/MODEL.md tells the method and how it differs from Palmed). */
#ifndef PERPI_INFER_H
#define PERPI_INFER_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "palmed/infer_map.h"
#include "palmed/measure.h"
#include "palmed/model.h"

/* A kernel that ran slower than its forms one after another by more than
 * this share is left out of the usages' fits (infer_refit.c's over_sum). */
#define INFER_OVER_SUM 0.10

struct infer_options {
	double tol;		 /* two cycle counts within this ratio are equal */
	unsigned scale;		 /* repetitions of a kernel when isolating a resource */
	int perturb;		 /* add one of every form to that kernel (breaks ties) */
	double probe_fraction;	 /* a probed form adds about this share of cycles */
	unsigned random_kernels; /* mixes of 3-5 forms searched per pass */
	unsigned max_passes;
	unsigned attempts;	 /* kernel scales tried when isolating a resource */
	unsigned max_benchmarks; /* stop searching past this many (0: no limit) */
	unsigned seed;
	int refit;		/* fit the usages to all measurements at the end */
	int width;		/* the machine's width in the core's fit, and in the model (every
				 * form a slot of it) */
	unsigned max_resources; /* then keep the ones that explain them best (0: all) */
	unsigned train_kernels; /* random small kernels measured for that fit
				 * (perpi palmed build: 1000 + 100 per form, at
				 * most 15000) */
	int train_pairs;	/* and the pairs of integer forms (infer.c) */
	/* The core (docs/MODEL.md): the forms inferred first, by the search
	 * above; every other form given to infer_model is then mapped onto
	 * the core's resources (palmed/infer_map.h). NULL: all the forms
	 * given are inferred together, nothing is mapped. */
	const char *const *core;
	size_t ncore;
	int map_exhaustive;  /* the mapping probes every resource alone (Palmed's way) */
	int map_split;	     /* the mapping splits the core's resources that pairs of
			      * mapped forms do not share (infer_map_split.c; off by
			      * default: docs/MODEL.md) */
	int map_no_siblings; /* the mapping probes every form (no core siblings) */
	int map_no_locked;   /* the locked forms keep the resources the mapping gave
			      * each (no pairs of them: infer_map_own.c) */
	unsigned map_probes; /* probes per form before the mapping combines core forms (0: 24) */
	unsigned polish;     /* random mixes per mapped form checked beside core
			      * forms, with one beside each resource it uses
			      * (infer_polish.h; 0: no check) */
	/* Kernels a busy host disturbed throughout are measured again once it
	 * is calm, waiting at most this many seconds in all (0: the default,
	 * 10 minutes; negative: no wait, they are left out). */
	double busy_wait;
	FILE *progress; /* NULL: quiet */
	/* When *stop becomes non-zero (a signal handler sets it), the
	 * inference stops after the batch being measured (sooner when the
	 * measurer watches the same flag: bench_options.stop) and infer_model
	 * fails with "interrupted"; NULL: never. */
	const volatile sig_atomic_t *stop;
};

/* Exact measurements (simulated machines): tight tolerance, large scale. */
void infer_options_exact(struct infer_options *o);
/* Noisy measurements (real hardware): short kernels, tolerant checks. */
void infer_options_noisy(struct infer_options *o);

/* Whether form name does nothing (NOP of any operands, ENDBR): a Zen 4
 * fuses it to the instruction before, beyond the width. */
int infer_form_idle(const char *name);
/* Whether form name is left out of the width's fastest kernels: a string
 * form (one instruction of many operations), one that does nothing
 * (infer_form_idle), or a name that does not parse. */
int infer_form_widthless(const char *name);
/* The most instructions a cycle any kernel m measured ran (those with a
 * string form or a form that does nothing left out), and that kernel into
 * *at (may be NULL); 0 when none. */
double infer_fastest(const struct model *m, const char **at);
/* One short measured kernel, for the width (infer_add_width): the
 * model's cycles without the width, its instructions, its cycles. */
struct infer_width_point {
	double load, n, cycles;
};
/* The width W in [least, most] (steps of 1% of most) whose prediction
 * max(load, n / W) has the least mean relative error over pts; the widest
 * of equals. */
double infer_fit_width(const struct infer_width_point *pts, size_t np, double least, double most);
/* Adds the machine's width to m (built, its measurements loaded): a
 * resource of which every form takes a slot (infer.c says which W and
 * what slot a form that does nothing takes). */
void infer_add_width(struct model *m);

struct infer_stats {
	unsigned benchmarks;	    /* kernels measured (each distinct kernel once) */
	unsigned singles;	    /* forms measured alone */
	unsigned candidates;	    /* kernels checked against the model */
	unsigned certified;	    /* of those, settled without measuring */
	unsigned discoveries;	    /* resources found */
	unsigned failed;	    /* kernels where no resource could be isolated */
	unsigned trained;	    /* random kernels measured for the final fit */
	int budget_exhausted;	    /* the search stopped at max_benchmarks */
	struct infer_map_stats map; /* the mapping stage */
};

/* Builds a model of forms (names, any order) from m: the core's forms by
 * the search, the others (if o->core is set) by the mapping stage. Forms
 * that cannot be measured alone go to the model's unmapped list with the
 * reason. Returns 0 with *out set (the caller deletes it), or -1 with
 * perpi_error() set. */
int infer_model(const struct measure *m, const char *const *forms, size_t nforms,
		const struct infer_options *o, struct model **out, struct infer_stats *stats);

/* The forms `perpi palmed build` models when given none (infer_forms.c). */
extern const char *const infer_default_forms[];
extern const size_t infer_default_nforms;

#endif

/* A Palmed resource model: abstract resources, each serving 1 unit per
 * cycle, and for each mapped form its usage rho(form, resource). A kernel K
 * with multiplicities sigma takes cycles(K) = max_r sum_i sigma(i) rho(i,r)
 * per iteration (the conjunctive model of DESIGN.md). The model also keeps
 * the forms it could not map (with the reason) and the measurements it was
 * inferred from, so it can be audited. Saved as versioned JSON
 * (docs/MODEL.md). */
#ifndef PERPI_MODEL_H
#define PERPI_MODEL_H

#include <stddef.h>
#include <stdio.h>

#include "palmed/kernel.h"

#define MODEL_FORMAT "perpi-palmed-model"
#define MODEL_VERSION 2 /* 1: measurements inline (still read) */

struct model_resource {
	char *name;   /* "R0", "R1"... */
	char *kernel; /* a kernel it is the bottleneck of (found there), or NULL */
};

struct model_unmapped {
	char *form, *reason;
};

struct model_measurement {
	char *kernel;  /* canonical spec */
	double cycles; /* per iteration */
};

/* A REP string instruction timed at two lengths: one execution of n
 * iterations takes start + n iteration cycles. Its cycles alone in the
 * model's forms are an iteration's at the runner's length (a lone form:
 * 256 iterations a loop turn, the start spread over them): a 64 KiB
 * memset is not 65,536 of those, nor 8 bytes 8 of them. */
struct model_string {
	char *form;
	double start, iteration;
};

/* Owns everything it points to; model_new / model_delete. */
struct model {
	char *cpu; /* identity of the CPU the measurements come from */
	size_t nforms, capforms;
	char **forms;	     /* sorted by name once built (model_sort) */
	double *form_cycles; /* measured cycles of the form alone (1 / IPC) */
	int sorted;	     /* forms are in strcmp order: model_form_index bisects */
	size_t nres, capres;
	struct model_resource *res;
	double *rho; /* capforms rows of capres: model_rho(), model_set_rho() */
	size_t nunmapped;
	struct model_unmapped *unmapped;
	size_t nmeas, capmeas;
	struct model_measurement *meas; /* loaded by model_load_measurements */
	char *meas_path;		/* the file of the measurements, or NULL (inline) */
	size_t meas_count;		/* how many that file holds */
	int meas_sorted;		/* meas in strcmp order of kernel: model_measured bisects */
	unsigned benchmarks;		/* kernels measured to build it */
	size_t nstrings;
	struct model_string *strings; /* REP forms timed at two lengths */
	/* Cycles a store to another cache line than the store before costs
	 * beyond its share of the stores, where a kernel's stores go to other
	 * lines in turn (form_stores_in_turn); 0: none (model_store_turn). */
	double store_turn;
	/* The same where read-modify-writes are beside no more other stores
	 * than themselves, when more than store_turn (the Zen 5 runs `ADD_M64
	 * MOV_M64` so, and a store beside a push to its resources' speed);
	 * 0: store_turn there too. */
	double rmw_turn;
	/* Further cores (`perpi palmed build --cores N`): models of their own
	 * of the same forms, each mapped onto another core, from another seed
	 * of its search (docs/MODEL.md, "Several cores"). model_predict gives
	 * the mean of their cycles and this model's; everything else (the
	 * resources, the bottleneck, the cycle predictor) is this model's.
	 * Owned; their forms, cpu and measurements are not used. */
	size_t ncores;
	struct model **cores;
};

struct prediction {
	double cycles;		 /* per iteration, covered forms only */
	double ipc;		 /* covered instructions / cycles */
	size_t nbottlenecks;	 /* resources within 0.1% of the maximum load */
	size_t *bottlenecks;	 /* resource indices, owned */
	unsigned covered, total; /* instructions per iteration */
	int store_turn;		 /* cycles set by the stores to other lines in turn
				  * (model.store_turn), past every resource: no
				  * bottleneck listed */
	size_t nuncovered;
	char **uncovered; /* forms the model does not map, owned */
	/* The cycles of each core whose mean is cycles (model.cores): this
	 * model's first, then each further core that maps every covered form;
	 * owned. For a model of one core ncore_cycles is 1 and core_cycles
	 * NULL. */
	size_t ncore_cycles;
	double *core_cycles;
};

/* The resource every form uses one slot of (infer_add_width): the
 * machine's width, the most instructions a cycle it was measured to run. */
#define MODEL_WIDTH "width"

struct model *model_new(const char *cpu);
void model_delete(struct model *m);

/* Builders used by the inference and the loader. Forms may come in any
 * order; model_sort then puts them (with their usages) in name order, which
 * makes model_form_index a bisection. */
size_t model_add_form(struct model *m, const char *form, double cycles);
size_t model_add_resource(struct model *m, const char *name, const char *kernel);
void model_set_rho(struct model *m, size_t form, size_t res, double rho);
double model_rho(const struct model *m, size_t form, size_t res);
void model_sort(struct model *m);
void model_add_unmapped(struct model *m, const char *form, const char *reason);
/* form is no longer unmapped (a later stage mapped it). */
void model_forget_unmapped(struct model *m, const char *form);
void model_add_measurement(struct model *m, const char *kernel, double cycles);
/* The same for kernel k as it ran beside helpers (a kernel spec, or NULL). */
void model_add_run(struct model *m, const struct kernel *k, const char *helpers, double cycles);
/* Adds a further core's model to m (m owns it). */
void model_add_core(struct model *m, struct model *core);
/* Sets (or replaces) form's timing at two lengths. */
void model_set_string(struct model *m, const char *form, double start, double iteration);
/* The factor on form i's usages in one execution of n iterations (per
 * iteration: start / n + iteration over its cycles alone); 1 when the
 * model has no timing of it at two lengths. */
double model_string_scale(const struct model *m, size_t i, double n);
/* Index of form, or -1. */
long model_form_index(const struct model *m, const char *form);
/* The form that predicts form: itself, or for a form with indexed memory
 * operands (CMP_M8X_GPR8) that the model does not map, its unindexed form
 * (CMP_M8_GPR8: a model built before the split, or on a CPU that runs
 * both alike). Index, or -1. */
long model_form_lookup(const struct model *m, const char *form);
/* Whether resource r is the front end's, as the cycle model takes it: a
 * NOP binds it alone (95% of its cycles or more; a NOP executes nowhere,
 * so what binds it is decode, rename, dispatch or retirement). 0 when m
 * has no NOP. */
int model_front_end(const struct model *m, size_t r);
/* Whether a NOP loads r for half its cycles alone or more: the resources
 * the mapping's split leaves alone (every form shares them). */
int model_nop_loads(const struct model *m, size_t r);
/* A NOP's usage of r when r is the front end's, else -1. */
double model_front_slot(const struct model *m, size_t r);
/* rho(i, r), except on a front-end resource that does not bind form i
 * alone (its usage under 95% of the form's cycles): there at most a NOP's
 * usage, one dispatch slot. The mapping's LP fixes those usages on mixes
 * of the form with a saturating kernel (six ALU operations and the form),
 * where the CPU slows beyond any additive model; in a balanced mix they
 * are far too high (docs/CYCLES.md, "The front end's share"). */
double model_rho_slot(const struct model *m, size_t i, size_t r);
/* Why form is unmapped, or NULL if the model never saw it. */
const char *model_unmapped_reason(const struct model *m, const char *form);

/* Predicts k: max over resources of the usages, every usage whole (the
 * front-end slot of model_rho_slot is the cycle predictor's: on the Zen 3
 * it made real code's stores and pushes, which share the front end's
 * resource there, look free beside each other: docs/MODEL.md, "The
 * model"). Forms the model does not map are listed in
 * out->uncovered and left out of the cycles. Returns 0, and the caller owns what out points to
 * (prediction_done frees it); or -1 with perpi_error() set when k is empty
 * or no instruction of it is covered, and out owns nothing (zeroed: there
 * is nothing to free, and prediction_done on it does nothing). A model of
 * several cores predicts the mean of their cycles (model.cores); the
 * bottleneck is this model's. */
int model_predict(const struct model *m, const struct kernel *k, struct prediction *out);
/* The same, term t's usages multiplied by scale[t] (scale NULL: by 1): a
 * REP string instruction's iterations in one execution
 * (model_string_scale). */
int model_predict_scaled(const struct model *m, const struct kernel *k, const double *scale,
			 struct prediction *out);
void prediction_done(struct prediction *p);

/* The JSON file of docs/MODEL.md, and beside it PATH.measurements (every
 * kernel measured, one "cycles<TAB>kernel" line each: a catalogue model
 * holds some 10^5, which every report would otherwise parse). Returns 0,
 * or -1 with perpi_error(). */
int model_save(const struct model *m, const char *path);
/* Loads and validates a model (not its measurements); a corrupt or
 * unknown-version file is an error naming the file and what is wrong. */
int model_load(const char *path, struct model **out);
/* Reads the measurements of a model loaded from a file (a no-op when they
 * are there already). Returns 0, or -1 with perpi_error(). */
int model_load_measurements(struct model *m);
/* Whether kernel spec (canonical) is one of m's measurements (m may be
 * NULL): a bisection once they are sorted (model_load_measurements sorts
 * them), else a scan. */
int model_measured(const struct model *m, const char *spec);
void model_sort_measurements(struct model *m);

/* "AuthenticAMD family 25 model 17 stepping 1: AMD EPYC 9R14 ..." from
 * /proc/cpuinfo; the caller frees it. */
char *model_host_cpu(void);
/* Warns (perpi_warn) when m was built on another CPU than this one and
 * returns 1; returns 0 when they match. */
int model_check_cpu(const struct model *m);

#endif

/* $XDG_DATA_HOME/perpi/model.json, else ~/.local/share/perpi/model.json;
 * the caller frees it. */
char *model_default_path(void);

/* The table of `perpi palmed show`: resources and the forms using each,
 * forms and their usage, classes of forms that behave alike, unmapped
 * forms and why. */
void model_show(const struct model *m, FILE *out);
/* The bipartite form/resource graph in Graphviz dot. */
void model_write_dot(const struct model *m, FILE *out);

/* Loads path (NULL: model_default_path()) for predicting on this machine:
 * a missing default model says how to build one; a model of another CPU
 * is loaded with a warning (model_check_cpu). */
int model_load_for_use(const char *path, struct model **out);

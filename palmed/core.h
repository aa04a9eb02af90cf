/* The parameters of an out-of-order core that the cycle model
 * (palmed/cycles.h) needs beyond a Palmed model: the dispatch and retire
 * widths, the reorder window, load-to-use and store-forwarding latencies,
 * the branch misprediction penalty, the front end's cost of a taken branch,
 * the L1 data cache's geometry, and the latency of each instruction form
 * (Pipedream latency chains, `perpi bench --latency`).
 *
 * Each parameter comes from a documented per-CPU table (core_table) and is
 * checked, and overridden, by a measurement on the running CPU
 * (palmed/core_measure.h). The result is kept in a versioned JSON file, the
 * core file (docs/CYCLES.md), by default $XDG_DATA_HOME/perpi/core.json.
 *
 * Ownership: core_new / core_load allocate, core_delete frees. */
#ifndef PERPI_CORE_H
#define PERPI_CORE_H

#include <stddef.h>

#define CORE_FORMAT "perpi-core"
#define CORE_VERSION 1

enum core_param {
	CORE_WIDTH,		  /* instructions dispatched per cycle */
	CORE_RETIRE_WIDTH,	  /* instructions retired per cycle */
	CORE_WINDOW,		  /* reorder buffer: instructions in flight */
	CORE_LOAD_LATENCY,	  /* load to use into a GPR, L1 hit */
	CORE_LOAD_LATENCY_VEC,	  /* load to use into a vector register, L1 hit */
	CORE_FORWARD_LATENCY,	  /* store data ready -> dependent GPR load's result */
	CORE_FORWARD_LATENCY_VEC, /* the same into a vector register */
	CORE_RENAMED_LATENCY,	  /* the same when the load repeats the store's address
				   * expression (memory renaming) */
	CORE_MISPREDICT,	  /* mispredicted branch executed -> next dispatch */
	CORE_TAKEN_BRANCH,	  /* a taken branch's dispatch -> the target's dispatch */
	CORE_FP_BYPASS,		  /* more cycles for a fast FP op (latency < 2.5) whose
				   * operand comes from a slower one */
	CORE_STORE_LINE,	  /* cycles per store to another cache line than the
				   * store before it */
	CORE_CMOV_SIGNED,	  /* more cycles from the flags to a cmovcc on a signed
				   * comparison (l, ge, le, g: SF, OF and ZF) */
	CORE_CMOV_UNSIGNED,	  /* the same for a/be (CF and ZF) */
	CORE_STREAM_STORE,	  /* bytes a cycle rep stosb writes past L1 (to a
				   * buffer L2 holds); 0: unknown, the model's rate */
	CORE_STREAM_COPY,	  /* bytes a cycle rep movsb copies past L1 */
	CORE_L1_SIZE,		  /* L1 data cache bytes */
	CORE_L1_WAYS,
	CORE_L1_LINE,
	CORE_PARAM_COUNT
};

struct core_param_info {
	const char *name; /* the key in the core file, e.g. "dispatch_width" */
	const char *unit; /* "insns/cycle", "cycles", "entries", "bytes", "ways" */
	const char *what; /* one line for `perpi core` */
};
extern const struct core_param_info core_param_info[CORE_PARAM_COUNT];

/* Where a parameter's value comes from. */
enum core_source { CORE_SOURCE_DEFAULT, CORE_SOURCE_TABLE, CORE_SOURCE_MEASURED };
extern const char *const core_source_name[3]; /* "default", "table", "measured" */

struct core {
	char *cpu;   /* the CPU the values describe (model_host_cpu's form) */
	char *table; /* the table entry used ("AMD Zen 5"), or NULL */
	double value[CORE_PARAM_COUNT];
	double table_value[CORE_PARAM_COUNT]; /* the documented value, 0: none */
	unsigned char source[CORE_PARAM_COUNT];
	/* form latencies in cycles, sorted by form name */
	size_t nlat, lat_cap;
	char **lat_form;
	double *lat;
	/* forms whose latency could not be measured, and why */
	size_t nnolat, nolat_cap;
	char **nolat_form, **nolat_reason;
};

/* A core for cpu (NULL: this machine) with the table's values where it has
 * an entry for that CPU, generic defaults elsewhere. */
struct core *core_new(const char *cpu);
void core_delete(struct core *c);

/* The documented table entry matching cpu ("AuthenticAMD family 26 model 2
 * ..."), or NULL; *values gets its values (0 where the entry is silent). */
const char *core_table(const char *cpu, double values[CORE_PARAM_COUNT]);

/* Sets a measured value. */
void core_set_measured(struct core *c, enum core_param p, double value);

/* Latencies: set (replacing), look up (0 found, -1 not known), and record
 * a form that has none, with the reason. */
void core_set_latency(struct core *c, const char *form, double cycles);
int core_latency(const struct core *c, const char *form, double *cycles);
void core_set_no_latency(struct core *c, const char *form, const char *reason);
/* Why form has no latency, or NULL. */
const char *core_no_latency(const struct core *c, const char *form);

/* The core file. Returns 0, or -1 with perpi_error() naming the file and
 * the field at fault. */
int core_save(const struct core *c, const char *path);
int core_load(const char *path, struct core **out);
/* $XDG_DATA_HOME/perpi/core.json, else ~/.local/share/perpi/core.json;
 * the caller frees it. */
char *core_default_path(void);
/* Warns when c describes another CPU than this one; returns 1 then. */
int core_check_cpu(const struct core *c);

#endif

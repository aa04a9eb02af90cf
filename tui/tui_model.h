/* The TUI's data model: everything the screens show, computed once from a
 * stream of events fed through the engine (ilp/engine.h) with an observer.
 * No curses here, so tests build a model from hand-made events.
 *
 * Per dynamic instruction the model keeps its static instruction, its step
 * and its producers (the data-flow graph); from these it derives the
 * per-step class histogram, the critical path and, per function, the steps
 * of each call instance analysed in isolation. Memory: about 16 bytes per
 * instruction plus 4 per producer, so 10^7 instructions need ~300 MiB.
 *
 * Ownership: model_new allocates, model_delete frees. The static
 * instructions (struct perpi_insn) belong to the event producer and must
 * stay valid as long as the model (both the live tracer's cache and the
 * trace reader guarantee it for the whole analysis). */
#ifndef PERPI_TUI_MODEL_H
#define PERPI_TUI_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "ilp/engine.h"
#include "tracer/event.h"

#define TUI_NONE UINT32_MAX
#define TUI_DEP_MEMORY 255 /* an edge carrying memory bytes, not a unit */

/* Names and source lines come from whoever produced the events (ELF
 * symbols live, the static instruction table in replay). Either may be
 * NULL: functions are then named 0xADDR and lines are unknown. */
struct tui_symbols {
	/* The code at addr: "f" at a function's entry, "f+0x1c" inside it,
	 * "f@libc.so.6" in a library; NULL when unknown. The string may be
	 * overwritten by the next call (the model copies what it keeps). */
	const char *(*function)(void *ctx, uint64_t addr);
	/* Source file and line of an address; returns 0 when known. */
	int (*line)(void *ctx, uint64_t addr, const char **file, unsigned *line);
	void *ctx;
};

struct tui_function {
	char *name;     /* owned */
	uint64_t entry;
	uint64_t insns; /* I_f, from the engine */
	uint64_t steps; /* C_f, from the engine */
	uint64_t calls;
	double ilp;     /* I_f / C_f, 0 when C_f is 0 */
	uint32_t first_call; /* index into the model's call instances, TUI_NONE if none */
};

/* One call instance: dynamic instructions [first, last] (callees included). */
struct tui_call {
	uint32_t first, last;
	uint32_t function; /* index into tui_model_functions() */
	uint32_t next;     /* next instance of the same function, TUI_NONE at the end */
};

/* One dynamic instruction as the screens see it. */
struct tui_insn {
	uint32_t insn;     /* static instruction id, see tui_model_static() */
	uint32_t step;     /* whole-run step c; 0 for an instruction not counted */
	uint32_t critical; /* producer at the highest step (c-1 on a chain), TUI_NONE if none */
	uint32_t deps;     /* first producer in the model's producer array */
};

/* Instructions per class over a range of steps [from, to]. */
struct tui_bin {
	uint64_t first_step, last_step;
	uint64_t count[CLASS_COUNT];
	uint64_t total;
};

/* One source line (or, without line information, one static instruction)
 * and how many critical-path instructions it holds. */
struct tui_line {
	const char *file; /* NULL when unknown */
	unsigned line;
	uint64_t addr;    /* lowest address of its instructions on the path */
	uint64_t count;   /* critical-path instructions on this line */
};

struct tui_model;

struct tui_model *tui_model_new(const struct engine_options *opt, const struct tui_symbols *sym);
void tui_model_delete(struct tui_model *model);

/* A perpi_event_fn: feed every event of the run, in order. */
int tui_model_event(void *model, const struct perpi_event *ev);

/* Close the run and compute the summaries (histogram order, critical path,
 * functions, call instances). Returns -1 with perpi_error() set on failure
 * (more than 2^32-2 instructions). Call once, after the last event. */
int tui_model_finish(struct tui_model *model);

void tui_model_totals(const struct tui_model *model, struct engine_totals *out);

size_t tui_model_functions(const struct tui_model *model, const struct tui_function **out);
const struct tui_call *tui_model_call(const struct tui_model *model, uint32_t index);

/* Dynamic instructions 0..n-1 that the engine gave a step. */
size_t tui_model_insn_count(const struct tui_model *model);
const struct tui_insn *tui_model_insn(const struct tui_model *model, uint32_t index);
const struct perpi_insn *tui_model_static(const struct tui_model *model, uint32_t id);
size_t tui_model_producers(const struct tui_model *model, uint32_t index, const uint32_t **out);

/* What the k-th producer's edge carries: an enum perpi_unit, or
 * TUI_DEP_MEMORY (one edge per producer: the first thing it carries). */
unsigned tui_model_producer_unit(const struct tui_model *model, uint32_t index, size_t k);

/* Instructions at step s, in program order: *out[0..n). */
size_t tui_model_at_step(const struct tui_model *model, uint64_t step, const uint32_t **out);

/* Sum instructions by class over steps [from, to] (whole run). */
void tui_model_bin(const struct tui_model *model, uint64_t from, uint64_t to, struct tui_bin *out);

/* Instructions by step and class, ordered so that any bin of steps costs
 * one scan of its instructions' classes. */
struct tui_histogram {
	uint64_t steps;       /* C: the highest step */
	uint64_t insns;       /* instructions placed (step_start[steps + 1]) */
	uint32_t *step_start; /* [steps + 2]: where step s's classes start in klass */
	uint8_t *klass;       /* enum perpi_class, ordered by step */
};

/* The whole run's (owned by the model). */
const struct tui_histogram *tui_model_histogram(const struct tui_model *model);

/* A function's (all its call instances, or one call when call != TUI_NONE),
 * each instance analysed in isolation (DESIGN.md), overlaid step by step.
 * Costs a pass over the calls' instructions; tui_histogram_delete frees it. */
struct tui_histogram *tui_model_function_histogram(const struct tui_model *model,
						  uint32_t function, uint32_t call);
void tui_histogram_delete(struct tui_histogram *histogram);

/* The same, kept by the model: computed on first use, then returned again
 * (a function with one call shares it with that call). tui_model_finish
 * computes those of the largest functions beforehand (see
 * TUI_PRECOMPUTE_INSNS), so that opening them costs no pass. */
const struct tui_histogram *tui_model_cached_histogram(struct tui_model *model, uint32_t function,
						       uint32_t call);
/* Functions whose calls hold at least this many instructions get their
 * histogram at load, largest first, within twice the run's instructions. */
#define TUI_PRECOMPUTE_INSNS (1u << 19)

/* Sum instructions by class over steps [from, to]. */
void tui_histogram_bin(const struct tui_histogram *histogram, uint64_t from, uint64_t to,
		       struct tui_bin *out);

/* Steps of dynamic instructions [first, last] analysed in isolation
 * (values produced before first are ready at step 0): step[i - first] for
 * each i; returns the highest, the range's C. */
uint64_t tui_model_isolated_steps(const struct tui_model *model, uint32_t first, uint32_t last,
			      uint32_t *step);

/* The critical path, from step 1 to step C: *out[0..n) dynamic indices. */
size_t tui_model_critical_path(const struct tui_model *model, const uint32_t **out);

/* Source lines holding critical-path instructions, most first. */
size_t tui_model_critical_lines(const struct tui_model *model, const struct tui_line **out);

/* Producers-to-consumers: dynamic instructions reading what index wrote,
 * among those at steps up to max_step. Returns a malloc'd array. */
size_t tui_model_consumers(const struct tui_model *model, uint32_t index, uint64_t max_step,
		       uint32_t **out);

const struct tui_symbols *tui_model_symbols(const struct tui_model *model);
const char *tui_model_class_name(unsigned klass);

#endif

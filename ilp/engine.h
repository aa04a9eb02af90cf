/* The ideal-machine dependency engine (DESIGN.md, "The ideal machine"),
 * with per-function isolated call instances and the constrained variants.
 * It consumes perpi_events and knows nothing of ptrace. */
#ifndef PERPI_ENGINE_H
#define PERPI_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "tracer/event.h"

struct engine_options {
	unsigned window;       /* instruction window W; 0 = unlimited */
	unsigned width;        /* issue width N per step; 0 = unlimited */
	int stack_engine;      /* implicit RSP updates of push/pop/call/ret are free */
	unsigned class_mask;   /* bit per enum perpi_class that counts; 0 = all (--only) */
	/* Latency in steps of each counted instruction (--latency), or NULL for
	 * 1 everywhere: an instruction issues at the first step its sources,
	 * the window and the width allow, its results are ready latency - 1
	 * steps later, and that is its step. 0 counts as 1. */
	unsigned (*latency)(void *ctx, const struct perpi_insn *insn);
	void *latency_ctx;
};

struct engine_totals {
	uint64_t insns;                    /* I */
	uint64_t steps;                    /* C */
	uint64_t class_insns[CLASS_COUNT]; /* counted instructions by class */
	uint64_t unknown;                  /* undecodable instructions seen */
	uint64_t syscalls;                 /* not counted in I */
};

/* A function's figures over the run: the sum of its isolated instances. */
struct engine_function {
	uint64_t entry; /* callee's first instruction address */
	uint64_t insns; /* I_f = sum of instances' I */
	uint64_t steps; /* C_f = sum of instances' C */
	uint64_t calls; /* number of instances (open ones closed at the end) */
};

struct engine;

struct engine *engine_new(const struct engine_options *opt); /* opt may be NULL */
void engine_delete(struct engine *engine);

/* Feed one event; a perpi_event_fn, so it can be the tracer's sink. */
int engine_event(void *engine, const struct perpi_event *ev);

/* Close open call instances (a program that exits from inside a call). */
void engine_finish(struct engine *engine);

void engine_totals(const struct engine *engine, struct engine_totals *out);

/* The functions seen, in no particular order; owned by the engine. */
size_t engine_functions(const struct engine *engine, const struct engine_function **out);

/* Observers (histogram, data-flow graph, critical path, trace views) see
 * every counted event with the step the engine gave it and, when asked,
 * the producer of each source: an edge of the data-flow graph. */
enum engine_dep_kind { DEP_UNIT, DEP_MEMORY };
struct engine_dep {
	uint64_t producer; /* dynamic index of the last writer in the analysed region */
	uint64_t what;     /* the unit (DEP_UNIT) or the first byte's address (DEP_MEMORY) */
	uint8_t kind;      /* enum engine_dep_kind */
	uint8_t size;      /* bytes carried, for DEP_MEMORY */
};
struct engine_step_info {
	uint64_t index;                 /* dynamic index of this instruction, from 0 */
	uint64_t step;                  /* its step c (0 for an event not counted) */
	const struct perpi_event *ev;
	size_t n_deps;                  /* 0 unless the observer wants dependencies */
	const struct engine_dep *deps;  /* valid during the call only */
};
typedef void (*engine_observer_fn)(void *ctx, const struct engine_step_info *info);

/* At most a few observers; want_deps makes the engine track producers. */
void engine_add_observer(struct engine *engine, engine_observer_fn fn, void *ctx, int want_deps);

#endif

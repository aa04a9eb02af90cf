/* Cycles predicted from a trace (DESIGN.md, "Real cycles"): every dynamic
 * instruction of a run replayed, in program order, through a model of an
 * out-of-order core:
 *
 * - dispatch in order, at most core's dispatch width per cycle, not before
 *   the instruction `window` places earlier has retired, nor before the
 *   front end has come back from a mispredicted branch (its execution +
 *   the misprediction penalty) or from a taken branch (+ taken_branch);
 * - issue when its sources are ready (the event's exact registers, flags
 *   and memory bytes) and its Palmed resources have room: each resource
 *   serves 1 per cycle, the instruction takes rho(form, r) of each; an
 *   older instruction books first, a younger one may take an earlier cycle
 *   that is still free (out of order);
 * - complete after its form's latency (Pipedream's latency chains). A load
 *   issues when its address registers are ready; its data comes from L1
 *   (load-to-use latency) or, when a store still in flight wrote those
 *   bytes, from that store (forwarding latency after the store's data is
 *   ready; the renamed latency when the load repeats the store's address
 *   expression); the form's latency then runs from the data;
 * - retire in order, at most retire_width per cycle.
 *
 * Conditional branches are predicted by a simulated TAGE predictor,
 * indirect ones by a target cache, returns by a return stack. A simulated
 * L1 data cache over the trace's addresses counts misses; the prediction
 * assumes hits, and a region whose miss rate is above CYCLES_L1_FLAG is
 * flagged (cycles_flagged) instead of trusted. Push, pop, call and ret
 * update RSP in the front end (a stack engine): their RSP is always ready.
 *
 * A function's cycles add up its call instances, each from the retirement
 * of the instruction before its first one to the retirement of its ret
 * (what a timer around the call sees), callees included; instances follow
 * the engine's frame rules (ilp/engine.c). */
#ifndef PERPI_CYCLES_H
#define PERPI_CYCLES_H

#include <stddef.h>
#include <stdint.h>

#include "palmed/core.h"
#include "palmed/model.h"
#include "tracer/event.h"

#define CYCLES_L1_FLAG 0.15 /* miss rate above which a prediction is flagged */

struct cycles_figures {
	double cycles;	      /* predicted cycles */
	double min_call;      /* a function's cheapest instance; the run: = cycles */
	uint64_t calls;	      /* instances (the run: 1) */
	uint64_t insns;	      /* counted dynamic instructions */
	uint64_t mapped;      /* of those, whose form the Palmed model maps */
	uint64_t timed;	      /* of those, with a measured latency (or a plain load) */
	uint64_t branches;    /* conditional, indirect and return branches predicted */
	uint64_t mispredicts; /* of those, mispredicted */
	uint64_t l1_accesses; /* cache lines accessed by loads and stores */
	uint64_t l1_misses;   /* of those, missed (see cycles_l1.c on the cold start) */
};

/* misses / accesses (0 without accesses), and whether it is above the flag. */
double cycles_l1_miss_rate(const struct cycles_figures *f);
int cycles_flagged(const struct cycles_figures *f);

/* The times the model gave one instruction, for tests and debugging. */
struct cycles_insn_times {
	uint64_t index; /* counted instructions before it */
	const struct perpi_event *ev;
	double dispatch, issue, complete, retire;
	int mispredicted; /* the branch before it was mispredicted */
};
typedef void (*cycles_observer_fn)(void *ctx, const struct cycles_insn_times *t);

struct cycles;

/* m may be NULL (no resource limits: latencies, widths and the window
 * only). m and c must outlive the result. */
struct cycles *cycles_new(const struct model *m, const struct core *c);
void cycles_delete(struct cycles *cy);
void cycles_set_observer(struct cycles *cy, cycles_observer_fn fn, void *ctx);

/* The front end's resources of m (model_front_end) into front[0 ..
 * m->nres): the cycle model takes them in order at dispatch, not when an
 * instruction issues. Returns how many. */
size_t cycles_front_resources(const struct model *m, unsigned char *front);

/* Feed one event (a perpi_event_fn); returns 0. */
int cycles_event(void *cycles, const struct perpi_event *ev);
/* Close the instances still open; call once after the last event. */
void cycles_finish(struct cycles *cy);

void cycles_total(const struct cycles *cy, struct cycles_figures *out);
/* The function entered at entry: 0, or -1 (zeros) when it never ran. */
int cycles_function(const struct cycles *cy, uint64_t entry, struct cycles_figures *out);
/* The cycles of each of its first instances (at most 1024), in order;
 * *out is the model's. */
size_t cycles_function_instances(const struct cycles *cy, uint64_t entry, const double **out);

#endif

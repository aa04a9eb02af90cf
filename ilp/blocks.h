/* Basic blocks of a traced run, from the event stream (DESIGN.md, "Using
 * a model": lifting to a whole run needs the blocks and their exact
 * occurrence counts).
 *
 * A block starts at an instruction that was, at least once, reached other
 * than by falling through (a jump, call or return target, the first traced
 * instruction, a signal handler's entry, the instruction a signal handler
 * returned to) or that follows a control-flow instruction; it ends at a
 * control-flow instruction (insn->control != CTRL_NONE) or before the next
 * block's first instruction. Block boundaries are static: a jump into the
 * middle of a straight run splits it for every occurrence.
 *
 * A block's occurrences are the times its first instruction started; the
 * repeated iterations of a REP-prefixed string instruction are one start.
 *
 * Each block execution is also attributed to every call instance open on
 * the call stack, by the engine's frame rules (ilp/engine.c): a frame
 * opens on the event after a CTRL_CALL, on EVENT_SIGNAL_ENTRY and on
 * EVENT_CALL_ENTRY, closes with the ret at its entry stack pointer, and is
 * unwound when the stack pointer rises above it. A function's figures are,
 * like the engine's I_f, the sum over its instances, callees included. */
#ifndef PERPI_BLOCKS_H
#define PERPI_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "tracer/event.h"

struct block {
	uint64_t addr;			 /* first instruction */
	size_t n;			 /* static instructions */
	const struct perpi_insn **insns; /* in address order; the events' (borrowed) */
	uint64_t *events;		 /* per instruction: counted dynamic instructions */
	uint64_t occurrences;		 /* starts of the first instruction */
	uint64_t insns_executed;	 /* sum of events: the block's share of I */
	uint64_t steps; /* after the ILP pass: sum over occurrences of their steps */
};

/* A function's share of one block: its executions inside the function's
 * instances (callees included). */
struct block_share {
	size_t block; /* index into blocks_list() */
	uint64_t occurrences;
	uint64_t *events; /* per instruction of the block, like block.events */
};

struct blocks_function {
	uint64_t entry; /* callee's first instruction address */
	uint64_t calls; /* instances, as the engine counts them */
	uint64_t insns; /* counted dynamic instructions: equals the engine's I_f */
	size_t n;
	struct block_share *shares; /* sorted by block index */
};

struct blocks;

struct blocks *blocks_new(void);
void blocks_delete(struct blocks *b);

/* Feed one event (a perpi_event_fn). The insn pointers must stay valid
 * until blocks_delete (they do for the tracer's cache and a trace reader). */
int blocks_event(void *blocks, const struct perpi_event *ev);

/* Closes the open instances and builds the blocks; call once, after the
 * last event. */
void blocks_finish(struct blocks *b);

/* After blocks_finish: the blocks, by address, and the functions, by
 * entry address. Owned by b. */
size_t blocks_list(const struct blocks *b, const struct block **out);
size_t blocks_functions(const struct blocks *b, const struct blocks_function **out);
/* The function entered at entry, or NULL. */
const struct blocks_function *blocks_function(const struct blocks *b, uint64_t entry);
/* Counted dynamic instructions of the whole run. */
uint64_t blocks_insns(const struct blocks *b);

/* The ILP of the blocks, in a second pass over the same events (after
 * blocks_finish): each occurrence runs on the ideal machine in isolation
 * (what was written before it began is ready at step 0; DESIGN.md's
 * rules, no window, width or --only), and block.steps adds up the
 * occurrences' last steps, so a block's ILP = insns_executed / steps. */
int blocks_ilp_event(void *blocks, const struct perpi_event *ev);
void blocks_ilp_finish(struct blocks *b);

#endif

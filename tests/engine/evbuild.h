/* Building synthetic events for the engine's unit tests: a spec names the
 * units and memory bytes one instruction reads and writes, and a simulated
 * stack pointer follows calls and returns. */
#ifndef PERPI_TEST_EVBUILD_H
#define PERPI_TEST_EVBUILD_H

#include <stdint.h>

#include "ilp/engine.h"

/* src, dst: space-separated units: rax..r15, vN.P (vector N part P), kN,
 * cf pf af zf sf of df. mem: "r:ADDR:SIZE w:ADDR:SIZE ..." (hex addresses).
 * Zero fields take defaults: addr a fresh address, sp the simulated RSP,
 * klass CLASS_INT, text "op". */
struct evspec {
	const char *text, *src, *dst, *mem;
	uint64_t addr, sp;
	int ctrl, klass, flags;
};

extern uint64_t ev_sp; /* the simulated RSP, 0x7ff0000 at start */

/* Feed one event; returns engine_event's result. */
int ev_feed(struct engine *e, struct evspec s);
#define EV(e, ...) ev_feed((e), (struct evspec){__VA_ARGS__})

/* A call: reads/writes RSP, stores 8 bytes below it; RSP -= 8 after. */
void ev_call(struct engine *e);
/* A ret at the simulated RSP: reads RSP and 8 stack bytes; RSP += 8 after. */
void ev_ret(struct engine *e);

/* Checks: print FAIL lines and count failures. */
extern int ev_failures;
void ev_check(const char *what, uint64_t got, uint64_t want);
void ev_check_totals(const char *test, struct engine *e, uint64_t insns, uint64_t steps);
/* Figures of the function entered at entry; calls 0 means it must not exist. */
void ev_check_function(const char *test, struct engine *e, uint64_t entry, uint64_t insns,
		       uint64_t steps, uint64_t calls);

#endif
